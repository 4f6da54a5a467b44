//! Plans for the conversions between Triton-made layouts of
//! sample-, seed7-, seed11-, seed23-, seed41-, seed53-, seed67- and seed97-trivial-cvt.jsonl, each proved by the simulator; the plan class
//! agrees with Triton's triviality answer.

use layout_codegen::choice::plan_conversion;
use layout_codegen::plan::ConversionPlan;
use layout_codegen::shared_conversion::plan_via_shared_memory;
use layout_codegen::simulator::simulate;
use layout_codegen::CodegenError;
use linear_layout::{DimName, LinearLayout};
use serde_json::Value;

#[test]
fn every_sample_conversion_is_planned_and_proved() {
    let mut text = String::new();
    for name in [
        "sample-trivial-cvt.jsonl",
        "seed7-trivial-cvt.jsonl",
        "seed11-trivial-cvt.jsonl",
        "seed23-trivial-cvt.jsonl",
        "seed41-trivial-cvt.jsonl",
        "seed53-trivial-cvt.jsonl",
        "seed67-trivial-cvt.jsonl",
        "seed97-trivial-cvt.jsonl",
    ] {
        let path = format!(
            "{}/../../tests/data/triton-oracle/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        text += &std::fs::read_to_string(&path).unwrap();
        text.push('\n');
    }
    let (mut proved, mut refused, mut via_shared) = (0, 0, 0);
    let mut kinds = std::collections::BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: Value = serde_json::from_str(line).unwrap();
        let shape: Vec<u64> = r["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let src = LinearLayout::from_json(&r["src"]["linear"], Some(&shape)).unwrap();
        let dst = LinearLayout::from_json(&r["dst"]["linear"], Some(&shape)).unwrap();
        let bw = r["elem_bitwidth"].as_u64().unwrap() as u32;
        let multi_cta = src.in_dim_size(DimName::BLOCK) > 1;
        match plan_conversion(&src, &dst, bw) {
            Ok(plan) => {
                let trivial = matches!(
                    plan,
                    ConversionPlan::NoOp { .. } | ConversionPlan::RegisterPermutation { .. }
                );
                // (s7-T00106, s11-T00156: see oracle_trivial_cvt.rs.)
                let tolerated = r["id"] == "s7-T00106" || r["id"] == "s11-T00156";
                if r["src"]["mlir"] != r["dst"]["mlir"] && !tolerated {
                    assert_eq!(trivial, r["trivial"].as_bool().unwrap(), "{}", r["id"]);
                }
                *kinds.entry(plan.kind_name()).or_insert(0) += 1;
                simulate(&plan, &src, &dst).unwrap_or_else(|e| panic!("{}: {e}", r["id"]));
                proved += 1;
                // Every pair (up to 2^14 elements, to keep debug runs short)
                // also goes through shared memory.
                if shape.iter().product::<u64>() <= 1 << 14 {
                    let p = plan_via_shared_memory(&src, &dst, bw)
                        .unwrap_or_else(|e| panic!("{} via shared: {e}", r["id"]));
                    let p = ConversionPlan::SharedMemory(Box::new(p));
                    simulate(&p, &src, &dst)
                        .unwrap_or_else(|e| panic!("{} via shared: {e}", r["id"]));
                    via_shared += 1;
                }
            }
            // Cross-CTA conversions are refused.
            Err(CodegenError::Unsupported(_)) if multi_cta => refused += 1,
            Err(e) => panic!("{}: {e}", r["id"]),
        }
    }
    println!(
        "oracle pairs: {proved} proved, {refused} multi-CTA refused, classes {kinds:?}, \
         {via_shared} also proved through shared memory"
    );
    assert!(proved >= 395, "{proved}");
    assert!(via_shared >= 300, "{via_shared}");
}
