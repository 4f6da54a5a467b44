//! The fast paths added for speed, against straightforward references:
//! `apply` (flat index + cached byte tables) against the XOR of the bases
//! of the set input bits, in any input order; and
//! `ensure_layout_not_larger_than` (packed columns) against the nested-list
//! algorithm of Triton's `ensureLayoutNotLargerThan` (zero each component
//! that does not fit, drop register bases that became zero).

use linear_layout::utils::ensure_layout_not_larger_than;
use linear_layout::{DimName, LinearLayout};

use proptest::prelude::Rng;
use proptest::test_runner::{RngAlgorithm, TestRng};

/// A fresh generator: proptest's, with a fixed seed, so failures reproduce.
fn rng() -> TestRng {
    TestRng::deterministic_rng(RngAlgorithm::ChaCha)
}

/// A number in `0..n`.
fn below(r: &mut TestRng, n: u64) -> u64 {
    r.next_u64() % n
}

/// A random layout: in dims register, lane, warp (0-5 bits each), out dims
/// dim0, dim1 (0-5 bits each), random components.
fn random_layout(r: &mut TestRng) -> LinearLayout {
    let outs = [DimName::dim(0), DimName::dim(1)];
    let sizes: Vec<u64> = outs.iter().map(|_| 1 << below(r, 6)).collect();
    let bases = [DimName::REGISTER, DimName::LANE, DimName::WARP]
        .into_iter()
        .map(|d| {
            let n = below(r, 6);
            let bs = (0..n)
                .map(|_| sizes.iter().map(|&s| below(r, s)).collect())
                .collect();
            (d, bs)
        })
        .collect();
    LinearLayout::new(bases, outs.into_iter().zip(sizes).collect(), false).unwrap()
}

#[test]
fn apply_equals_xor_of_bases_in_any_order() {
    let mut r = rng();
    for _ in 0..300 {
        let l = random_layout(&mut r);
        for _ in 0..20 {
            let mut ins: Vec<(DimName, u64)> =
                l.in_dim_names().map(|d| (d, r.next_u64())).collect();
            // Reference: XOR of the bases of the set bits (below the size).
            let mut want = vec![0u64; l.num_out_dims()];
            for &(d, v) in &ins {
                for (k, b) in l.bases(d).iter().enumerate() {
                    if v >> k & 1 == 1 {
                        for (w, c) in want.iter_mut().zip(b) {
                            *w ^= c;
                        }
                    }
                }
            }
            if below(&mut r, 2) == 0 {
                ins.reverse();
            }
            let got = l.apply(&ins).unwrap();
            let names: Vec<DimName> = l.out_dim_names().collect();
            assert_eq!(got.len(), names.len());
            for (k, &(n, v)) in got.iter().enumerate() {
                assert_eq!((n, v), (names[k], want[k]), "{l:?} at {ins:?}");
            }
        }
    }
}

#[test]
fn ensure_not_larger_equals_nested_reference() {
    let mut r = rng();
    for _ in 0..500 {
        let l = random_layout(&mut r);
        // One or two entries, possibly the same dim twice.
        let shape: Vec<(DimName, u64)> = (0..1 + below(&mut r, 2))
            .map(|_| {
                (
                    DimName::dim(below(&mut r, 2) as usize),
                    1 << below(&mut r, 6),
                )
            })
            .collect();
        let broadcast = below(&mut r, 2) == 0;
        // Reference, entry by entry.
        let mut bases: Vec<(DimName, Vec<Vec<u64>>)> =
            l.in_dim_names().map(|d| (d, l.bases(d))).collect();
        let mut outs = l.out_dims();
        for &(d, want) in &shape {
            let k = outs.iter().position(|o| o.0 == d).unwrap();
            if outs[k].1 <= want {
                continue;
            }
            outs[k].1 = want;
            for (in_dim, bs) in &mut bases {
                let mut keep = Vec::new();
                for b in bs.iter() {
                    let was_nonzero = b.iter().any(|&c| c != 0);
                    let mut nb = b.clone();
                    if nb[k] >= want {
                        nb[k] = 0;
                    }
                    let now_zero = nb.iter().all(|&c| c == 0);
                    if !broadcast && *in_dim == DimName::REGISTER && was_nonzero && now_zero {
                        continue;
                    }
                    keep.push(nb);
                }
                *bs = keep;
            }
        }
        let want = LinearLayout::new(bases, outs, false).unwrap();
        let got = ensure_layout_not_larger_than(&l, &shape, broadcast).unwrap();
        assert_eq!(got, want, "{l:?} shape {shape:?} broadcast {broadcast}");
        assert_eq!(got.out_dims(), want.out_dims());
    }
}

/// `transpose_outs` (built directly) maps every input to the original
/// outputs, reordered: checked on all inputs of random layouts.
#[test]
fn transpose_outs_reorders_every_output() {
    let mut r = rng();
    for _ in 0..200 {
        let l = random_layout(&mut r);
        let order = [DimName::dim(1), DimName::dim(0)];
        let t = l.transpose_outs(&order).unwrap();
        assert_eq!(t.out_dims(), vec![l.out_dims()[1], l.out_dims()[0]]);
        let n = l.total_in_dim_size_log2();
        for flat in 0..1u64 << n {
            let mut x = flat;
            let ins: Vec<(DimName, u64)> = l
                .in_dims()
                .into_iter()
                .map(|(d, s)| {
                    let v = x & (s - 1);
                    x >>= s.trailing_zeros();
                    (d, v)
                })
                .collect();
            let a = l.apply(&ins).unwrap();
            let b = t.apply(&ins).unwrap();
            assert_eq!((b[0], b[1]), (a[1], a[0]), "{l:?}");
        }
    }
}
