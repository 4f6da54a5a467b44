//! Triton 3.9's conversion plan against ours, both proved and costed by the
//! simulator: `cargo run --release -p layout-codegen --example triton_vs_ours`.
//!
//! Prints one markdown table: (a) the conversion cases of the GPU suite
//! (crates/layout-cuda/src/bin/gpu_suite.rs, `cases()`, the `_smem`
//! duplicates left out: the same conversion), then (b) summary rows over
//! the (src, dst) pairs of tests/data/triton-oracle/*trivial-cvt.jsonl.
//! Every plan in the table passes the simulator; the program panics
//! otherwise. The cost model is [`layout_codegen::choice::plan_cost`].
//! Shuffle plans are marked by form: `shuffle (program)` (a
//! `ConversionPlan::WarpProgram`: Ship/Swap with `prmt` packing, or the
//! paper's / general rounds with `selp`) or `shuffle (rounds)` (the
//! one-step `ConversionPlan::WarpShuffle` form, kept where cheaper).

use layout_codegen::choice::{
    plan_conversion_best, plan_conversion_triton_costed, total_warps, CostedPlan,
};
use layout_codegen::plan::ConversionPlan;
use linear_layout::LinearLayout;
use serde_json::Value;

#[path = "support/suite_cases.rs"]
mod suite_cases;

fn class(p: &CostedPlan) -> String {
    match (&p.plan, p.candidate) {
        (ConversionPlan::SharedMemory(_), "paper_swizzle") => "shared (paper swizzle)".into(),
        (ConversionPlan::SharedMemory(_), _) => "shared (Triton swizzle)".into(),
        (ConversionPlan::WarpProgram(_), _) => "shuffle (program)".into(),
        (ConversionPlan::WarpShuffle { .. }, _) => "shuffle (rounds)".into(),
        (plan, _) => plan.kind_name().into(),
    }
}

fn cells(p: &CostedPlan, w: u64) -> String {
    let r = &p.report;
    format!(
        "{} | {} | {} | {} | {} | {} | {} | {:.2}",
        class(p),
        r.store_wavefronts / w,
        r.load_wavefronts / w,
        r.shuffles,
        r.selects,
        r.prmt,
        r.barriers,
        p.cost
    )
}

#[derive(Default)]
struct Side {
    classes: std::collections::BTreeMap<String, u64>,
    wavefronts: u64,
    shuffles: u64,
    selects: u64,
    prmt: u64,
    barriers: u64,
    cost: f64,
}

impl Side {
    fn add(&mut self, p: &CostedPlan) {
        *self.classes.entry(class(p)).or_default() += 1;
        self.wavefronts += p.report.store_wavefronts + p.report.load_wavefronts;
        self.shuffles += p.report.shuffles;
        self.selects += p.report.selects;
        self.prmt += p.report.prmt;
        self.barriers += p.report.barriers;
        self.cost += p.cost;
    }
    fn classes(&self) -> String {
        self.classes
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn main() {
    println!(
        "| case | bits | Triton: class | st wf/warp | ld wf/warp | shfl | sel | prmt | bar | cost | \
         ours: class | st wf/warp | ld wf/warp | shfl | sel | prmt | bar | cost | ours/Triton |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let (mut geo, mut n) = (0f64, 0u32);
    for case in suite_cases::suite_cases() {
        let t = plan_conversion_triton_costed(&case.src, &case.dst, case.bits)
            .unwrap_or_else(|e| panic!("{}: Triton's plan fails: {e}", case.name));
        let o = plan_conversion_best(&case.src, &case.dst, case.bits)
            .unwrap_or_else(|e| panic!("{}: our plan fails: {e}", case.name));
        assert!(o.cost <= t.cost, "{}: ours costs more", case.name);
        let w = total_warps(&case.dst);
        let ratio = if t.cost > 0.0 { o.cost / t.cost } else { 1.0 };
        if t.cost > 0.0 {
            geo += ratio.ln();
            n += 1;
        }
        println!(
            "| {} | {} | {} | {} | {:.2} |",
            case.name,
            case.bits,
            cells(&t, w),
            cells(&o, w),
            ratio
        );
    }
    // The oracle pairs.
    let dir = format!(
        "{}/../../tests/data/triton-oracle",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("oracle dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with("trivial-cvt.jsonl"))
        .collect();
    files.sort();
    let (mut ts, mut os) = (Side::default(), Side::default());
    let (mut pairs, mut cheaper, mut skipped) = (0u64, 0u64, 0u64);
    let mut moves: std::collections::BTreeMap<String, u64> = Default::default();
    for f in &files {
        for line in std::fs::read_to_string(f).expect("read").lines() {
            if line.trim().is_empty() {
                continue;
            }
            let r: Value = serde_json::from_str(line).expect("json");
            let shape: Vec<u64> = r["shape"]
                .as_array()
                .expect("shape")
                .iter()
                .map(|v| v.as_u64().expect("size"))
                .collect();
            let bits = r["elem_bitwidth"].as_u64().unwrap_or(16) as u32;
            let src = LinearLayout::from_json(&r["src"]["linear"], Some(&shape)).expect("src");
            let dst = LinearLayout::from_json(&r["dst"]["linear"], Some(&shape)).expect("dst");
            let t = match plan_conversion_triton_costed(&src, &dst, bits) {
                Ok(t) => t,
                Err(layout_codegen::CodegenError::Unsupported(_)) => {
                    // Cross-CTA conversions: not planned by either side.
                    skipped += 1;
                    continue;
                }
                Err(e) => panic!("{}: Triton's plan fails: {e}", r["id"]),
            };
            let o = plan_conversion_best(&src, &dst, bits)
                .unwrap_or_else(|e| panic!("{}: our plan fails: {e}", r["id"]));
            assert!(o.cost <= t.cost, "{}: ours costs more", r["id"]);
            pairs += 1;
            if o.cost < t.cost {
                cheaper += 1;
                *moves
                    .entry(format!("{} → {}", class(&t), class(&o)))
                    .or_default() += 1;
            }
            ts.add(&t);
            os.add(&o);
        }
    }
    let geomean = (geo / n.max(1) as f64).exp();
    println!();
    println!("Suite: geometric mean of ours/Triton over {n} cases = {geomean:.3}.");
    println!();
    println!("| oracle pairs ({pairs} planned, {skipped} cross-CTA skipped) | Triton | ours |");
    println!("|---|---|---|");
    println!("| classes | {} | {} |", ts.classes(), os.classes());
    println!(
        "| wavefronts (all warps) | {} | {} |",
        ts.wavefronts, os.wavefronts
    );
    println!("| shuffles | {} | {} |", ts.shuffles, os.shuffles);
    println!("| selects | {} | {} |", ts.selects, os.selects);
    println!("| prmt | {} | {} |", ts.prmt, os.prmt);
    println!("| barriers | {} | {} |", ts.barriers, os.barriers);
    println!("| total cost | {:.1} | {:.1} |", ts.cost, os.cost);
    println!("| pairs where ours is cheaper | | {cheaper} |");
    let moves: Vec<String> = moves.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    println!("| of which (Triton → ours) | | {} |", moves.join(", "));
}
