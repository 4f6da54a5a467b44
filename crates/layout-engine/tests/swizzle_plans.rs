//! `layout_codegen::choice::plan_paper_swizzle` ranks its candidates
//! without building their plans; on every conversion pair of the corpora
//! (the engine's and Triton's pre-pipeline ones, every element width) its
//! plan is the one the definition picks: the first candidate of least
//! wavefronts, each candidate's plan built (`plan_through_shared`) and its
//! wavefronts counted from its accesses (warp 0 of each side's first
//! access, times the accesses).

mod common;

use layout_codegen::choice::{plan_paper_swizzle, plan_through_shared};
use layout_codegen::plan::SharedMemoryPlan;
use layout_codegen::shared_conversion::cta_local;
use layout_codegen::swizzle::paper_swizzle_candidates;
use layout_codegen::wavefront::access_wavefronts;
use layout_engine::assignment::conversions;
use layout_engine::cost::Pricer;
use layout_engine::engine::assign;
use layout_engine::{parse_program, Assignment};
use linear_layout::{DimName, LinearLayout};
use std::collections::HashSet;

fn wavefronts(plan: &SharedMemoryPlan, nlanes: u64, bits: u32) -> u64 {
    let bytes = (bits as u64).max(8) / 8;
    plan.rounds
        .iter()
        .flat_map(|r| [&r.stores, &r.loads])
        .map(|side| match side.first() {
            Some(a) => {
                let starts: Vec<u64> = (0..nlanes).map(|l| a.address.eval(l, 0) * bytes).collect();
                access_wavefronts(&starts, a.registers.len() as u64 * bytes)
                    .iter()
                    .sum::<u64>()
                    * side.len() as u64
            }
            None => 0,
        })
        .sum()
}

/// The definition's plan, or `None` where the planner refuses the pair.
fn reference(src: &LinearLayout, dst: &LinearLayout, bits: u32) -> Option<SharedMemoryPlan> {
    let (s, t) = cta_local(src, dst).ok()?;
    let nlanes = if t.has_in_dim(DimName::LANE) {
        t.in_dim_size(DimName::LANE)
    } else {
        1
    };
    let mut best: Option<(u64, SharedMemoryPlan)> = None;
    for shared in paper_swizzle_candidates(&s, &t, bits).ok()? {
        let plan = plan_through_shared(src, dst, bits, &shared).ok()?;
        let wf = wavefronts(&plan, nlanes, bits);
        if best.as_ref().is_none_or(|b| wf < b.0) {
            best = Some((wf, plan));
        }
    }
    best.map(|b| b.1)
}

#[test]
fn paper_swizzle_plans_equal_the_definitions_on_every_corpus_pair() {
    let mut pairs: Vec<(LinearLayout, LinearLayout)> = Vec::new();
    let mut seen = HashSet::new();
    let mut pricer = Pricer::new();
    for file in ["sample.jsonl", "seed11.jsonl", "seed23.jsonl"] {
        for r in common::records_in(file) {
            let p = parse_program(r["ttir"].as_str().unwrap()).unwrap();
            let out = assign(&p, common::options(&r), &mut pricer).unwrap();
            let tp = parse_program(r["ttgir_pre_pipeline"].as_str().unwrap()).unwrap();
            let ta = Assignment::from_types(&tp).unwrap();
            for c in conversions(&p, &out.assignment)
                .unwrap()
                .into_iter()
                .chain(conversions(&tp, &ta).unwrap())
            {
                if seen.insert(format!("{:?}{:?}", c.src.ll, c.dst.ll)) {
                    pairs.push((c.src.ll, c.dst.ll));
                }
            }
        }
    }
    assert!(pairs.len() > 100, "{} pairs", pairs.len());
    let mut planned = 0;
    for (src, dst) in &pairs {
        for bits in [8, 16, 32, 64] {
            let ours = plan_paper_swizzle(src, dst, bits).ok();
            let want = reference(src, dst, bits);
            assert_eq!(
                ours.as_ref().map(|p| serde_json::to_value(p).unwrap()),
                want.as_ref().map(|p| serde_json::to_value(p).unwrap()),
                "{bits} bits: {src:?} -> {dst:?}"
            );
            planned += usize::from(ours.is_some());
        }
    }
    assert!(planned > 100, "{planned} plans");
}
