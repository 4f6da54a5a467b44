//! `planner::plan_at_floor` and the instruction floor it relies on
//! (`partial::shared_instruction_floor`), against brute force and against
//! the full planner.

use hw_layouts::Encoding;
use layout_codegen::partial::{shared_instruction_floor, why_not_partial};
use layout_codegen::plan_options::{Allow, PlanOptions, SplitForm};
use layout_codegen::planner::{plan, plan_at_floor, plan_with, shared_instructions, Target};
use linear_layout::LinearLayout;
use std::collections::{HashMap, HashSet};

fn blocked(
    spt: [u64; 2],
    tpw: [u64; 2],
    wpc: [u64; 2],
    order: [u64; 2],
    shape: &[u64],
) -> LinearLayout {
    Encoding::parse(&format!(
        "#ttg.blocked<{{sizePerThread = {spt:?}, threadsPerWarp = {tpw:?}, warpsPerCTA = {wpc:?}, order = {order:?}}}>"
    ))
    .unwrap()
    .to_linear_layout(shape)
    .unwrap()
}

/// Pairs whose warps split the tile differently (some elements stay in
/// their warp, some cross), 32 lanes, 4 or 8 warps.
fn pairs() -> Vec<(LinearLayout, LinearLayout)> {
    let shape = [64, 64];
    let mut out = Vec::new();
    for (a, b) in [
        ([2, 2], [4, 1]),
        ([4, 1], [2, 2]),
        ([2, 2], [1, 4]),
        ([8, 1], [2, 4]),
    ] {
        for (spt, tpw) in [([1, 4], [4, 8]), ([1, 1], [1, 32]), ([4, 1], [8, 4])] {
            for order in [[1, 0], [0, 1]] {
                let src = blocked(spt, tpw, a, [1, 0], &shape);
                let dst = blocked(spt, tpw, b, order, &shape);
                out.push((src, dst));
            }
        }
    }
    out
}

/// The floor by its definition, from the layouts' values alone: warp `w`
/// loads every destination register whose element no thread of `w` holds
/// in the source, and the (only) holder stores it; `⌈n / (128 / bits)⌉`
/// accesses per warp and side.
fn floor_by_definition(src: &LinearLayout, dst: &LinearLayout, bits: u32) -> u64 {
    use linear_layout::DimName;
    let (nr_s, nl, nw) = (
        src.in_dim_size(DimName::REGISTER),
        src.in_dim_size(DimName::LANE),
        src.in_dim_size(DimName::WARP),
    );
    let nr_d = dst.in_dim_size(DimName::REGISTER);
    let at = |l: &LinearLayout, r, ln, w| {
        l.apply(&[
            (DimName::REGISTER, r),
            (DimName::LANE, ln),
            (DimName::WARP, w),
            (DimName::BLOCK, 0),
        ])
        .unwrap()
        .iter()
        .map(|x| x.1)
        .collect::<Vec<u64>>()
    };
    let mut holder: HashMap<Vec<u64>, (u64, u64)> = HashMap::new();
    for w in 0..nw {
        for ln in 0..nl {
            for r in 0..nr_s {
                holder.insert(at(src, r, ln, w), (w, r));
            }
        }
    }
    let per = u64::from(128 / bits);
    let mut stored: HashMap<u64, HashSet<u64>> = HashMap::new();
    let mut floor = 0;
    for w in 0..nw {
        let mut loads = 0u64;
        for r in 0..nr_d {
            let (w2, r2) = holder[&at(dst, r, 0, w)];
            if w2 != w {
                loads += 1;
                stored.entry(w2).or_default().insert(r2);
            }
        }
        floor += loads.div_ceil(per);
    }
    floor
        + stored
            .values()
            .map(|s| (s.len() as u64).div_ceil(per))
            .sum::<u64>()
}

#[test]
fn the_instruction_floor_is_its_definition_and_below_every_partial_plan() {
    let (mut checked, mut claimed) = (0, 0);
    for (src, dst) in pairs() {
        for bits in [16, 32] {
            let floor = shared_instruction_floor(&src, &dst, bits).unwrap();
            // An injective source and conditions 1 and 2 of the class (the
            // floor's premise), or the floor claims nothing.
            let premise = src.is_injective()
                && why_not_partial(&src, &dst)
                    .unwrap()
                    .is_none_or(|w| w.starts_with("no element crosses"));
            if premise {
                assert_eq!(
                    floor,
                    floor_by_definition(&src, &dst, bits),
                    "{:?} {src:?} -> {dst:?}",
                    why_not_partial(&src, &dst)
                );
                claimed += 1;
            } else {
                assert_eq!(floor, 0);
            }
            let full = plan(&src, &dst, bits, &Target::SM90).unwrap();
            let warps = full.cost.warps;
            // Every partial form through every layout the planner tried.
            for form in [
                SplitForm::Plain,
                SplitForm::Predicated,
                SplitForm::Transposed,
            ] {
                let options = PlanOptions {
                    partial: Allow::Required,
                    split_form: Some(form),
                    ..PlanOptions::default()
                };
                if let Ok(p) = plan_with(&src, &dst, bits, &Target::SM90, &options) {
                    assert!(floor <= shared_instructions(&p.lowering, warps));
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10 && claimed > 10, "{checked} {claimed}");
}

#[test]
fn the_shortcut_answers_as_the_planner() {
    let mut taken = 0;
    for (src, dst) in pairs() {
        for bits in [8, 16, 32] {
            let Some(fast) = plan_at_floor(&src, &dst, bits, &Target::SM90) else {
                continue;
            };
            let full = plan(&src, &dst, bits, &Target::SM90).unwrap();
            assert_eq!(
                (
                    fast.candidate,
                    fast.lowering.kind_name(),
                    fast.cycles,
                    &fast.cost
                ),
                (
                    full.candidate,
                    full.lowering.kind_name(),
                    full.cycles,
                    &full.cost
                )
            );
            assert_eq!(fast.lower_bound, full.lower_bound);
            taken += 1;
        }
    }
    assert!(taken > 3, "{taken}");
}
