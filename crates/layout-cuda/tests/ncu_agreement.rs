//! The committed GPU run against the predictions it was generated with:
//! for every conversion program of `bench/gpu/generated/cases.json`, the
//! shared-memory store and load wavefronts `ncu` counted for one iteration
//! of the loop (one tile, R = 2 minus R = 1, `bench/gpu/results/2026-11-24-h200/ncu.txt`;
//! runs before commit `39caa58` profiled R = 1 only, and then that kernel counts)
//! equal the planner's prediction, and no access conflicts. A program whose loads the compiler removed (the
//! first call of 2026-11-21 at commit `e9d1187`: a replicated copy nobody read) fails here.

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
    // The suite's conversions and the held-out pairs.
    let conversion = |c: &&Value| c.get("kind").is_none() || c["kind"] == "held_out";
    for c in cases.iter().filter(conversion) {
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
        let sum = |m: &[(String, f64)], k: &str| -> f64 {
            m.iter().filter(|(n, _)| n.contains(k)).map(|x| x.1).sum()
        };
        // One iteration: R = 2 minus R = 1 where both were profiled
        // (since `39caa58`), else the R = 1 kernel.
        let two = ncu.get(&format!("{name} R=2"));
        let got = |k: &str| -> f64 {
            match two {
                Some(t) => sum(t, k) - sum(m, k),
                None => sum(m, k),
            }
        };
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
    let (bad, agreed) = disagreements(&cases(), &read("bench/gpu/results/2026-11-24-h200/ncu.txt"));
    assert!(bad.is_empty(), "{bad:#?}");
    assert!(agreed >= 40, "only {agreed} programs checked");
}

/// The check can fail: a recorded ncu run of 2026-11-21 on the H200
/// (`tests/data/ncu_dead_loads.txt`, programs whose replicated registers
/// were not yet folded into a sink, same predictions) disagrees exactly on
/// the two programs whose loads the compiler removed.
#[test]
fn the_dead_load_run_fails_the_check() {
    let (bad, _) = disagreements(
        &cases(),
        &read("crates/layout-cuda/tests/data/ncu_dead_loads.txt"),
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

/// One iteration is R = 2 minus R = 1: a count added once per kernel (as
/// on the 2026-11-21 run's 8-warp `wgmma_to_dotA_128x128_f16_w8`, 4 extra load
/// wavefronts per CTA whatever R) cancels, a per-iteration excess does not.
#[test]
fn one_iteration_is_the_difference_of_two_runs() {
    let case: Vec<Value> = serde_json::from_str(
        r#"[{"name": "k", "predicted_fwd": {"st_wavefronts": 256, "ld_wavefronts": 384},
             "predicted_bwd": {"st_wavefronts": 256, "ld_wavefronts": 384}}]"#,
    )
    .unwrap();
    let dump = |r1: [u32; 4], r2: Option<[u32; 4]>| {
        let sec = |title: &str, v: [u32; 4]| {
            let names = [
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
            ];
            let mut s = format!("== {title}\n");
            for (n, x) in names.iter().zip(v) {
                s += &format!(
                    "\"0\",\"1\",\"k\",\"Command line profiler metrics\",\"{n}\",\"\",\"{x}\"\n"
                );
            }
            s
        };
        let mut s = sec("k", r1);
        if let Some(v) = r2 {
            s += &sec("k R=2", v);
        }
        s
    };
    // R = 1 with 4 extra loads and 4 conflicts; R = 2 adds exactly one
    // predicted iteration: agrees.
    let (bad, agreed) = disagreements(&case, &dump([4, 0, 772, 512], Some([4, 0, 1540, 1024])));
    assert!(bad.is_empty() && agreed == 1, "{bad:?}");
    // Without the R = 2 run the R = 1 kernel is judged, and it disagrees.
    let (bad, _) = disagreements(&case, &dump([4, 0, 772, 512], None));
    assert_eq!(bad.len(), 1, "{bad:?}");
    // Extra loads in every iteration do not cancel.
    let (bad, _) = disagreements(&case, &dump([4, 0, 772, 512], Some([8, 0, 1544, 1024])));
    assert_eq!(bad.len(), 1, "{bad:?}");
}
