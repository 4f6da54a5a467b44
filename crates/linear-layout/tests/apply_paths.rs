//! `apply`'s paths against a brute-force evaluation from the bases.
//!
//! `apply` has an inlined fast path (exactly 4 inputs named in the layout's
//! order, in dim 0 of at most 2^10 values and dims 1-3 of at most 2^8, at
//! most 4 out dims of at most 2^16 values each: per-dim tables in a 16-bit
//! lane format) and a general path (any order, any dims: flat byte tables;
//! outputs that do not fit the lanes are built on the heap). Random layouts
//! cover both sides of every one of those limits; random named inputs come
//! in the layout's order (the fast path where the layout qualifies),
//! shuffled (the general path), with a dim missing, duplicated or unknown
//! (errors), and always with random bits above each dim's size (ignored).
//! The reference is the XOR, per out dim, of the bases (`bases(d)`, nested
//! lists) of the set bits below each dim's size.

use linear_layout::{DimName, LinearLayout};
use proptest::prelude::*;

const IN_POOL: [&str; 6] = ["register", "lane", "warp", "block", "offset", "iteration"];
const OUT_POOL: [&str; 6] = ["dim0", "dim1", "dim2", "dim3", "dim4", "dim5"];

/// A layout with the first `in_logs.len()` names of `IN_POOL` as in dims
/// (log2 sizes `in_logs`) and the first `out_logs.len()` of `OUT_POOL` as
/// out dims, each basis component drawn from `raw`.
fn build(in_logs: &[u32], out_logs: &[u32], raw: &[u64]) -> LinearLayout {
    let mut k = 0;
    let mut next = || {
        k += 1;
        raw[k % raw.len()].rotate_left(k as u32 * 7)
    };
    let bases = in_logs
        .iter()
        .zip(IN_POOL)
        .map(|(&n, d)| {
            let bs = (0..n)
                .map(|_| {
                    out_logs
                        .iter()
                        .map(|&o| next() & ((1u64 << o) - 1))
                        .collect()
                })
                .collect();
            (DimName::new(d), bs)
        })
        .collect();
    let outs = out_logs
        .iter()
        .zip(OUT_POOL)
        .map(|(&o, d)| (DimName::new(d), 1u64 << o))
        .collect();
    LinearLayout::new(bases, outs, false).unwrap()
}

/// Brute force: per out dim, the XOR of the components of the bases of the
/// set bits of each input (bits at or above the dim's size ignored).
fn reference(l: &LinearLayout, ins: &[(DimName, u64)]) -> Vec<(DimName, u64)> {
    let mut want: Vec<(DimName, u64)> = l.out_dim_names().map(|d| (d, 0)).collect();
    for &(d, v) in ins {
        for (k, b) in l.bases(d).iter().enumerate() {
            if v >> k & 1 == 1 {
                for (w, c) in want.iter_mut().zip(b) {
                    w.1 ^= c;
                }
            }
        }
    }
    want
}

/// In dim log2 sizes around the fast path's limits (2^10 for dim 0, 2^8
/// for the others) and out dim log2 sizes around the lanes' (2^16), with at
/// most 40 input and 64 output bits.
fn arb_layout() -> impl Strategy<Value = LinearLayout> {
    (
        prop::collection::vec(prop_oneof![0u32..=3, 7u32..=11], 1..=5),
        prop::collection::vec(prop_oneof![0u32..=4, 15u32..=17], 1..=5),
        prop::collection::vec(any::<u64>(), 8),
    )
        .prop_map(|(mut il, mut ol, raw)| {
            while il.iter().sum::<u32>() > 40 {
                *il.iter_mut().max().unwrap() -= 1;
            }
            while ol.iter().sum::<u32>() > 64 {
                *ol.iter_mut().max().unwrap() -= 1;
            }
            build(&il, &ol, &raw)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn apply_paths_equal_brute_force(
        l in arb_layout(),
        values in prop::collection::vec(any::<u64>(), 6),
        perm in any::<u64>(),
        case in 0u32..5,
    ) {
        let mut ins: Vec<(DimName, u64)> =
            l.in_dim_names().zip(values.iter().copied()).collect();
        // The layout's order, then a shuffle of it (Fisher-Yates from
        // `perm`; may be the identity).
        let want = reference(&l, &ins);
        prop_assert_eq!(l.apply(&ins).unwrap(), want.clone(), "in order: {:?} {:?}", l, ins);
        let mut p = perm;
        for i in (1..ins.len()).rev() {
            ins.swap(i, (p % (i as u64 + 1)) as usize);
            p /= i as u64 + 1;
        }
        let got = l.apply(&ins).unwrap();
        prop_assert_eq!(got.len(), l.num_out_dims());
        prop_assert_eq!(got.to_vec(), want.clone(), "shuffled: {:?} {:?}", l, ins);
        // The same through the evaluator and the packed form.
        prop_assert_eq!(l.evaluator().apply(&ins).unwrap(), want.clone());
        // Inputs that are not exactly the in dims are errors.
        let unknown = DimName::new("not_an_in_dim");
        let bad: Option<Vec<(DimName, u64)>> = match case {
            0 => (!ins.is_empty()).then(|| ins[1..].to_vec()),
            1 => (!ins.is_empty()).then(|| {
                let mut v = ins.clone();
                v.push(ins[0]);
                v
            }),
            2 => (!ins.is_empty()).then(|| {
                let mut v = ins.clone();
                v[0].0 = unknown;
                v
            }),
            3 => Some([ins.clone(), vec![(unknown, 1)]].concat()),
            _ => None,
        };
        if let Some(bad) = bad {
            prop_assert!(l.apply(&bad).is_err(), "accepted {:?} for {:?}", bad, l);
        }
    }
}

/// Both sides of each fast-path limit, with in-order inputs: in dim 0 of
/// 2^10 and 2^11 values, in dim 3 of 2^8 and 2^9, an out dim of 2^16 and
/// 2^17 values, 4 and 5 out dims, 3 and 4 in dims, 64 output bits with a
/// size-1 out dim at bit 64; every input value of a
/// small layout (exhaustive over 2^12 flat inputs) and random ones of the
/// larger, each with garbage above the dim's size.
#[test]
fn apply_limits_exhaustive() {
    let raw: Vec<u64> = (1..=8u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let cases: [(&[u32], &[u32]); 10] = [
        (&[4, 3, 3, 2], &[6, 6]),
        (&[10, 1, 1, 0], &[8, 4]),
        (&[11, 1, 0, 0], &[8, 4]),
        (&[2, 1, 1, 8], &[16]),
        (&[2, 1, 1, 9], &[16]),
        (&[3, 3, 3, 3], &[17, 2]),
        (&[3, 3, 3, 3], &[2, 2, 2, 2]),
        (&[3, 3, 3, 3], &[2, 2, 2, 2, 2]),
        (&[4, 4, 4], &[6, 6]),
        // 64 output bits and a size-1 out dim at bit 64.
        (&[3, 3, 3, 3], &[32, 32, 0]),
    ];
    for (il, ol) in cases {
        let l = build(il, ol, &raw);
        let bits: u32 = il.iter().sum();
        let count = 1u64 << bits.min(12);
        for i in 0..count {
            let flat = if bits <= 12 {
                i
            } else {
                i.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 7
            };
            let mut x = flat;
            let ins: Vec<(DimName, u64)> = l
                .in_dims()
                .into_iter()
                .map(|(d, s)| {
                    let v = x & (s - 1);
                    x >>= s.trailing_zeros();
                    // Garbage above the size (ignored).
                    (d, v | (i.rotate_left(17) & !(s - 1)))
                })
                .collect();
            assert_eq!(
                l.apply(&ins).unwrap(),
                reference(&l, &ins),
                "{il:?} {ol:?} {ins:?}"
            );
        }
    }
}
