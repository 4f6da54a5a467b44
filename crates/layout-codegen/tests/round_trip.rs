//! Both directions of a round trip planned together
//! (`layout_codegen::round_trip`): the pair goes through one shared layout
//! when that costs no more than the independent choices, and never costs
//! more than them.

use hw_layouts::Encoding;
use layout_codegen::plan::ConversionPlan;
use layout_codegen::plan_options::PlanOptions;
use layout_codegen::planner::{plan_with, PlannedConversion, Target};
use layout_codegen::round_trip::plan_round_trip;
use linear_layout::LinearLayout;

const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const BLK_COL: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";
const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
const DOT_B: &str = "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";

fn layout(t: &str, shape: [u64; 2]) -> LinearLayout {
    Encoding::parse(t)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap()
}

fn shared(p: &PlannedConversion) -> Option<LinearLayout> {
    match p.lowering.whole() {
        Some(ConversionPlan::SharedMemory(m)) => Some(m.shared_layout.clone()),
        _ => None,
    }
}

#[test]
fn a_round_trip_shares_one_layout_and_costs_no_more() {
    for (bits, s, d) in [
        (8, BLK_ROW, BLK_COL),
        (16, BLK_ROW, BLK_COL),
        (16, MMA2, DOT_B),
    ] {
        let (src, dst) = (layout(s, [64, 64]), layout(d, [64, 64]));
        let o = PlanOptions::whole();
        let (f, b) = plan_round_trip(&src, &dst, bits, &Target::SM90, &o).unwrap();
        let alone = (
            plan_with(&src, &dst, bits, &Target::SM90, &o).unwrap(),
            plan_with(&dst, &src, bits, &Target::SM90, &o).unwrap(),
        );
        assert!(
            f.cycles + b.cycles <= alone.0.cycles + alone.1.cycles,
            "{bits} {s}"
        );
        let (lf, lb) = (shared(&f).unwrap(), shared(&b).unwrap());
        assert_eq!(lf, lb, "{bits}-bit {s} -> {d}: one buffer layout");
        assert_eq!(f.candidate, "given_layout");
    }
}

#[test]
fn a_given_layout_is_the_only_candidate() {
    let (src, dst) = (layout(BLK_ROW, [64, 64]), layout(BLK_COL, [64, 64]));
    let (sw, _) = layout_codegen::swizzle_search::search_shared_layout(&src, &dst, 16, 32).unwrap();
    let o = PlanOptions {
        through: Some(sw.clone()),
        ..PlanOptions::default()
    };
    let p = plan_with(&src, &dst, 16, &Target::SM90, &o).unwrap();
    assert_eq!(shared(&p), Some(sw));
    assert!(p
        .candidates
        .iter()
        .all(|c| c.name == "given_layout" || c.cycles.is_none()));
}
