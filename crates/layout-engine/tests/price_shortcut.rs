//! The pricer's shortcut (`cost.rs`): a shared-memory conversion whose
//! partial cross-warp plan crosses warps and costs less than
//! `layout_codegen::lower_bound::full_shared_floor` is priced at the
//! partial plan without planning the full candidates. On every pair the
//! engine prices on the three corpora (every candidate of the search, every
//! node a hoist prices, Triton's pre-pipeline conversions), the price is
//! the definition's: the cheapest of `plan_conversion_best` (all candidates
//! planned and simulated) and the proved partial plan when that is cheaper
//! than the full plan through the same layout; and the floor is below the
//! cost of Triton's plan and of the paper's swizzled plan wherever elements
//! cross warps.

mod common;

use layout_codegen::choice::{
    plan_conversion_best, plan_conversion_triton_costed, plan_cost, plan_paper_swizzle,
    total_warps, BARRIER_COST,
};
use layout_codegen::conversion::classify;
use layout_codegen::lower_bound::full_shared_floor;
use layout_codegen::partial::plan_split_optimal;
use layout_codegen::plan::ConversionPlan;
use layout_codegen::simulator::simulate;
use layout_engine::anchors::Target;
use layout_engine::cost::Pricer;
use layout_engine::engine::{assign, Options};
use layout_engine::{parse_program, Assignment};
use linear_layout::LinearLayout;

/// The price by its definition: `(plan, candidate, cycles)`.
fn definition(src: &LinearLayout, dst: &LinearLayout, bits: u32) -> Option<(String, String, f64)> {
    let class = classify(src, dst).ok()?;
    if matches!(class.short_name(), "noop" | "register") {
        return Some((class.short_name().into(), "triton".into(), 0.0));
    }
    let best = plan_conversion_best(src, dst, bits).ok()?;
    let mut price = (
        best.plan.kind_name().to_string(),
        best.candidate.to_string(),
        best.cost,
    );
    if class.short_name() == "shared" {
        if let Ok((plan, _)) = plan_split_optimal(src, dst, bits) {
            if plan.cost.cheaper_than_full() {
                let loads = plan.cost.load_instructions > 0;
                let cycles = plan.cost.partial_units() as f64 / total_warps(dst).max(1) as f64
                    + if loads { BARRIER_COST } else { 0.0 };
                if cycles < price.2 {
                    price = ("partial".into(), "partial".into(), cycles);
                }
            }
        }
    }
    Some(price)
}

/// Whether some element of `src → dst` crosses warps (the partial plan
/// keeps fewer elements in their warp than there are).
fn crosses_warps(src: &LinearLayout, dst: &LinearLayout, bits: u32) -> bool {
    plan_split_optimal(src, dst, bits).is_ok_and(|(p, _)| p.cost.staying_elements < p.cost.elements)
}

#[test]
fn shortcut_prices_equal_the_definition_on_every_corpus_pair() {
    let mut pricer = Pricer::new();
    for file in ["sample.jsonl", "seed11.jsonl", "seed23.jsonl"] {
        for r in common::records_in(file) {
            let target = Target::parse(r["target"].as_str().unwrap()).unwrap();
            let nw = r["options"]["num_warps"].as_u64().unwrap();
            let p = parse_program(r["ttir"].as_str().unwrap()).unwrap();
            let opts = Options {
                target,
                num_warps: nw,
            };
            assign(&p, opts, &mut pricer).unwrap();
            let tp = parse_program(r["ttgir_pre_pipeline"].as_str().unwrap()).unwrap();
            let a = Assignment::from_types(&tp).unwrap();
            pricer.price_all(&tp, &a).unwrap();
        }
    }
    let (mut pairs, mut shortcut, mut floors) = (0, 0, 0);
    for (src, dst, bits, price) in pricer.priced() {
        let price = price.as_ref().expect("every corpus pair is priced");
        let want = definition(src, dst, bits).expect("the definition prices it");
        assert_eq!(
            (price.plan.as_str(), price.candidate, price.cycles),
            (want.0.as_str(), want.1.as_str(), want.2),
            "{src:?} -> {dst:?} at {bits} bits"
        );
        pairs += 1;
        if price.class != "shared" || !crosses_warps(src, dst, bits) {
            continue;
        }
        let floor = full_shared_floor(dst, bits);
        if price.candidate == "partial" && price.cycles < floor {
            shortcut += 1;
        }
        // The floor is below both full plans.
        let triton = plan_conversion_triton_costed(src, dst, bits).unwrap();
        assert!(
            floor <= triton.cost,
            "Triton's plan {} < floor {floor}",
            triton.cost
        );
        if let Ok(plan) = plan_paper_swizzle(src, dst, bits) {
            let report = simulate(&ConversionPlan::SharedMemory(Box::new(plan)), src, dst).unwrap();
            let cost = plan_cost(&report, total_warps(dst));
            assert!(floor <= cost, "paper plan {cost} < floor {floor}");
        }
        floors += 1;
    }
    println!("{pairs} pairs, {floors} crossing warps, {shortcut} priced by the shortcut");
    assert!(
        pairs > 300 && floors > 20 && shortcut > 10,
        "{pairs} {floors} {shortcut}"
    );
}
