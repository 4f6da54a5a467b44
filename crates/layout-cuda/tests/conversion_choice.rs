//! The conversion variants the planner chose from predictions alone
//! (`chosen` in `bench/gpu/generated/cases.json`: vector path or
//! stmatrix/ldmatrix `_mx`, partial plan or its `_full` twin, transposed
//! staying moves `_transposed`) against the H200 timings committed in
//! `bench/gpu/results/2026-11-29-h200/ours.jsonl` (the latest run),
//! `2026-11-25-h200/transposed/ours.jsonl` (the trial of the transposed
//! programs), `2026-11-29-h200/transposed32/ours.jsonl` and
//! `2026-11-29-h200/transposed8/ours.jsonl` (32- and 8-bit ones, after the
//! suite's run), `2026-11-29-h200/lane_xor/ours.jsonl` (the transposed
//! programs with per-class lane permutations) and
//! `2026-11-29-h200/matrix_default/ours.jsonl` (the `fresh6_*` matrix
//! plans and the staged plans chosen before them, `*_staged_trial`; later
//! files and lines win for a program timed twice): on every case with
//! variants, the chosen one must be the fastest measured or within the 3%
//! noise band of it. The grouping is report.py's.

use serde_json::Value;
use std::collections::HashMap;

fn read(rel: &str) -> String {
    let path = format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn chosen_conversion_variants_are_the_fastest_measured_within_noise() {
    let cases: Vec<Value> = serde_json::from_str(&read("bench/gpu/generated/cases.json")).unwrap();
    let chosen: HashMap<&str, bool> = cases
        .iter()
        .filter(|c| c.get("kind").is_none())
        .map(|c| {
            let name = c["name"].as_str().unwrap();
            (name, c["chosen"].as_bool().unwrap_or(true))
        })
        .collect();
    // The suite's run, and the trial of the transposed programs.
    let timings: HashMap<String, f64> =
        (read("bench/gpu/results/2026-11-25-h200/transposed/ours.jsonl")
            + &read("bench/gpu/results/2026-11-29-h200/ours.jsonl")
            + &read("bench/gpu/results/2026-11-29-h200/transposed32/ours.jsonl")
            + &read("bench/gpu/results/2026-11-29-h200/transposed8/ours.jsonl")
            + &read("bench/gpu/results/2026-11-29-h200/lane_xor/ours.jsonl")
            + &read("bench/gpu/results/2026-11-29-h200/matrix_default/ours.jsonl"))
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|r| Some((r["case"].as_str()?.to_string(), r["per_cvt_us"].as_f64()?)))
            .collect();
    let mut compared = 0;
    for base in chosen.keys().filter(|n| {
        ![
            "_mx",
            "_smem",
            "_full",
            "_branch",
            "_partial",
            "_transposed",
        ]
        .iter()
        .any(|s| n.ends_with(s))
    }) {
        let variants: Vec<String> = [
            String::new(),
            "_mx".into(),
            "_full".into(),
            "_partial".into(),
            "_transposed".into(),
        ]
        .iter()
        .map(|s| format!("{base}{s}"))
        .filter(|v| chosen.contains_key(v.as_str()))
        .collect();
        if variants.len() < 2 {
            continue;
        }
        let picks: Vec<&String> = variants.iter().filter(|v| chosen[v.as_str()]).collect();
        assert_eq!(picks.len(), 1, "{base}: chosen {picks:?}");
        let time = |v: &str| *timings.get(v).unwrap_or_else(|| panic!("{v} not timed"));
        let best = variants
            .iter()
            .map(|v| time(v))
            .fold(f64::INFINITY, f64::min);
        let t = time(picks[0]);
        assert!(
            t <= best * 1.03,
            "{base}: chose {} at {t} us, fastest variant {best} us",
            picks[0]
        );
        compared += 1;
    }
    assert!(compared >= 9, "only {compared} cases with variants");
}

/// The default planner takes a matrix plan only where strictly cheaper
/// than every other candidate; on the `fresh6_*` pairs it is, and the
/// matrix programs ran faster on the H200 than the staged plans the
/// planner chose before (`2026-11-29-h200/matrix_default/`), beyond noise.
#[test]
fn matrix_plans_the_default_takes_ran_faster_than_the_plans_before_them() {
    let cases: Vec<Value> = serde_json::from_str(&read("bench/gpu/generated/cases.json")).unwrap();
    let runs: Vec<Value> = read("bench/gpu/results/2026-11-29-h200/matrix_default/ours.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let slowest = |name: &str| {
        runs.iter()
            .filter(|r| r["case"] == name && r["ok"] == true)
            .map(|r| r["per_cvt_us"].as_f64().unwrap())
            .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))))
            .unwrap_or_else(|| panic!("{name} not timed"))
    };
    let fastest = |name: &str| {
        runs.iter()
            .filter(|r| r["case"] == name)
            .map(|r| r["per_cvt_us"].as_f64().unwrap())
            .fold(f64::INFINITY, f64::min)
    };
    let mut checked = 0;
    for c in cases
        .iter()
        .filter(|c| c["name"].as_str().unwrap().starts_with("fresh6_"))
    {
        let name = c["name"].as_str().unwrap();
        for side in ["plan_fwd", "plan_bwd"] {
            let candidate = c[side]["candidate"].as_str().unwrap();
            assert!(
                candidate.starts_with("matrix_"),
                "{name} {side}: {candidate}"
            );
        }
        let staged = fastest(&format!("{name}_staged_trial"));
        assert!(
            slowest(name) * 1.03 < staged,
            "{name}: {} against the staged plan's {staged}",
            slowest(name)
        );
        checked += 1;
    }
    assert_eq!(checked, 3);
}
