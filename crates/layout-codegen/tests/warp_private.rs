//! Warp-private shared-memory plans (`layout_codegen::warp_private`): the
//! planner marks a plan so exactly when, by an independent criterion on
//! the layouts, no element crosses warps (every destination element of
//! warp `w` is held by warp `w` in the source, and no element by two
//! warps); such plans cost no barrier; and the simulator refuses a plan
//! that claims privacy while one warp reads what another wrote.

mod common;

use hw_layouts::Encoding;
use layout_codegen::cost::BARRIER_COST;
use layout_codegen::plan::ConversionPlan;
use layout_codegen::plan_options::PlanOptions;
use layout_codegen::planner::{plan_with, Target};
use layout_codegen::simulator::simulate;
use layout_codegen::warp_private::is_warp_private;
use layout_codegen::CodegenError;
use linear_layout::{DimName, LinearLayout};
use std::collections::HashMap;

fn ll(attr: &str, shape: &[u64]) -> LinearLayout {
    Encoding::parse(attr)
        .unwrap()
        .to_linear_layout(shape)
        .unwrap()
}

/// The independent criterion: every element is held by one warp of the
/// source only, and every destination element of warp `w` is one of them.
fn stays_in_its_warp(src: &LinearLayout, dst: &LinearLayout) -> bool {
    let n = |l: &LinearLayout, d| l.in_dim_size(d);
    let mut holder: HashMap<u64, u64> = HashMap::new();
    for w in 0..n(src, DimName::WARP) {
        for t in 0..n(src, DimName::LANE) {
            for r in 0..n(src, DimName::REGISTER) {
                let e = src.apply_values(&[r, t, w, 0]);
                if *holder.entry(e).or_insert(w) != w {
                    return false;
                }
            }
        }
    }
    (0..n(dst, DimName::WARP)).all(|w| {
        (0..n(dst, DimName::LANE)).all(|t| {
            (0..n(dst, DimName::REGISTER))
                .all(|r| holder.get(&dst.apply_values(&[r, t, w, 0])) == Some(&w))
        })
    })
}

/// `layout` with its register and lane bases permuted among themselves
/// (the warps keep theirs) and, when `cross`, warp basis 0 exchanged with
/// a register or lane basis.
fn shuffled(rng: &mut common::Rng, layout: &LinearLayout, cross: bool) -> LinearLayout {
    let b = layout.all_bases();
    let (nr, nl) = (b[0].1.len(), b[1].1.len());
    let mut pool: Vec<Vec<u64>> = b[0].1.iter().chain(&b[1].1).cloned().collect();
    rng.shuffle(&mut pool);
    let mut warp = b[2].1.clone();
    if cross && !warp.is_empty() {
        let k = rng.below(pool.len() as u64) as usize;
        std::mem::swap(&mut pool[k], &mut warp[0]);
    }
    LinearLayout::new(
        vec![
            (DimName::REGISTER, pool[..nr].to_vec()),
            (DimName::LANE, pool[nr..nr + nl].to_vec()),
            (DimName::WARP, warp),
            (DimName::BLOCK, vec![]),
        ],
        layout.out_dims(),
        true,
    )
    .unwrap()
}

#[test]
fn the_planner_marks_exactly_the_conversions_that_stay_in_their_warps() {
    let mut rng = common::Rng(0x3a7_5eed);
    let (mut private, mut crossing) = (0, 0);
    for case in 0..120 {
        let shape = common::random_shape(&mut rng, 10, 2);
        let src = common::random_distributed(&mut rng, &shape, 5, 2, 0);
        if src.in_dim_size(DimName::LANE) != 32 || src.in_dim_size(DimName::WARP) != 4 {
            continue;
        }
        let dst = shuffled(&mut rng, &src, case % 3 == 0);
        let stays = stays_in_its_warp(&src, &dst);
        for bits in [8, 16, 32] {
            let Ok(p) = plan_with(&src, &dst, bits, &Target::SM90, &PlanOptions::shared_only())
            else {
                continue;
            };
            let Some(s) = p.lowering.shared() else {
                continue;
            };
            assert_eq!(s.warp_private, stays, "case {case}, {bits} bits");
            if s.warp_private {
                private += 1;
                assert_eq!(p.cost.barriers, 0, "case {case}");
                assert_eq!(p.cost.warp_barriers, s.barriers, "case {case}");
            } else {
                crossing += 1;
                assert_eq!(p.cost.barriers, s.barriers, "case {case}");
            }
        }
    }
    assert!(
        private >= 30 && crossing >= 30,
        "{private} private, {crossing} crossing"
    );
}

#[test]
fn warp_private_plans_cost_one_barrier_less() {
    let shape = [64, 64];
    // In-warp: a blocked layout to an mma v2 A operand with the same rows
    // per warp (the suite's `fresh3_blk_to_dotA_k4_w41_64x64_f8`).
    let src = ll("#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>", &shape);
    let dst = ll("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 4}>", &shape);
    let p = plan_with(&src, &dst, 8, &Target::SM90, &PlanOptions::shared_only()).unwrap();
    let s = p.lowering.shared().unwrap();
    assert!(s.warp_private && s.barriers == 1);
    // 1024 bytes per warp stored and loaded: 8 + 8 wavefronts, no barrier.
    assert_eq!(p.cycles, 16.0);
    // The same plan with a CTA barrier costs BARRIER_COST more.
    let mut cta = s.clone();
    cta.warp_private = false;
    let report = simulate(&ConversionPlan::SharedMemory(Box::new(cta)), &src, &dst).unwrap();
    assert_eq!((report.barriers, report.warp_barriers), (1, 0));
    assert_eq!(
        layout_codegen::choice::plan_cost(&report, 4),
        p.cycles + BARRIER_COST
    );
}

#[test]
fn the_simulator_refuses_privacy_claimed_across_warps() {
    let shape = [64, 64];
    let src = ll("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>", &shape);
    let dst = ll("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>", &shape);
    for bits in [16, 32] {
        let p = plan_with(&src, &dst, bits, &Target::SM90, &PlanOptions::shared_only()).unwrap();
        let s = p.lowering.shared().unwrap();
        assert!(!s.warp_private && !is_warp_private(s, 32, 4));
        let mut planted = s.clone();
        planted.warp_private = true;
        let e = simulate(&ConversionPlan::SharedMemory(Box::new(planted)), &src, &dst).unwrap_err();
        assert!(matches!(e, CodegenError::SharedAcrossWarps { .. }), "{e}");
    }
}

#[test]
fn a_source_replicated_across_warps_is_not_warp_private() {
    let shape = [32, 64];
    // Warp basis 1 of the source is zero: warps 0 and 2 hold the same
    // elements, and one replica stores for both.
    let src = ll("#ttg.linear<{register = [[0, 1], [0, 2], [0, 16], [0, 32], [16, 0]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [0, 0]], block = []}>", &shape);
    let dst = ll("#ttg.linear<{register = [[0, 4], [0, 2], [0, 16], [0, 32], [16, 0]], lane = [[0, 1], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [0, 0]], block = []}>", &shape);
    assert!(!stays_in_its_warp(&src, &dst));
    let p = plan_with(&src, &dst, 32, &Target::SM90, &PlanOptions::shared_only()).unwrap();
    let s = p.lowering.shared().unwrap();
    assert!(!s.warp_private && p.cost.barriers > 0);
}

#[test]
fn a_part_of_the_buffer_that_changes_warps_between_rounds_is_not_private() {
    let shape = [64, 64];
    let src = ll("#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>", &shape);
    let dst = ll("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 4}>", &shape);
    let p = plan_with(&src, &dst, 8, &Target::SM90, &PlanOptions::shared_only()).unwrap();
    let one = p.lowering.shared().unwrap().clone();
    assert!(one.warp_private && one.rounds.len() == 1);
    // Round 1 repeats round 0 with the two warp bits' address parts
    // exchanged: each round alone keeps every warp in one part of the
    // buffer (and converts right), but warp 1 then writes where warp 2
    // read in round 0.
    let mut two = one.clone();
    let mut again = one.rounds[0].clone();
    for a in again.stores.iter_mut().chain(again.loads.iter_mut()) {
        a.address.warp.swap(0, 1);
    }
    two.rounds.push(again);
    two.barriers = 3;
    assert!(!is_warp_private(&two, 32, 4));
    let run = |plan: &layout_codegen::plan::SharedMemoryPlan| {
        simulate(
            &ConversionPlan::SharedMemory(Box::new(plan.clone())),
            &src,
            &dst,
        )
    };
    let e = run(&two).unwrap_err();
    assert!(
        matches!(e, CodegenError::SharedAcrossWarps { round: 1, .. }),
        "{e}"
    );
    two.warp_private = false;
    assert_eq!(run(&two).unwrap().barriers, 3);
}
