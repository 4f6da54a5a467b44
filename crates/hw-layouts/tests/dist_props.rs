//! Properties of every blocked, MMA, dot-operand and slice layout (paper Def. 4.10, distributed
//! layouts): for random valid parameters and shapes, the layout is
//! surjective onto the shape and each column of its matrix (each basis) has
//! at most one non-zero bit. Checked by brute force over the bases, not with
//! the code under test: the images of all inputs are enumerated as XOR
//! spans and compared with the full tensor.

use hw_layouts::Encoding;
use linear_layout::LinearLayout;
use proptest::prelude::*;

/// A power of two 2^k, k in 0..=max.
fn pow2(max: u32) -> impl Strategy<Value = u64> {
    (0..=max).prop_map(|k| 1u64 << k)
}

/// Splits `bits` bits over `rank` dims (as powers of two).
fn split(bits: u32, rank: usize) -> impl Strategy<Value = Vec<u64>> {
    proptest::collection::vec(0..rank, bits as usize).prop_map(move |dims| {
        let mut v = vec![1u64; rank];
        for d in dims {
            v[d] *= 2;
        }
        v
    })
}

/// (attribute text, shape) for random valid blocked layouts.
fn blocked_case() -> impl Strategy<Value = (String, Vec<u64>)> {
    (1usize..=3)
        .prop_flat_map(|rank| {
            (
                Just(rank),
                proptest::collection::vec(pow2(2), rank),
                prop_oneof![Just(5u32), Just(6u32)].prop_flat_map(move |b| split(b, rank)),
                (0u32..=3).prop_flat_map(move |b| split(b, rank)),
                Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
                (0u32..=2).prop_flat_map(move |b| split(b, rank)),
                proptest::collection::vec(pow2(6), rank),
            )
        })
        .prop_map(|(_rank, spt, tpw, wpc, order, ctas, shape)| {
            let l = |v: &[u64]| format!("{v:?}");
            // One CGA basis per CTA bit: the CTAs tile dims in order.
            let mut cga = Vec::new();
            for (d, &c) in ctas.iter().enumerate() {
                let mut k = 1;
                while k < c {
                    let mut b = vec![0u64; ctas.len()];
                    b[d] = k;
                    cga.push(b);
                    k *= 2;
                }
            }
            let cga = if cga.is_empty() {
                String::new()
            } else {
                format!(", CGALayout = {cga:?}")
            };
            (
                format!(
                    "#ttg.blocked<{{sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {:?}{cga}}}>",
                    l(&spt),
                    l(&tpw),
                    l(&wpc),
                    order
                ),
                shape,
            )
        })
}

/// Packs a basis (dim0 in the low bits) with `bits[d]` bits per dim.
fn pack(b: &[u64], bits: &[u32]) -> u64 {
    let mut r = 0u64;
    let mut shift = 0;
    for (c, &n) in b.iter().zip(bits) {
        r |= c << shift;
        shift += n;
    }
    r
}

fn check_def_4_10(l: &LinearLayout, shape: &[u64]) -> Result<(), TestCaseError> {
    let bits: Vec<u32> = shape.iter().map(|s| s.trailing_zeros()).collect();
    let total: u32 = bits.iter().sum();
    let mut packed = Vec::new();
    for (_, bs) in l.all_bases() {
        for b in bs {
            prop_assert_eq!(b.len(), shape.len());
            for (c, s) in b.iter().zip(shape) {
                prop_assert!(c < s, "component {} out of shape {:?}", c, shape);
            }
            let p = pack(&b, &bits);
            prop_assert!(p.count_ones() <= 1, "basis {:?} has more than one bit", b);
            packed.push(p);
        }
    }
    // Surjective: the XOR span of the bases is every index of the tensor.
    // With single-bit bases that is: every bit position is hit.
    let mut hit = 0u64;
    for p in packed {
        hit |= p;
    }
    let all = if total == 64 {
        u64::MAX
    } else {
        (1u64 << total) - 1
    };
    prop_assert_eq!(hit, all, "not surjective onto {:?}", shape);
    Ok(())
}

/// (attribute text, shape) for random valid NVIDIA MMA accumulators and
/// their dot operands (Ampere A/B with kWidth 1..8, Hopper A).
fn mma_case() -> impl Strategy<Value = (String, Vec<u64>)> {
    (
        prop_oneof![Just(2u32), Just(3u32)],
        (0u32..=3).prop_flat_map(|b| split(b, 2)),
        0usize..4,
        pow2(3),
        (0u32..=2, 0u32..=5),
        proptest::collection::vec(pow2(9), 2),
        (0u32..=1).prop_flat_map(|b| split(b, 2)),
    )
        .prop_map(|(major, warps, which, kw, (mexp, nexp), shape, ctas)| {
            let instr = if major == 2 {
                format!("[{}, 8]", 8 << mexp)
            } else {
                format!("[16, {}, 16]", 8 << nexp)
            };
            let mut cga = Vec::new();
            for (d, &c) in ctas.iter().enumerate() {
                if c > 1 {
                    let mut b = vec![0u64; 2];
                    b[d] = 1;
                    cga.push(b);
                }
            }
            let cga = if cga.is_empty() { String::new() } else { format!(", CGALayout = {cga:?}") };
            let mma = format!(
                "#ttg.nvidia_mma<{{versionMajor = {major}, versionMinor = 0, warpsPerCTA = {warps:?}{cga}, instrShape = {instr}}}>"
            );
            let text = match (which, major) {
                (0, _) => mma,
                (1, _) | (2, 3) => format!("#ttg.dot_op<{{opIdx = 0, parent = {mma}, kWidth = {kw}}}>"),
                (2, _) => format!("#ttg.dot_op<{{opIdx = 1, parent = {mma}, kWidth = {kw}}}>"),
                _ => format!("#ttg.slice<{{dim = 0, parent = {mma}}}>"),
            };
            let shape = if which == 3 { vec![shape[1]] } else { shape };
            (text, shape)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn mma_and_dot_layouts_are_surjective_with_single_bit_columns((text, shape) in mma_case()) {
        let enc = Encoding::parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        let l = enc.to_linear_layout(&shape).map_err(|e| TestCaseError::fail(format!("{text} {shape:?}: {e}")))?;
        check_def_4_10(&l, &shape)?;
        prop_assert_eq!(Encoding::parse(&enc.to_mlir()).unwrap(), enc);
    }

    #[test]
    fn blocked_layouts_are_surjective_with_single_bit_columns((text, shape) in blocked_case()) {
        let enc = Encoding::parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        let l = enc.to_linear_layout(&shape).map_err(|e| TestCaseError::fail(format!("{text} {shape:?}: {e}")))?;
        check_def_4_10(&l, &shape)?;
        // The printed form is stable.
        prop_assert_eq!(Encoding::parse(&enc.to_mlir()).unwrap(), enc);
    }

    #[test]
    fn slices_of_blocked_layouts_keep_the_properties((text, shape) in blocked_case(), dim in 0usize..3) {
        prop_assume!(shape.len() >= 2 && dim < shape.len());
        let slice = format!("#ttg.slice<{{dim = {dim}, parent = {text}}}>");
        let mut s = shape.clone();
        s.remove(dim);
        let enc = Encoding::parse(&slice).map_err(|e| TestCaseError::fail(format!("{slice}: {e}")))?;
        let l = enc.to_linear_layout(&s).map_err(|e| TestCaseError::fail(format!("{slice} {s:?}: {e}")))?;
        check_def_4_10(&l, &s)?;
    }

    /// Garbage never panics: mutated attribute text gives a layout or an
    /// error.
    #[test]
    fn mutated_text_never_panics((text, shape) in blocked_case(), pos in 0usize..400, byte in any::<u8>()) {
        let mut t = text.into_bytes();
        let p = pos % t.len();
        t[p] = byte;
        let t = String::from_utf8_lossy(&t).into_owned();
        if let Ok(e) = Encoding::parse(&t) {
            let _ = e.to_linear_layout(&shape);
            let _ = e.to_mlir();
        }
    }
}
