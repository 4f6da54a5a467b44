//! The gather lowering predicted cheaper (`layout_codegen::gather_cost`)
//! against the H200 timings of both lowerings committed in
//! `bench/gpu/results/2026-11-29-h200/ours.jsonl` (the latest committed run): on every gather case
//! of the suite the predicted choice must be the variant that ran faster.

use layout_codegen::gather_cost::plan_gather;
use linear_layout::LinearLayout;
use serde_json::Value;
use std::collections::HashMap;

fn read(rel: &str) -> String {
    let path = format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn predicted_gather_lowering_is_the_one_measured_faster() {
    let cases: Vec<Value> = serde_json::from_str(&read("bench/gpu/generated/cases.json")).unwrap();
    let timings: HashMap<String, f64> = read("bench/gpu/results/2026-11-29-h200/ours.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|r| {
            Some((
                r["case"].as_str()?.to_string(),
                r["per_gather_us"].as_f64()?,
            ))
        })
        .collect();
    let mut checked = 0;
    for c in cases
        .iter()
        .filter(|c| c["kind"] == "gather" && c["variant"] == "shfl")
    {
        let base = c["base"].as_str().unwrap();
        let shape: Vec<u64> = serde_json::from_value(c["shape"].clone()).unwrap();
        let l = LinearLayout::from_json(&c["layout"], Some(&shape)).unwrap();
        let axis = c["axis"].as_u64().unwrap() as usize;
        let bits = c["bits"].as_u64().unwrap() as u32;
        let cost = plan_gather(&l, axis, bits).unwrap();
        let (ts, tm) = (
            timings[&format!("{base}_shfl")],
            timings[&format!("{base}_smem")],
        );
        assert_eq!(
            cost.prefers_shuffles(),
            ts <= tm,
            "{base}: predicted {cost:?}, measured shuffles {ts} µs, shared memory {tm} µs"
        );
        checked += 1;
    }
    assert_eq!(checked, 6, "the suite's six gather cases");
}
