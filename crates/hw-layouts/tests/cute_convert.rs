//! CuTe ↔ linear layout in both directions: every conversion is checked
//! against CuTe's integer arithmetic at every coordinate, and against
//! hw-layouts' own Triton shared layouts for the swizzles both know.

use hw_layouts::cute::{self, CuteError, CuteLayout, Layout, Swizzle};
use hw_layouts::Encoding;
use linear_layout::{DimName, LinearLayout};
use proptest::prelude::*;

/// A random linear layout: power-of-two flat modes grouped into `top`
/// top-level modes, strides tiling `0..2^n` in a random order (a bijection
/// if `gaps` is false), or with gaps and broadcast modes.
fn linear_layout(gaps: bool) -> impl Strategy<Value = Layout> {
    (
        1usize..4,
        prop::collection::vec((0u32..4, 0u32..3, 0u32..8), 1..6),
        any::<u64>(),
    )
        .prop_map(move |(top, modes, seed)| {
            let n = modes.len();
            // A seeded permutation of the modes decides their offset order.
            let mut order: Vec<usize> = (0..n).collect();
            let mut s = seed;
            for i in (1..n).rev() {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                order.swap(i, (s >> 33) as usize % (i + 1));
            }
            let mut strides = vec![0i64; n];
            let mut pos = 0;
            for &m in &order {
                let (k, gap, z) = modes[m];
                if gaps && z == 0 {
                    continue; // stride 0: broadcast
                }
                if gaps {
                    pos += gap;
                }
                strides[m] = 1 << pos;
                pos += k;
            }
            let flat: Vec<(i64, i64)> = modes
                .iter()
                .zip(&strides)
                .map(|(m, &d)| (1i64 << m.0, d))
                .collect();
            // Group the flat modes into `top` top-level modes.
            let top = top.min(n);
            let per = n.div_ceil(top);
            let groups: Vec<Layout> = flat.chunks(per).map(Layout::from_modes).collect();
            if groups.len() == 1 {
                groups[0].clone()
            } else {
                Layout {
                    shape: cute::IntTuple::Tuple(groups.iter().map(|g| g.shape.clone()).collect()),
                    stride: cute::IntTuple::Tuple(
                        groups.iter().map(|g| g.stride.clone()).collect(),
                    ),
                }
            }
        })
}

/// Every top-level coordinate of `c` (mode sizes) with its flat index.
fn coords(c: &Layout) -> Vec<(Vec<u64>, i64)> {
    let sizes: Vec<i64> = c.modes().iter().map(|m| m.size().unwrap()).collect();
    let n = c.size().unwrap();
    (0..n)
        .map(|i| {
            let mut rest = i;
            let v = sizes
                .iter()
                .map(|&s| {
                    let x = rest % s;
                    rest /= s;
                    x as u64
                })
                .collect();
            (v, i)
        })
        .collect()
}

fn check_coordinate_map(c: &CuteLayout, l: &LinearLayout) {
    for (v, i) in coords(&c.layout) {
        let ins: Vec<(DimName, u64)> = v
            .iter()
            .enumerate()
            .map(|(k, &x)| (DimName::dim(k), x))
            .collect();
        let got = l.apply(&ins).unwrap()[0].1 as i64;
        assert_eq!(Some(got), c.offset_of(i), "{c} at {v:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// CuTe → linear (coordinate → offset) agrees with CuTe's arithmetic at
    /// every coordinate, and linear → CuTe gives the same function back.
    #[test]
    fn coordinate_map_round_trip(layout in linear_layout(true)) {
        let c = CuteLayout::plain(layout);
        let l = cute::coordinate_to_offset(&c).unwrap();
        check_coordinate_map(&c, &l);
        let back = cute::from_offset_map(&l).unwrap();
        prop_assert!(back.swizzle.is_none());
        let again = cute::coordinate_to_offset(&back).unwrap();
        prop_assert_eq!(&again, &l, "{} -> {}", c, back);
    }

    /// A bijective layout behind a random swizzle, read as a shared layout
    /// (offset → coordinate), inverts CuTe's map, and comes back as CuTe
    /// text with the same function (the swizzle found may differ from the
    /// one given where they agree on every offset in range).
    #[test]
    fn shared_round_trip_with_swizzle(layout in linear_layout(false), b in 0i64..4, m in 0i64..4, s in 0i64..4) {
        let swizzle = Swizzle::new(b, m, s.max(b)).ok().filter(|_| b > 0);
        let c = CuteLayout { swizzle, offset: 0, layout };
        let n = c.layout.size().unwrap();
        // A swizzle reaching past the offsets would leave the range: skip.
        prop_assume!((0..n).all(|i| c.offset_of(i).unwrap() < n));
        let shared = cute::to_shared_linear(&c).unwrap();
        let fwd = cute::coordinate_to_offset(&c).unwrap();
        check_coordinate_map(&c, &fwd);
        // shared ∘ fwd = identity on coordinates.
        for (v, _) in coords(&c.layout) {
            let ins: Vec<(DimName, u64)> = v.iter().enumerate().map(|(k, &x)| (DimName::dim(k), x)).collect();
            let off = fwd.apply(&ins).unwrap()[0].1;
            let back: Vec<u64> = shared.apply(&[(DimName::OFFSET, off)]).unwrap().iter().map(|x| x.1).collect();
            prop_assert_eq!(back, v);
        }
        let text = cute::from_shared_linear(&shared).unwrap();
        let again = cute::to_shared_linear(&cute::parse(&text.to_string()).unwrap()).unwrap();
        prop_assert_eq!(again, shared, "{} -> {}", c, text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// A layout with holes (gaps between its modes' offsets) read as a
    /// shared layout pads the unreached offset bits with zero bases; every
    /// reached offset still holds its coordinate, and the CuTe text comes
    /// back with the same function.
    #[test]
    fn padded_shared_round_trip(layout in linear_layout(true)) {
        prop_assume!(layout.flat_modes().iter().all(|&(s, d)| s == 1 || d != 0));
        let c = CuteLayout::plain(layout);
        let shared = cute::to_shared_linear(&c).unwrap();
        for (v, i) in coords(&c.layout) {
            let off = c.offset_of(i).unwrap() as u64;
            let back: Vec<u64> = shared.apply(&[(DimName::OFFSET, off)]).unwrap().iter().map(|x| x.1).collect();
            prop_assert_eq!(back, v);
        }
        let again = cute::from_shared_linear(&shared).unwrap();
        prop_assert_eq!(cute::coordinate_to_offset(&again).unwrap(), cute::coordinate_to_offset(&c).unwrap());
    }
}

fn triton_shared(attr: &str, shape: &[u64]) -> LinearLayout {
    let l = Encoding::parse(attr)
        .unwrap()
        .to_linear_layout(shape)
        .unwrap();
    // One CTA: drop the size-1 block dim.
    let outs: Vec<DimName> = l.out_dim_names().collect();
    l.sublayout(&[DimName::OFFSET], &outs).unwrap()
}

/// Triton's 128/64/32-byte swizzles of fp16 tiles are CuTe's
/// `Swizzle<3,3,3>`, `<2,3,3>`, `<1,3,3>` over the row-major tile (in
/// elements: 16-byte chunks are `M = 3` for 2-byte elements; 8 rows of 128
/// bytes put the row bits at `3 + 3`). Both sides are independent: hw-layouts'
/// NVMMA layouts are checked against Triton 3.9 elsewhere.
#[test]
fn nvmma_swizzles_are_cute_swizzles() {
    for (bytes, b, cols) in [(128, 3, 64), (64, 2, 32), (32, 1, 16)] {
        let t = triton_shared(
            &format!("#ttg.nvmma_shared<{{swizzlingByteWidth = {bytes}, transposed = false, elementBitWidth = 16}}>"),
            &[8, cols],
        );
        let c = cute::parse(&format!("Swizzle<{b},3,3> o (8,{cols}):({cols},1)")).unwrap();
        assert_eq!(cute::to_shared_linear(&c).unwrap(), t, "{bytes}B");
        assert_eq!(cute::from_shared_linear(&t).unwrap(), c, "{bytes}B");
    }
    // swizzled_shared vec 8, perPhase 1, maxPhase 8 is the same 128B swizzle.
    let t = triton_shared(
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
        &[8, 64],
    );
    assert_eq!(
        cute::from_shared_linear(&t).unwrap().to_string(),
        "Swizzle<3,3,3> o (8,64):(64,1)"
    );
    // A column-major (order [0, 1]) tile puts dim0 fastest.
    let t = triton_shared(
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>",
        &[16, 4],
    );
    assert_eq!(
        cute::from_shared_linear(&t).unwrap().to_string(),
        "(16,4):(1,16)"
    );
}

#[test]
fn non_linear_layouts_name_the_mode() {
    let e = cute::coordinate_to_offset(&cute::parse("(6,4):(1,6)").unwrap()).unwrap_err();
    assert_eq!(
        e,
        CuteError::ShapeNotPowerOfTwo {
            mode: "0".into(),
            shape: 6,
            padded: 8
        }
    );
    assert!(e.to_string().contains("pad it to 8"));
    let e = cute::coordinate_to_offset(&cute::parse("((2,4),8):((1,3),16)").unwrap()).unwrap_err();
    assert!(
        matches!(&e, CuteError::Carry { mode, stride: 3, other_mode, .. } if mode == "0.1" && other_mode == "0.0"),
        "{e}"
    );
    let e = cute::coordinate_to_offset(&cute::parse("(4,2):(1,-4)").unwrap()).unwrap_err();
    assert!(e.to_string().contains("mode 1 has negative stride -4"));
    let e =
        cute::coordinate_to_offset(&cute::parse("Swizzle<1,0,1> o 3 o 4:1").unwrap()).unwrap_err();
    assert_eq!(e, CuteError::NonZeroOffset(3));
    // Shape 2 with an odd stride is still linear: its one bit's offset 5
    // overlaps nothing.
    let l = cute::coordinate_to_offset(&cute::parse("(2,2):(5,2)").unwrap()).unwrap();
    assert_eq!(l.bases(DimName::dim(0)), vec![vec![5]]);
    // A huge extent is an error, not an allocation.
    let e = cute::coordinate_to_offset(
        &cute::parse("(1048576,1048576,1048576):(1,1048576,0)").unwrap(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("number of coordinate bits is 60, the limit is 40"),
        "{e}"
    );
}

#[test]
fn padding_makes_a_linear_layout() {
    let p =
        cute::pad_to_power_of_two(&cute::parse_layout("(6,(3,5)):(15,(1,3))").unwrap()).unwrap();
    assert_eq!(p.layout.to_string(), "(8,(4,8)):(32,(1,4))");
    let l = cute::coordinate_to_offset(&CuteLayout::plain(p.layout.clone())).unwrap();
    assert!(l.is_injective());
    // 6 * 15 real elements among the 256 padded ones.
    assert_eq!((0..256).filter(|&i| p.is_valid(i)).count(), 90);
    let e = cute::pad_to_power_of_two(&cute::parse_layout("(3,3):(1,4)").unwrap()).unwrap_err();
    assert!(
        e.to_string().contains("mode 1 has stride 4, expected 3"),
        "{e}"
    );
}

#[test]
fn shared_layouts_hold_each_element_once_and_pad_whole_bits() {
    let e = cute::to_shared_linear(&cute::parse("(4,8):(0,1)").unwrap()).unwrap_err();
    assert!(
        e.to_string().contains("bit 0 of mode 0 has offset 0"),
        "{e}"
    );
    // Holes are padding: offset bit 3 is never reached, a zero basis (as
    // Triton writes an allocation larger than the tensor), and back.
    let c = cute::parse("(4,8):(16,1)").unwrap();
    let l = cute::to_shared_linear(&c).unwrap();
    assert_eq!(
        l.bases(DimName::OFFSET),
        vec![
            vec![0, 1],
            vec![0, 2],
            vec![0, 4],
            vec![0, 0],
            vec![1, 0],
            vec![2, 0]
        ]
    );
    assert_eq!(cute::from_shared_linear(&l).unwrap(), c);
    // Reached offsets that are not whole bits cannot be padding.
    let e = cute::to_shared_linear(&cute::parse("(2,4):(3,4)").unwrap()).unwrap_err();
    assert!(e.to_string().contains("not whole offset bits"), "{e}");
}

#[test]
fn xor_without_a_swizzle_is_reported() {
    // Columns 7, 1, 2: offset 7 XORs three bits; no Swizzle<B,M,S> makes
    // them disjoint (checked by the exhaustive search).
    let l = cute::columns_layout(&[7, 1, 2]).unwrap();
    let e = cute::from_offset_map(&l).unwrap_err();
    assert!(
        e.to_string()
            .contains("basis 0 of index is offset 7 (0b111) and basis 1 of index is offset 1"),
        "{e}"
    );
    // A swizzle that the search must find: Swizzle<1,0,1> o 4:1 has columns 1, 3.
    let l = cute::columns_layout(&[1, 3]).unwrap();
    assert_eq!(
        cute::from_offset_map(&l).unwrap().to_string(),
        "Swizzle<1,0,1> o 4:1"
    );
}
