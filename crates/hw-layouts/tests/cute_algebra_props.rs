//! CuTe's algebra on the linear subset without pycute: each operation's
//! defining property (CuTe's `@post`), checked at every index with CuTe's
//! integer arithmetic on random layouts.

use hw_layouts::cute::{algebra, IntTuple, Layout};
use proptest::prelude::*;
use std::collections::HashSet;

/// A random linear layout: power-of-two modes at disjoint bit ranges in a
/// random order, with gaps and (if `zero`) stride-0 modes.
fn layout(max_modes: usize, zero: bool) -> impl Strategy<Value = Layout> {
    prop::collection::vec((0u32..4, 0u32..3, 0u32..6, 0u32..100), 1..=max_modes).prop_map(
        move |m| {
            let mut order: Vec<usize> = (0..m.len()).collect();
            order.sort_by_key(|&i| m[i].3);
            let mut strides = vec![0i64; m.len()];
            let mut pos = 0;
            for &i in &order {
                let (k, gap, z, _) = m[i];
                if zero && z == 0 {
                    continue;
                }
                pos += gap;
                strides[i] = 1 << pos;
                pos += k;
            }
            Layout::from_modes(
                &m.iter()
                    .zip(&strides)
                    .map(|(x, &d)| (1i64 << x.0, d))
                    .collect::<Vec<_>>(),
            )
        },
    )
}

fn f(l: &Layout, i: i64) -> i64 {
    l.offset_of(i).unwrap()
}

/// `A` read at any index, past its size too: CuTe coalesces `A` first
/// (dropping shape-1 modes, whose strides are lost) and then continues
/// its last mode.
fn f_ext(a: &Layout, i: i64) -> i64 {
    let modes: Vec<(i64, i64)> = a.flat_modes().into_iter().filter(|m| m.0 != 1).collect();
    if modes.is_empty() {
        return 0;
    }
    Layout::from_modes(&modes).offset_of(i).unwrap()
}

fn size(l: &Layout) -> i64 {
    l.size().unwrap()
}

fn injective(l: &Layout) -> bool {
    let n = size(l);
    (0..n).map(|i| f(l, i)).collect::<HashSet<_>>().len() as i64 == n
}

/// Is `i ↦ g(i)` (for `i < 2^k`) GF(2)-linear, i.e. additive without carries?
fn xor_linear(n: i64, g: impl Fn(i64) -> i64) -> bool {
    (0..n).all(|i| {
        (0..63)
            .filter(|b| i >> b & 1 == 1)
            .fold(0, |x, b| x ^ g(1 << b))
            == g(i)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// composition(A, B)(i) = A(B(i)), A read past its size along its last
    /// mode; an error only when that function is not linear.
    #[test]
    fn composition_is_a_of_b(a in layout(4, true), b in layout(3, true)) {
        match algebra::composition(&a, &b) {
            Ok(r) => {
                prop_assert_eq!(size(&r), size(&b));
                for i in 0..size(&b) {
                    prop_assert_eq!(f(&r, i), f_ext(&a, f(&b, i)), "{} o {} = {} at {}", a, b, r, i);
                }
            }
            Err(e) => prop_assert!(!xor_linear(size(&b), |i| f_ext(&a, f(&b, i))), "{} o {}: {}", a, b, e),
        }
    }

    /// complement(A, M): disjoint from A's image, increasing, and with A a
    /// bijection onto `0..max(M, reach)`.
    #[test]
    fn complement_fills_the_holes(a in layout(4, true), m in 0u32..12) {
        let m = 1i64 << m;
        let c = algebra::complement(&a, m as u64).unwrap();
        let image: HashSet<i64> = (0..size(&a)).map(|i| f(&a, i)).collect();
        let mut all = HashSet::new();
        for j in 0..size(&c) {
            if j > 0 {
                prop_assert!(f(&c, j) > f(&c, j - 1), "{} not increasing", c);
            }
            for &x in &image {
                prop_assert!(all.insert(x + f(&c, j)), "{} and {} overlap", a, c);
            }
        }
        let reach = image.iter().max().map_or(1, |x| x + 1);
        let n = all.len() as i64;
        prop_assert!(n >= m && n >= reach && (0..n).all(|x| all.contains(&x)), "{} + {}", a, c);
    }

    /// right_inverse: A(R(j)) = j for every j < size R, and R is maximal:
    /// no index bit of A reaches offset size(R) exactly.
    #[test]
    fn right_inverse_undoes_a(a in layout(4, true)) {
        let r = algebra::right_inverse(&a).unwrap();
        for j in 0..size(&r) {
            prop_assert_eq!(f(&a, f(&r, j)), j, "{} {}", a, r);
        }
        let n = size(&a);
        prop_assert!((0..63).filter(|b| 1i64 << b < n).all(|b| f(&a, 1 << b) != size(&r)), "{} {} not maximal", a, r);
    }

    /// left_inverse: L(A(i)) = i for every i, A injective.
    #[test]
    fn left_inverse_undoes_a(a in layout(4, false)) {
        prop_assume!(injective(&a));
        let l = algebra::left_inverse(&a).unwrap();
        for i in 0..size(&a) {
            prop_assert_eq!(f(&l, f(&a, i)), i, "{} {}", a, l);
        }
    }

    /// logical_divide(A, B): mode 0 is A∘B; the whole is A∘(B, complement(B, size A)).
    #[test]
    fn logical_divide_is_a_of_tiler(a in layout(4, false), b in layout(2, true)) {
        let Ok(d) = algebra::logical_divide(&a, &b) else { return Ok(()); };
        let c = algebra::complement(&b, size(&a) as u64).unwrap();
        let tiler = Layout {
            shape: IntTuple::Tuple(vec![b.shape.clone(), c.shape.clone()]),
            stride: IntTuple::Tuple(vec![b.stride.clone(), c.stride.clone()]),
        };
        prop_assert_eq!(size(&d), size(&tiler));
        for i in 0..size(&d) {
            prop_assert_eq!(f(&d, i), f_ext(&a, f(&tiler, i)), "{} / {} = {}", a, b, d);
        }
    }

    /// logical_product(A, B): mode 0 is A; mode 1 places copies of A at B's
    /// positions in A's complement, so the whole is injective when A and B are.
    #[test]
    fn logical_product_repeats_a(a in layout(3, false), b in layout(2, false)) {
        let p = algebra::logical_product(&a, &b).unwrap();
        prop_assert_eq!(size(&p), size(&a) * size(&b));
        for i in 0..size(&a) {
            prop_assert_eq!(f(&p, i), f(&a, i));
        }
        if injective(&a) && injective(&b) {
            prop_assert!(injective(&p), "{} x {} = {}", a, b, p);
        }
    }
}

/// CUTLASS's C++ `right_inverse` skips stride-0 modes (pycute's port stops
/// at them and returns `1:0`): `(2,4):(0,1)` reaches offsets 0..4 through
/// its second mode, whose index bits are 1 and 2, so `R = 4:2`.
#[test]
fn right_inverse_skips_broadcast_modes_as_cutlass_does() {
    let a = hw_layouts::cute::parse_layout("(2,4):(0,1)").unwrap();
    assert_eq!(algebra::right_inverse(&a).unwrap().to_string(), "4:2");
}
