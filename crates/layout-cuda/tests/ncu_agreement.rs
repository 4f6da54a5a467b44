//! The committed GPU run against the plans: for every conversion program
//! of `bench/gpu/generated/cases.json`, the shared-memory store and load
//! wavefronts `ncu` counted for one iteration of the loop (one tile, R = 2
//! minus R = 1, `bench/gpu/results/2026-11-29-h200/ncu.txt`; runs before
//! commit `39caa58` profiled R = 1 only, and then that kernel counts) equal
//! the prediction *recomputed here* from the plans the program is emitted
//! from: the planner ([`layout_codegen::planner::plan_with`] with the
//! case's request) and its one wavefront counter ([`layout_codegen::wavefront`],
//! through the simulator and [`layout_codegen::store_replicas`]), or the
//! planner's partial round trip for partial programs (with the request
//! recorded as `plan_request`), and no access conflicts. The
//! predictions written into `cases.json` must equal the recomputed ones.
//! A program whose loads the compiler removed (the first call of
//! 2026-11-21 at commit `e9d1187`: a replicated copy nobody read) fails
//! here, and so does a wrong counter (counting only each lane's first
//! 4-byte word of a vector access made the 8- and 16-byte accesses'
//! predictions disagree with ncu).

use hw_layouts::Encoding;
use layout_codegen::plan_options::{PlanOptions, SplitForm};
use layout_codegen::planner::{lower_bound, Target};
use layout_codegen::round_trip::plan_partial_round_trip;
use layout_cuda::partial::emit_partial_planned;
use layout_cuda::{emit_benchmark_planned, ConversionCase, Path};
use serde_json::Value;
use std::collections::HashMap;

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

/// The committed predictions of a `cases.json` entry: `(kind, direction)`
/// → wavefronts.
fn committed(c: &Value, k: &str) -> f64 {
    ["predicted_fwd", "predicted_bwd"]
        .iter()
        .map(|d| c[*d][k].as_u64().unwrap_or(0) as f64)
        .sum()
}

/// Every conversion program whose `ncu` counts differ from its prediction
/// `predicted(case, "st_wavefronts" | "ld_wavefronts")` (or that was not
/// profiled), with the difference; and how many agreed.
fn disagreements(
    cases: &[Value],
    ncu_text: &str,
    predicted: impl Fn(&Value, &str) -> f64,
) -> (Vec<String>, usize) {
    let ncu = ncu_sections(ncu_text);
    let (mut bad, mut agreed) = (Vec::new(), 0);
    // The suite's conversions and the held-out pairs.
    let conversion = |c: &&Value| c.get("kind").is_none() || c["kind"] == "held_out";
    for c in cases.iter().filter(conversion) {
        let name = c["name"].as_str().unwrap();
        let predicted = |k: &str| predicted(c, k);
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
        let jitter = LOAD_JITTER
            .iter()
            .find(|j| j.0 == name)
            .map_or(0.0, |j| j.1);
        let diffs: Vec<String> = pairs
            .iter()
            .filter(|(k, a, b)| {
                if *k == "load" {
                    (a - b).abs() > jitter
                } else {
                    a != b
                }
            })
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

/// Programs whose load wavefronts ncu counts differently in identical runs
/// (the store counts and the instructions stay the same), and by how many
/// at most per iteration: `(name, wavefronts)`. Each entry's repeated runs
/// are committed and checked by
/// [`repeated_runs_of_a_jittering_program_straddle_the_prediction`].
const LOAD_JITTER: &[(&str, f64)] = &[("fresh5_blk4_to_blk8_w8_128x128_f16", 4.0)];

/// `(repeat, R, load wavefronts, store wavefronts)` of
/// `fresh5/ncu_repeat.txt` (lines `== rep K R=N` and `metric value`).
fn repeated_runs() -> Vec<(u32, u64, f64, f64)> {
    let text = read("bench/gpu/results/2026-11-29-h200/fresh5/ncu_repeat.txt");
    let mut runs = Vec::new();
    let num = |l: &str| -> f64 {
        let v = l.split_whitespace().nth(1).unwrap();
        v.trim_end_matches('"').replace(',', "").parse().unwrap()
    };
    for block in text.split("== rep ").skip(1) {
        let mut lines = block.lines();
        let head: Vec<&str> = lines.next().unwrap().split(" R=").collect();
        let (rep, r) = (head[0].parse().unwrap(), head[1].parse().unwrap());
        let (mut ld, mut st) = (0.0, 0.0);
        for l in lines {
            if l.contains("shared_op_ld") {
                ld = num(l);
            } else if l.contains("shared_op_st") {
                st = num(l);
            }
        }
        runs.push((rep, r, ld, st));
    }
    runs
}

/// The jittering program, profiled twice at R = 1 to 4 in one device call:
/// its stores are exactly the prediction per iteration in every run, its
/// loads differ between identical runs (so the counter, not the plan,
/// varies), stay within the listed jitter of the prediction, and equal it
/// exactly in some run.
#[test]
fn repeated_runs_of_a_jittering_program_straddle_the_prediction() {
    let case = cases()
        .into_iter()
        .find(|c| c["name"] == LOAD_JITTER[0].0)
        .unwrap();
    // One run of R iterations: R round trips and the forward conversion
    // after the loop.
    let fwd = |k: &str| case["predicted_fwd"][k].as_u64().unwrap() as f64;
    let predicted = |r: u64, k: &str| fwd(k) + r as f64 * committed(&case, k);
    let runs = repeated_runs();
    assert_eq!(runs.len(), 8);
    let mut exact = 0;
    for &(rep, r, l, s) in &runs {
        assert_eq!(s, predicted(r, "st_wavefronts"), "rep {rep} R={r} stores");
        let off = (l - predicted(r, "ld_wavefronts")).abs();
        assert!(off <= LOAD_JITTER[0].1, "rep {rep} R={r}: loads {l}");
        exact += usize::from(off == 0.0);
    }
    let same_r_differ = (1..=4).any(|r| {
        let v: Vec<f64> = runs.iter().filter(|x| x.1 == r).map(|x| x.2).collect();
        v.iter().any(|&x| x != v[0])
    });
    assert!(same_r_differ && exact > 0, "{runs:?}");
}

fn cases() -> Vec<Value> {
    serde_json::from_str(&read("bench/gpu/generated/cases.json")).unwrap()
}

/// The conversion case of a `cases.json` entry (layouts from their
/// Triton attribute text; the request from the name: `_mx` matrix
/// instructions, `_smem` through shared memory).
fn case_of(c: &Value) -> ConversionCase {
    let shape: Vec<u64> = c["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let ll = |k: &str| {
        Encoding::parse(c[k].as_str().unwrap())
            .and_then(|e| e.to_linear_layout(&shape))
            .unwrap()
    };
    let (src, dst) = (ll("src_attr"), ll("dst_attr"));
    let bits = c["bits"].as_u64().unwrap() as u32;
    let name = c["name"].as_str().unwrap();
    // Not read: whole-CTA plans choose their shared layout, and partial
    // programs are the planner's partial round trip (`recomputed`).
    let smem = layout_cuda::gather::row_major_smem(&shape);
    ConversionCase {
        name: name.into(),
        shape,
        bits,
        num_warps: c["num_warps"].as_u64().unwrap() as u32,
        src,
        dst,
        smem,
        options: if name.ends_with("_mx") {
            PlanOptions::matrix_only()
        } else if name.ends_with("_smem") {
            PlanOptions::shared_only()
        } else {
            PlanOptions::whole()
        },
    }
}

/// The predictions of an entry recomputed from the plans its program is
/// emitted from: `(store, load)` wavefronts per CTA, both directions.
fn recomputed(c: &Value) -> (f64, f64) {
    let case = case_of(c);
    if c["path_fwd"] == "partial" {
        // The planner's partial round trip as the suite asked for it: its
        // own answer (`planner`), or the partial class, lane-predicated
        // where the plain class refuses (`partial_class`).
        let options = match c["plan_request"].as_str() {
            Some("planner") => PlanOptions::default(),
            Some("partial_class") => PlanOptions {
                split_form: Some(SplitForm::Predicated),
                ..PlanOptions::partial_only()
            },
            other => panic!("{}: unknown plan_request {other:?}", c["name"]),
        };
        let plan =
            plan_partial_round_trip(&case.src, &case.dst, case.bits, &Target::SM90, &options)
                .unwrap();
        let em = emit_partial_planned(&case, &plan, c["warp_specialised"] != false).unwrap();
        let (f, b) = (&em.fwd.cost, &em.bwd.cost);
        return (
            (f.store_wavefronts + b.store_wavefronts) as f64,
            (f.load_wavefronts + b.load_wavefronts) as f64,
        );
    }
    let em = emit_benchmark_planned(&case).unwrap();
    let mut out = (0.0, 0.0);
    for (path, p) in [(em.fwd, &em.plans.0), (em.bwd, &em.plans.1)] {
        if path == Path::SharedMemory {
            out.0 += p.cost.store_wavefronts as f64;
            out.1 += p.cost.load_wavefronts as f64;
        }
    }
    out
}

/// `name → (store, load)` recomputed for every conversion program.
fn recomputed_all(cases: &[Value]) -> HashMap<String, (f64, f64)> {
    cases
        .iter()
        .filter(|c| c.get("kind").is_none() || c["kind"] == "held_out")
        .map(|c| (c["name"].as_str().unwrap().to_string(), recomputed(c)))
        .collect()
}

fn from_table(t: &HashMap<String, (f64, f64)>) -> impl Fn(&Value, &str) -> f64 + '_ {
    |c, k| {
        let x = t[c["name"].as_str().unwrap()];
        if k == "st_wavefronts" {
            x.0
        } else {
            x.1
        }
    }
}

/// Programs regenerated since the recorded ncu run whose new predictions
/// that run cannot confirm: `(name, why)`. Each must disagree with the
/// recorded run (so an entry cannot outlive the next run); remove it when
/// the program is profiled again.
const AWAITING_NCU: &[(&str, &str)] = &[];

#[test]
fn ncu_counts_the_recomputed_wavefronts_on_every_conversion_program() {
    let cases = cases();
    let table = recomputed_all(&cases);
    let (bad, agreed) = disagreements(
        &cases,
        &(read("bench/gpu/results/2026-11-29-h200/ncu.txt")
            + &read("bench/gpu/results/2026-11-29-h200/transposed32/ncu.txt")
            + &read("bench/gpu/results/2026-11-29-h200/transposed8/ncu.txt")
            + &read("bench/gpu/results/2026-11-29-h200/fresh5/ncu.txt")
            + &read("bench/gpu/results/2026-11-29-h200/lane_xor/ncu.txt")
            + &read("bench/gpu/results/2026-11-29-h200/matrix_default/ncu.txt")
            + &read("bench/gpu/results/2026-11-29-h200/fresh7/ncu.txt")),
        from_table(&table),
    );
    for (name, why) in AWAITING_NCU {
        assert!(
            bad.iter().any(|b| b.starts_with(&format!("{name}:"))),
            "{name} agrees with the recorded run: remove it from AWAITING_NCU ({why})"
        );
    }
    let bad: Vec<&String> = bad
        .iter()
        .filter(|b| {
            !AWAITING_NCU
                .iter()
                .any(|(n, _)| b.starts_with(&format!("{n}:")))
        })
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
    assert!(agreed >= 40, "only {agreed} programs checked");
    // The generated file says what the plans say.
    for c in cases
        .iter()
        .filter(|c| table.contains_key(c["name"].as_str().unwrap()))
    {
        let x = table[c["name"].as_str().unwrap()];
        let written = (committed(c, "st_wavefronts"), committed(c, "ld_wavefronts"));
        assert_eq!(written, x, "{}: cases.json is stale", c["name"]);
    }
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
        committed,
    );
    // Programs added to the suite after that call were not profiled then;
    // `mma2_to_dotB_64x64_f16_mx` has a cheaper plan since (320 wavefronts
    // per round trip against 384).
    let bad: Vec<&String> = bad
        .iter()
        .filter(|b| !b.ends_with("not profiled") && !b.starts_with("mma2_to_dotB_64x64_f16_mx:"))
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
    let (bad, agreed) = disagreements(
        &case,
        &dump([4, 0, 772, 512], Some([4, 0, 1540, 1024])),
        committed,
    );
    assert!(bad.is_empty() && agreed == 1, "{bad:?}");
    // Without the R = 2 run the R = 1 kernel is judged, and it disagrees.
    let (bad, _) = disagreements(&case, &dump([4, 0, 772, 512], None), committed);
    assert_eq!(bad.len(), 1, "{bad:?}");
    // Extra loads in every iteration do not cancel.
    let (bad, _) = disagreements(
        &case,
        &dump([4, 0, 772, 512], Some([8, 0, 1544, 1024])),
        committed,
    );
    assert_eq!(bad.len(), 1, "{bad:?}");
}

/// The floors `cases.json` records for each direction's planner answer
/// equal the planner's floor of today (`lower_bound`): a change of the
/// floor must regenerate the suite (`cargo run --release -p gpu-suite`).
#[test]
fn recorded_lower_bounds_are_todays_floors() {
    let mut checked = 0;
    for c in cases()
        .iter()
        .filter(|c| c.get("kind").is_none() || c["kind"] == "held_out")
    {
        let case = case_of(c);
        for (key, (a, b)) in [
            ("plan_fwd", (&case.src, &case.dst)),
            ("plan_bwd", (&case.dst, &case.src)),
        ] {
            let Some(recorded) = c[key]["lower_bound_cycles"].as_f64() else {
                continue;
            };
            let today = lower_bound(a, b, case.bits, &Target::SM90).unwrap().cycles;
            assert!(
                (recorded - today).abs() < 1e-9,
                "{} {key}: cases.json records the floor {recorded}, the planner says {today}",
                c["name"]
            );
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} floors checked");
}
