//! The engine's price is the planner's answer. On every pair the engine
//! prices on the three corpora (every candidate of the search, every node a
//! hoist prices, Triton's pre-pipeline conversions), the price's plan kind,
//! candidate and cycles equal `layout_codegen::planner::plan`'s for the
//! record's target (sm80/sm90: `Target::SM90`, gfx942: `Target::CDNA3`),
//! whichever shortcut priced it. Where the pricer's shortcut
//! (`planner::plan_at_floor`) answers, its three floors are checked against
//! what the full planner planned: every whole-tile candidate costs at least
//! `full_shared_floor`, every candidate at least `lower_bound`, and the
//! partial plans through the paper's and the searched shared layouts issue
//! at least `shared_instruction_floor` instructions where they are as
//! cheap.

mod common;

use layout_codegen::choice::{plan_paper_swizzle, total_warps};
use layout_codegen::lower_bound::full_shared_floor;
use layout_codegen::partial::shared_instruction_floor;
use layout_codegen::plan_options::{Allow, PlanOptions};
use layout_codegen::planner::{plan, plan_at_floor, plan_with, shared_instructions, Target};
use layout_codegen::swizzle_search::search_shared_layout;
use layout_engine::anchors;
use layout_engine::cost::Pricer;
use layout_engine::engine::assign;
use layout_engine::{parse_program, Assignment};
use linear_layout::LinearLayout;
use std::collections::HashMap;

/// The planner's target of a record's target.
fn planner_target(t: anchors::Target) -> Target {
    match t {
        anchors::Target::Gfx942 => Target::CDNA3,
        _ => Target::SM90,
    }
}

/// Every pair the engine priced on the three corpora, with the target of
/// the record that priced it first, and the pricer. (A layout's evaluation
/// cache is neither hashed nor compared, so layouts are sound keys.)
#[allow(clippy::mutable_key_type)]
fn corpus_pairs() -> (Pricer, HashMap<(LinearLayout, LinearLayout, u32), Target>) {
    let mut pricer = Pricer::new();
    let mut target_of = HashMap::new();
    for file in ["sample.jsonl", "seed11.jsonl", "seed23.jsonl"] {
        for r in common::records_in(file) {
            let (target, _) = common::target_and_warps(&r);
            let p = parse_program(r["ttir"].as_str().unwrap()).unwrap();
            let opts = common::options(&r);
            assign(&p, opts, &mut pricer).unwrap();
            let tp = parse_program(r["ttgir_pre_pipeline"].as_str().unwrap()).unwrap();
            let a = Assignment::from_types(&tp).unwrap();
            pricer.price_all(&tp, &a).unwrap();
            for (s, d, bits, _) in pricer.priced() {
                target_of
                    .entry((s.clone(), d.clone(), bits))
                    .or_insert(planner_target(target));
            }
        }
    }
    (pricer, target_of)
}

#[test]
#[allow(clippy::mutable_key_type)]
fn every_price_is_the_planners_answer() {
    let (pricer, target_of) = corpus_pairs();
    let (mut pairs, mut planned, mut shortcut, mut noted) = (0, 0, 0, 0);
    for (src, dst, bits, price) in pricer.priced() {
        let price = price.as_ref().expect("every corpus pair is priced");
        let target = target_of[&(src.clone(), dst.clone(), bits)];
        pairs += 1;
        if price.trivial() {
            assert_eq!((price.cycles, price.plan.as_str()), (0.0, price.class));
            continue;
        }
        planned += 1;
        let want = match plan(src, dst, bits, &target) {
            Ok(p) => {
                assert_eq!(price.note, None, "{src:?} -> {dst:?} at {bits} bits");
                p
            }
            Err(e) => {
                // Only a plan beyond the target's shared memory is priced
                // as the planner's answer without that limit, with a note.
                let unbounded = Target {
                    smem_bytes_per_cta: u64::MAX,
                    ..target
                };
                let p = plan(src, dst, bits, &unbounded).unwrap_or_else(|_| panic!("{e}"));
                assert!(p.cost.scratch_bytes > target.smem_bytes_per_cta, "{e}");
                assert!(price.note.is_some(), "{e}");
                noted += 1;
                p
            }
        };
        assert_eq!(
            (price.plan.as_str(), price.candidate, price.cycles),
            (want.lowering.kind_name(), want.candidate, want.cycles),
            "{src:?} -> {dst:?} at {bits} bits"
        );
        let Some(fast) = plan_at_floor(src, dst, bits, &target) else {
            continue;
        };
        shortcut += 1;
        // The floors the shortcut relies on, against the full planner.
        let floor = full_shared_floor(dst, bits, &target);
        for c in &want.candidates {
            let Some(cycles) = c.cycles else { continue };
            assert!(want.lower_bound.cycles <= cycles, "{}: {cycles}", c.name);
            if c.kind == Some("shared") {
                assert!(floor <= cycles, "{}: {cycles} < floor {floor}", c.name);
            }
        }
        let least = shared_instruction_floor(src, dst, bits).unwrap();
        let paper = plan_paper_swizzle(src, dst, bits).map(|p| p.shared_layout);
        let searched = search_shared_layout(src, dst, bits, target.banks).map(|s| s.0);
        for l in [paper, searched].into_iter().flatten() {
            let options = PlanOptions {
                partial: Allow::Required,
                through: Some(l),
                ..PlanOptions::default()
            };
            let Ok(p) = plan_with(src, dst, bits, &target, &options) else {
                continue;
            };
            assert!(fast.cycles <= p.cycles);
            if p.cycles == fast.cycles {
                let issued = shared_instructions(&p.lowering, total_warps(dst));
                assert!(least <= issued, "{issued} < floor {least}");
            }
        }
    }
    println!(
        "{pairs} pairs, {planned} planned, {shortcut} priced by the shortcut, \
         {noted} beyond the target's shared memory"
    );
    assert!(
        pairs > 300 && planned > 100 && shortcut > 10,
        "{pairs} {planned} {shortcut}"
    );
}
