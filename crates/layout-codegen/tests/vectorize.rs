//! Vectorisation widths: the paper's Table 2 (one test per row) and
//! brute-force checks of contiguity on random layouts.

use layout_codegen::vectorize::{
    check_global_contiguity, check_shared_vectorisation, contiguity_report, global_contiguity,
    legacy_contiguity, shared_vectorisation, VectorizeError,
};
use linear_layout::{utils, DimName, LinearLayout};

mod common;
use common::Rng;

const REG: DimName = DimName::REGISTER;
const LANE: DimName = DimName::LANE;
const WARP: DimName = DimName::WARP;

/// The load layout we choose for a `[512, k]` tensor (4 warps, 32 lanes),
/// as Triton's coalescing pass would build a blocked layout:
/// * `k = 1`: `sizePerThread = [4, 1]`, `order = [0, 1]` (dim1 has one
///   element, so dim0 is the contiguous, fastest dim): 512 / 128 threads =
///   4 elements per thread.
/// * `k ≥ 2`: `sizePerThread = [r, k]` with `r = max(1, 128 / (k ·
///   bitwidth))` rows of `k` elements (one 128-bit vector of whole rows),
///   `threadsPerWarp = [32, 1]`, `warpsPerCTA = [4, 1]`, `order = [1, 0]`,
///   cut to the tensor (excess tile bits broadcast, as Triton's
///   `ensureLayoutNotLargerThan`).
///
/// Returns the layout and the memory order (row-major: `[1, 0]`; for
/// `k = 1` the order is `[0, 1]`, equivalent in memory since dim1 has size
/// 1).
fn table2_layout(k: u64, bitwidth: u32) -> (LinearLayout, Vec<usize>) {
    let id = LinearLayout::identity_1d;
    let (d0, d1) = (DimName::dim(0), DimName::dim(1));
    if k == 1 {
        let l = id(4, REG, d0) * id(32, LANE, d0) * id(4, WARP, d0) * id(1, REG, d1);
        (l, vec![0, 1])
    } else {
        let r = (128 / (k * bitwidth as u64)).max(1);
        let l = (id(k, REG, d1) * id(r, REG, d0) * id(32, LANE, d0) * id(4, WARP, d0))
            .transpose_outs(&[d0, d1])
            .unwrap();
        let l = utils::ensure_layout_not_larger_than(&l, &[(d0, 512), (d1, k)], false).unwrap();
        (l, vec![1, 0])
    }
}

/// One row of Table 2: tensor `[512, k]`, element bits, and the paper's
/// (Triton, Triton-Linear) instructions and bitwidths.
fn row(k: u64, bitwidth: u32, legacy: (&str, u32), linear: (&str, u32)) {
    let (l, order) = table2_layout(k, bitwidth);
    let rep = contiguity_report(&l, &order, bitwidth).unwrap();
    assert_eq!(
        (rep.legacy.instruction.as_str(), rep.legacy.bits),
        legacy,
        "legacy [512, {k}] x {bitwidth}"
    );
    assert_eq!(
        (rep.linear.instruction.as_str(), rep.linear.bits),
        linear,
        "linear [512, {k}] x {bitwidth}"
    );
    // Brute force: the Triton-Linear width is contiguous for every thread,
    // and maximal.
    let n = global_contiguity(&l, &order).unwrap();
    check_global_contiguity(&l, &order, n, true).unwrap();
}

#[test]
fn table2_512x1_f8() {
    row(1, 8, ("v1.b32", 32), ("v1.b32", 32));
}
#[test]
fn table2_512x2_f8() {
    row(2, 8, ("v1.b16", 16), ("v4.b32", 128));
}
#[test]
fn table2_512x4_f8() {
    row(4, 8, ("v1.b32", 32), ("v4.b32", 128));
}
#[test]
fn table2_512x8_f8() {
    row(8, 8, ("v2.b32", 64), ("v4.b32", 128));
}
#[test]
fn table2_512x16_f8() {
    row(16, 8, ("v4.b32", 128), ("v4.b32", 128));
}
#[test]
fn table2_512x1_f16() {
    row(1, 16, ("v2.b32", 64), ("v2.b32", 64));
}
#[test]
fn table2_512x2_f16() {
    row(2, 16, ("v1.b32", 32), ("v4.b32", 128));
}
#[test]
fn table2_512x4_f16() {
    row(4, 16, ("v2.b32", 64), ("v4.b32", 128));
}
#[test]
fn table2_512x8_f16() {
    row(8, 16, ("v4.b32", 128), ("v4.b32", 128));
}
#[test]
fn table2_512x16_f16() {
    row(16, 16, ("v4.b32", 128), ("v4.b32", 128));
}

/// §5.1: a `[128, 1]` tensor whose layout keeps 4 rows per thread but names
/// dim1 (size 1) as the fastest dim: the legacy rule sees 1 element, the
/// linear rule 4 (the rows are adjacent in memory).
#[test]
fn paper_128x1_example() {
    let id = LinearLayout::identity_1d;
    let (d0, d1) = (DimName::dim(0), DimName::dim(1));
    let l = (id(1, REG, d1) * id(4, REG, d0) * id(32, LANE, d0))
        .transpose_outs(&[d0, d1])
        .unwrap();
    assert_eq!(legacy_contiguity(&l, &[1, 0]).unwrap(), 1);
    assert_eq!(global_contiguity(&l, &[1, 0]).unwrap(), 4);
    check_global_contiguity(&l, &[1, 0], 4, true).unwrap();
    assert!(matches!(
        check_global_contiguity(&l, &[1, 0], 8, false),
        Err(VectorizeError::NotContiguous { .. })
    ));
    assert!(matches!(
        check_global_contiguity(&l, &[1, 0], 2, true),
        Err(VectorizeError::NotMaximal {
            claimed: 2,
            double: 4
        })
    ));
    assert!(matches!(
        global_contiguity(&l, &[1, 1]),
        Err(VectorizeError::BadOrder { .. })
    ));
}

/// Random distributed layouts of a 2-D tensor: the contiguity claimed is
/// brute-force contiguous and maximal.
#[test]
fn random_global_contiguity_is_exact() {
    let mut rng = Rng(31337);
    for n in 0..300 {
        let (a, b) = (rng.below(5) as usize, rng.below(5) as usize);
        let mut bits: Vec<Vec<u64>> = (0..a)
            .map(|k| vec![1 << k, 0])
            .chain((0..b).map(|k| vec![0, 1 << k]))
            .collect();
        rng.shuffle(&mut bits);
        // Sometimes make the low bits register-contiguous on purpose.
        if rng.below(2) == 0 {
            bits.sort_by_key(|v| v[1] | v[0] << b);
        }
        let nl = rng.below(bits.len() as u64 + 1).min(3) as usize;
        let lanes: Vec<Vec<u64>> = bits.split_off(bits.len() - nl);
        let mut regs = bits;
        if rng.below(3) == 0 {
            regs.insert(rng.below(regs.len() as u64 + 1) as usize, vec![0, 0]);
        }
        let l = LinearLayout::new(
            vec![(REG, regs), (LANE, lanes)],
            vec![(DimName::dim(0), 1 << a), (DimName::dim(1), 1 << b)],
            true,
        )
        .unwrap();
        for order in [[1, 0], [0, 1]] {
            let c = global_contiguity(&l, &order).unwrap();
            check_global_contiguity(&l, &order, c, true)
                .unwrap_or_else(|e| panic!("{n} {order:?}: {e}\n{l}"));
        }
    }
}

/// Shared memory: register/lane → offset maps that are permutations of
/// offset bits; the vectorisation found is brute-force contiguous after its
/// register permutation, and with `max_vec` no permutation is used.
#[test]
fn random_shared_vectorisation_is_contiguous() {
    let mut rng = Rng(2718);
    let off = DimName::OFFSET;
    for n in 0..200 {
        let nr = rng.below(5) as usize;
        let total = nr + 3;
        let mut bits: Vec<Vec<u64>> = (0..total).map(|k| vec![1 << k]).collect();
        rng.shuffle(&mut bits);
        let lanes = bits.split_off(nr);
        let cvt = LinearLayout::new(
            vec![(REG, bits), (LANE, lanes)],
            vec![(off, 1 << total)],
            true,
        )
        .unwrap();
        for bw in [8, 16, 32] {
            let v = shared_vectorisation(&cvt, bw, None).unwrap();
            check_shared_vectorisation(&cvt, &v).unwrap_or_else(|e| panic!("{n}: {e}\n{cvt}"));
            // Independent count: offset bits 0.. held by registers.
            let regs: Vec<u64> = cvt.bases(REG).iter().map(|b| b[0]).collect();
            let mut expect = 1u64;
            while expect * 2 <= (128 / bw) as u64 && regs.contains(&expect) {
                expect *= 2;
            }
            assert_eq!(v.vec, expect, "{n} bw {bw}\n{cvt}");
            let fixed = shared_vectorisation(&cvt, bw, Some(4)).unwrap();
            assert!(fixed
                .register_permutation
                .iter()
                .enumerate()
                .all(|(i, &p)| i == p));
            check_shared_vectorisation(&cvt, &fixed).unwrap();
        }
    }
    let bad = LinearLayout::identity_1d(4, REG, DimName::dim(0));
    assert!(matches!(
        shared_vectorisation(&bad, 16, None),
        Err(VectorizeError::MissingOffset(_))
    ));
}
