//! The committed GPU run against the predictions it was generated with:
//! for every conversion program of `bench/gpu/generated/cases.json`, the
//! shared-memory store and load wavefronts `ncu` counted (one tile, R = 1,
//! `bench/gpu/results/ncu.txt`) equal the planner's prediction, and no
//! access conflicts. A program whose loads the compiler removed (session
//! 8's first call: a replicated copy nobody read) fails here.

use serde_json::Value;

fn read(rel: &str) -> String {
    let path = format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `metric -> value` per program in an `ncu --csv` dump split by `== name`.
fn ncu_sections(text: &str) -> std::collections::HashMap<String, Vec<(String, f64)>> {
    let mut out = std::collections::HashMap::new();
    for sec in text.split("== ").skip(1) {
        let (name, body) = sec.split_once('\n').unwrap_or((sec, ""));
        let metrics = body
            .lines()
            .filter(|l| l.contains("l1tex__"))
            .filter_map(|l| {
                let cols: Vec<&str> = l.split("\",\"").collect();
                let n = cols.len();
                let v = cols[n - 1].trim_matches('"').replace(',', "");
                Some((cols[n - 3].to_string(), v.parse().ok()?))
            })
            .collect();
        out.insert(name.trim().to_string(), metrics);
    }
    out
}

/// Every conversion program whose `ncu` counts differ from its prediction
/// (or that was not profiled), with the difference; and how many agreed.
fn disagreements(cases: &[Value], ncu_text: &str) -> (Vec<String>, usize) {
    let ncu = ncu_sections(ncu_text);
    let (mut bad, mut agreed) = (Vec::new(), 0);
    for c in cases.iter().filter(|c| c.get("kind").is_none()) {
        let name = c["name"].as_str().unwrap();
        let predicted = |k: &str| -> f64 {
            ["predicted_fwd", "predicted_bwd"]
                .iter()
                .map(|d| c[*d][k].as_u64().unwrap_or(0) as f64)
                .sum()
        };
        let Some(m) = ncu.get(name) else {
            bad.push(format!("{name}: not profiled"));
            continue;
        };
        let got = |k: &str| -> f64 { m.iter().filter(|(n, _)| n.contains(k)).map(|x| x.1).sum() };
        let pairs = [
            (
                "store",
                got("wavefronts_mem_shared_op_st"),
                predicted("st_wavefronts"),
            ),
            (
                "load",
                got("wavefronts_mem_shared_op_ld"),
                predicted("ld_wavefronts"),
            ),
            ("conflicts", got("bank_conflicts"), 0.0),
        ];
        let diffs: Vec<String> = pairs
            .iter()
            .filter(|(_, a, b)| a != b)
            .map(|(k, a, b)| format!("{k} ncu {a} predicted {b}"))
            .collect();
        if diffs.is_empty() {
            agreed += 1;
        } else {
            bad.push(format!("{name}: {}", diffs.join(", ")));
        }
    }
    (bad, agreed)
}

fn cases() -> Vec<Value> {
    serde_json::from_str(&read("bench/gpu/generated/cases.json")).unwrap()
}

#[test]
fn ncu_counts_the_predicted_wavefronts_on_every_conversion_program() {
    let (bad, agreed) = disagreements(&cases(), &read("bench/gpu/results/ncu.txt"));
    assert!(bad.is_empty(), "{bad:#?}");
    assert!(agreed >= 40, "only {agreed} programs checked");
}

/// The check can fail: session 8's first call (kept as evidence, same
/// predictions for the programs it ran) disagrees exactly on the two
/// programs whose loads the compiler removed.
#[test]
fn the_dead_load_run_fails_the_check() {
    let (bad, _) = disagreements(
        &cases(),
        &read("bench/gpu/results/session8_dead_loads/ncu.txt"),
    );
    // Programs added to the suite after that call were not profiled then.
    let bad: Vec<&String> = bad
        .iter()
        .filter(|b| !b.ends_with("not profiled"))
        .collect();
    assert_eq!(bad.len(), 2, "{bad:#?}");
    assert!(
        bad.iter().all(|b| b.contains("_partial: load ncu 0")),
        "{bad:#?}"
    );
}
