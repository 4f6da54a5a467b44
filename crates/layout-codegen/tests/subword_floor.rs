//! The sub-word floor (`layout_codegen::lower_bound::subword_units`):
//! its premise counted by brute force, its value by hand on the GPU
//! suite's pair, and no candidate of the planner below it on random 8-bit
//! pairs that meet the premise.

mod common;

use hw_layouts::Encoding;
use layout_codegen::lower_bound::subword_units;
use layout_codegen::planner::{lower_bound, plan, Target};
use linear_layout::{DimName, LinearLayout};
use std::collections::HashMap;

fn ll(attr: &str, shape: &[u64]) -> LinearLayout {
    Encoding::parse(attr)
        .unwrap()
        .to_linear_layout(shape)
        .unwrap()
}

/// The largest number of moved elements (destination elements not in
/// their thread already) that share a source thread and a destination
/// thread, by evaluating both layouts at every hardware index.
fn most_per_thread_pair(src: &LinearLayout, dst: &LinearLayout) -> u64 {
    let n = |l: &LinearLayout, d| l.in_dim_size(d);
    let mut holder: HashMap<u64, (u64, u64)> = HashMap::new();
    for w in 0..n(src, DimName::WARP) {
        for t in 0..n(src, DimName::LANE) {
            for r in 0..n(src, DimName::REGISTER) {
                holder.insert(src.apply_values(&[r, t, w, 0]), (t, w));
            }
        }
    }
    // (lane, warp) of the holder and of the reader.
    type Thread = (u64, u64);
    let mut pairs: HashMap<(Thread, Thread), u64> = HashMap::new();
    for w in 0..n(dst, DimName::WARP) {
        for t in 0..n(dst, DimName::LANE) {
            for r in 0..n(dst, DimName::REGISTER) {
                let from = holder[&dst.apply_values(&[r, t, w, 0])];
                if from != (t, w) {
                    *pairs.entry((from, (t, w))).or_default() += 1;
                }
            }
        }
    }
    pairs.values().copied().max().unwrap_or(0)
}

/// Bytes (8-bit elements of injective layouts) that cross warps, and
/// bytes that change lane inside their warp, by brute force.
fn moved_bytes(src: &LinearLayout, dst: &LinearLayout) -> (u64, u64) {
    let n = |l: &LinearLayout, d| l.in_dim_size(d);
    let mut holder: HashMap<u64, (u64, u64)> = HashMap::new();
    for w in 0..n(src, DimName::WARP) {
        for t in 0..n(src, DimName::LANE) {
            for r in 0..n(src, DimName::REGISTER) {
                holder.insert(src.apply_values(&[r, t, w, 0]), (t, w));
            }
        }
    }
    let (mut crossing, mut in_warp) = (0, 0);
    for w in 0..n(dst, DimName::WARP) {
        for t in 0..n(dst, DimName::LANE) {
            for r in 0..n(dst, DimName::REGISTER) {
                let (t0, w0) = holder[&dst.apply_values(&[r, t, w, 0])];
                if w0 != w {
                    crossing += 1;
                } else if t0 != t {
                    in_warp += 1;
                }
            }
        }
    }
    (crossing, in_warp)
}

/// `[1, 16]` 8-bit rows over 32 lanes and 4 warps to `[16, 1]` columns
/// over 2 × 16 lanes and 4 warps, 128×64 (the GPU suite's
/// `ho_blocked_T16_128x64_f8`): a thread's row meets a thread's column in
/// one byte. Source warp `w` holds rows `32w ..`, destination warp `v`
/// columns `16v ..`: 6144 of the 8192 bytes cross warps; of the 2048 that
/// stay in their warp, those whose row and column put them in the same
/// lane stay in their thread, the rest change lane (both counted by
/// brute force). Floor: `(2.5 · 6144 + I) / 128` units over 4 warps, plus
/// the barrier, against the byte floor's 32.
#[test]
fn rows_to_columns_of_bytes_pay_for_their_gathers() {
    let shape = [128u64, 64];
    let rows = ll(
        "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>",
        &shape,
    );
    let cols = ll(
        "#ttg.blocked<{sizePerThread = [16, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [0, 1]}>",
        &shape,
    );
    assert_eq!(most_per_thread_pair(&rows, &cols), 1);
    let (crossing, in_warp) = moved_bytes(&rows, &cols);
    assert_eq!(crossing, 6144);
    let b = lower_bound(&rows, &cols, 8, &Target::SM90).unwrap();
    assert_eq!((b.cross_warp_bytes, b.in_warp_bytes), (crossing, in_warp));
    let units = (2.5 * 6144.0 + in_warp as f64) / 128.0;
    assert_eq!(b.subword_units, units);
    assert_eq!(b.cycles, units / 4.0 + 4.0);
    assert!(b.cycles > 37.0);
    // Sixteen-bit elements move whole halves: no sub-word floor.
    let b16 = lower_bound(&rows, &cols, 16, &Target::SM90).unwrap();
    assert_eq!(b16.subword_units, 0.0);
    // Every candidate the planner proves costs at least the floor.
    let p = plan(&rows, &cols, 8, &Target::SM90).unwrap();
    for c in p
        .candidates
        .iter()
        .filter_map(|c| c.cycles.map(|x| (c.name, x)))
    {
        assert!(
            c.1 + 1e-9 >= b.cycles,
            "{} at {} below {}",
            c.0,
            c.1,
            b.cycles
        );
    }
}

/// The premise fails where two moved bytes share both threads: `[1, 8]`
/// rows over `[8, 4]` lanes to `[8, 1]` columns over `[4, 8]` (the suite's
/// `fresh3_blk8_T_128x64_i8`) meet in several bytes per thread pair, and
/// its plan of 36 cycles moves 4-byte words whole at the byte floor.
#[test]
fn thread_pairs_sharing_bytes_keep_the_byte_floor() {
    let shape = [128u64, 64];
    let src = ll(
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
        &shape,
    );
    let dst = ll(
        "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>",
        &shape,
    );
    assert!(most_per_thread_pair(&src, &dst) > 1);
    let b = lower_bound(&src, &dst, 8, &Target::SM90).unwrap();
    assert_eq!(b.subword_units, 0.0);
    assert_eq!(subword_units(&src, &dst, 8, &Target::SM90, 1, 0), None);
    let p = plan(&src, &dst, 8, &Target::SM90).unwrap();
    assert!(p.cycles <= 36.0);
}

/// Random injective 8-bit pairs: the floor applies exactly where the
/// brute-force premise holds, and then no candidate (Triton's plan, the
/// swizzled plans, partial, staged and shuffle plans) costs less.
#[test]
fn no_candidate_beats_the_subword_floor_on_random_pairs() {
    let mut rng = common::Rng(0x5b_3041);
    let (mut applied, mut checked) = (0, 0);
    for case in 0..2000 {
        let shape = common::random_shape(&mut rng, 12, 2);
        let src = common::random_distributed(&mut rng, &shape, 5, 2, 0);
        let dst = common::random_distributed(&mut rng, &shape, 5, 2, 0);
        let b = lower_bound(&src, &dst, 8, &Target::SM90).unwrap();
        let premise = b.cross_warp_bytes > 0 && most_per_thread_pair(&src, &dst) == 1;
        assert_eq!(b.subword_units > 0.0, premise, "case {case}");
        if !premise {
            continue;
        }
        applied += 1;
        let Ok(p) = plan(&src, &dst, 8, &Target::SM90) else {
            continue;
        };
        for c in p
            .candidates
            .iter()
            .filter_map(|c| c.cycles.map(|x| (c.name, x)))
        {
            checked += 1;
            assert!(
                c.1 + 1e-9 >= b.cycles,
                "case {case}: {} at {} below {}",
                c.0,
                c.1,
                b.cycles
            );
        }
    }
    assert!(applied >= 20, "{applied} pairs met the premise");
    assert!(checked >= 60, "{checked} candidates checked");
}
