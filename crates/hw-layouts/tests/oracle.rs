//! Differential test against Triton 3.9's own layout engine.
//!
//! Data: `tests/data/triton-oracle/sample-layouts.jsonl` and
//! `sample-rejects.jsonl` at the workspace root, copied verbatim from the
//! oracle generator's output (every number there was computed by Triton).
//!
//! For every accepted layout record: `Encoding::parse(mlir)` then
//! `to_linear_layout(shape)` must give exactly Triton's bases (`linear`,
//! compared as lists per input dim) and `to_mlir()` must give back Triton's
//! printed text. Kinds in [`ASSERTED`] must pass 100%; the others are
//! counted and printed (they belong to other families and are asserted once
//! those land: add their key to [`ASSERTED`]). Every rejected record of an
//! asserted kind must give an `Err` — never a layout, never a panic.
//!
//! `TRITON_ORACLE_LAYOUTS=path` / `TRITON_ORACLE_REJECTS=path` run the same
//! checks on other oracle files (e.g. a larger seed from `gen_oracle.py`).

use hw_layouts::linear::Linear;
use hw_layouts::Encoding;
use serde_json::Value;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// Record keys (`kind`, or `kind/parent_kind` for slices and dot operands)
/// that must match Triton exactly: every family.
const ASSERTED: &[&str] = &[
    "blocked",
    "slice/blocked",
    "slice/nvidia_mma",
    "slice/linear",
    "slice/slice",
    "slice/dot_op",
    "slice/amd_mfma",
    "slice/amd_wmma",
    "slice/dot_op(amd)",
    "linear",
    "nvidia_mma",
    "dot_op/mma_v2",
    "dot_op/mma_v3",
    "dot_op/blocked",
    "dot_op/amd_mfma",
    "dot_op/amd_wmma",
    "amd_mfma",
    "amd_wmma",
    "tmem_reg",
    "swizzled_shared",
    "nvmma_shared",
    "shared_linear",
    "padded_shared",
    "partitioned_shared",
    "tensor_memory",
    "tensor_memory_scales",
];

/// Reject-record kinds (the `kind` field) whose rejection is asserted.
/// (AMD, shared and tensor-memory rejects are rebuilt from their Gluon
/// parameters and checked in `amd_rejects.rs` and `shared_oracle.rs`.)
const ASSERTED_REJECT_KINDS: &[&str] = &["blocked", "slice", "linear", "nvidia_mma", "dot_op"];

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/triton-oracle")
}

/// Reads `name` from the data dir, or from the path in the environment
/// variable `env` when set (to run the same checks on a larger oracle
/// generated with `gen_oracle.py`).
fn read_jsonl(name: &str, env: &str) -> Vec<Value> {
    let path = std::env::var_os(env)
        .map(PathBuf::from)
        .unwrap_or_else(|| data_dir().join(name));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

/// `kind`, `kind/parent_kind` for slices and dot operands, and a trailing
/// `(amd)` when an AMD layout is nested deeper (a slice of an AMD dot
/// operand): those belong to the AMD family.
fn record_key(r: &Value) -> String {
    let kind = r["kind"].as_str().unwrap_or("?");
    let key = match r.get("parent_kind").and_then(Value::as_str) {
        Some(p) if kind == "slice" || kind == "dot_op" => format!("{kind}/{p}"),
        _ => kind.to_string(),
    };
    let mlir = r["mlir"].as_str().unwrap_or("");
    let key = if !key.contains("amd") && mlir.contains("#ttg.amd_") {
        format!("{key}(amd)")
    } else {
        key
    };
    // Warps of other than 32 or 64 threads: Triton builds them (a module
    // can say "ttg.threads-per-warp" = 4096), we reject them by design (no
    // GPU has such warps), so they are reported apart and not asserted.
    let lanes = r["linear"]["lane"].as_array().map(Vec::len);
    match lanes {
        Some(n) if r["space"] == "dist" && n != 5 && n != 6 => format!("{key}(tpw {})", 1u64 << n),
        _ => key,
    }
}

fn shape_of(v: &Value) -> Vec<u64> {
    v.as_array()
        .expect("shape list")
        .iter()
        .map(|x| x.as_u64().expect("shape entry"))
        .collect()
}

/// Our answer for one record, compared with Triton's; `Err` describes the
/// first difference.
fn check_record(r: &Value) -> Result<(), String> {
    let mlir = r["mlir"].as_str().ok_or("no mlir")?;
    let shape = shape_of(&r["shape"]);
    let enc = Encoding::parse(mlir).map_err(|e| format!("parse: {e}"))?;
    let printed = enc.to_mlir();
    if printed != mlir {
        return Err(format!(
            "to_mlir differs:\n  ours   {printed}\n  triton {mlir}"
        ));
    }
    // Triton's own report (incomplete for partitioned / multi-CTA tensor
    // memory, tile units for padded blocks): what the oracle holds.
    let ll = enc
        .to_triton_linear_layout(&shape)
        .map_err(|e| format!("to_triton_linear_layout: {e}"))?;
    let ours = ll.bases_json();
    let want = r["linear"].as_object().ok_or("no linear")?;
    let empty = Value::Array(vec![]);
    for (k, v) in want {
        let got = ours.get(k).unwrap_or(&empty);
        if got != v {
            return Err(format!("'{k}' bases differ:\n  ours   {got}\n  triton {v}"));
        }
    }
    for (k, v) in ours.as_object().expect("object") {
        if !want.contains_key(k) && v.as_array().is_some_and(|a| !a.is_empty()) {
            return Err(format!("extra input dim '{k}' = {v}"));
        }
    }
    // Out sizes are the shape (or `linear_shape`).
    let out_shape = r.get("linear_shape").map(shape_of).unwrap_or(shape);
    let outs: Vec<u64> = ll.out_dims().iter().map(|o| o.1).collect();
    if outs != out_shape {
        return Err(format!("out sizes {outs:?}, expected {out_shape:?}"));
    }
    Ok(())
}

#[test]
fn every_sample_layout_matches_triton() {
    let records = read_jsonl("sample-layouts.jsonl", "TRITON_ORACLE_LAYOUTS");
    assert!(records.len() >= 100, "only {} records", records.len());
    check_layout_records(&records);
}

/// 562 more distributed layouts of the families above (seed 7 of
/// `gen_oracle.py`, Triton 3.9.0; AMD and shared records filtered out).
#[test]
fn seed7_distributed_layouts_match_triton() {
    let records = read_jsonl("seed7-distributed-layouts.jsonl", "TRITON_ORACLE_LAYOUTS_2");
    assert!(records.len() >= 500, "only {} records", records.len());
    check_layout_records(&records);
}

/// 669 distributed layouts from a run with 40% deliberately broken
/// parameters (seed 11, `--mutate 0.4`): the ones Triton still accepted
/// (odd `instrShape`s it ignores, zero-size tiles, …) must match too.
#[test]
fn seed11_mutated_distributed_layouts_match_triton() {
    let records = read_jsonl(
        "seed11-mutated-distributed-layouts.jsonl",
        "TRITON_ORACLE_LAYOUTS_3",
    );
    assert!(records.len() >= 600, "only {} records", records.len());
    check_layout_records(&records);
}

/// 1500 layouts of every family from a held-out run (seed 23 of
/// `gen_oracle.py --count 1500`, Triton 3.9.0, generated after the families
/// were written).
#[test]
fn seed23_all_families_match_triton() {
    let records = read_jsonl("seed23-layouts.jsonl", "TRITON_ORACLE_LAYOUTS_4");
    assert!(records.len() >= 1400, "only {} records", records.len());
    check_layout_records(&records);
}

/// The rejects of seed 23 for this crate's kinds.
#[test]
fn seed23_rejects_are_rejected() {
    let records = read_jsonl("seed23-rejects.jsonl", "TRITON_ORACLE_REJECTS_4");
    check_reject_records(&records, 47);
}

/// 400 layouts of a held-out run (seed 41, `gen_oracle.py --count 400
/// --bank-count 300 --trivial-count 300`), and its rejects.
#[test]
fn seed41_all_families_match_triton() {
    let records = read_jsonl("seed41-layouts.jsonl", "TRITON_ORACLE_LAYOUTS_5");
    assert!(records.len() >= 390, "only {} records", records.len());
    check_layout_records(&records);
}

/// The rejects of seed 41 for this crate's kinds.
#[test]
fn seed41_rejects_are_rejected() {
    let records = read_jsonl("seed41-rejects.jsonl", "TRITON_ORACLE_REJECTS_5");
    check_reject_records(&records, 13);
}

/// 1000 layouts of a held-out run (seed 53), and its rejects.
#[test]
fn seed53_all_families_match_triton() {
    let records = read_jsonl("seed53-layouts.jsonl", "TRITON_ORACLE_LAYOUTS_6");
    assert!(records.len() >= 990, "only {} records", records.len());
    check_layout_records(&records);
}

/// The rejects of seed 53 for this crate's kinds.
#[test]
fn seed53_rejects_are_rejected() {
    let records = read_jsonl("seed53-rejects.jsonl", "TRITON_ORACLE_REJECTS_6");
    check_reject_records(&records, 38);
}

/// 1500 layouts of a held-out run (seed 67), and its rejects.
#[test]
fn seed67_all_families_match_triton() {
    let records = read_jsonl("seed67-layouts.jsonl", "TRITON_ORACLE_LAYOUTS_7");
    assert!(records.len() >= 1490, "only {} records", records.len());
    check_layout_records(&records);
}

/// The rejects of seed 67 for this crate's kinds.
#[test]
fn seed67_rejects_are_rejected() {
    let records = read_jsonl("seed67-rejects.jsonl", "TRITON_ORACLE_REJECTS_7");
    check_reject_records(&records, 49);
}

/// 1200 layouts of a held-out run (seed 97), and its rejects.
#[test]
fn seed97_all_families_match_triton() {
    let records = read_jsonl("seed97-layouts.jsonl", "TRITON_ORACLE_LAYOUTS_8");
    assert!(records.len() >= 1190, "only {} records", records.len());
    check_layout_records(&records);
}

/// The rejects of seed 97 for this crate's kinds.
#[test]
fn seed97_rejects_are_rejected() {
    let records = read_jsonl("seed97-rejects.jsonl", "TRITON_ORACLE_REJECTS_8");
    check_reject_records(&records, 37);
}

fn check_layout_records(records: &[Value]) {
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for r in records {
        let key = record_key(r);
        let res = catch_unwind(AssertUnwindSafe(|| check_record(r)))
            .unwrap_or_else(|_| Err("panicked".to_string()));
        let c = counts.entry(key.clone()).or_default();
        match res {
            Ok(()) => c.0 += 1,
            Err(e) => {
                c.1 += 1;
                if ASSERTED.contains(&key.as_str()) {
                    failures.push(format!(
                        "{} [{key}] shape {}: {}\n  {e}",
                        r["id"], r["shape"], r["mlir"]
                    ));
                }
            }
        }
    }
    eprintln!("kind                       pass  fail  asserted");
    for (k, (p, f)) in &counts {
        let a = if ASSERTED.contains(&k.as_str()) {
            "yes"
        } else {
            ""
        };
        eprintln!("{k:<26} {p:>4}  {f:>4}  {a}");
    }
    for k in ASSERTED {
        assert!(
            counts.get(*k).map_or(0, |c| c.0) > 0 || !counts.contains_key(*k),
            "asserted kind {k} has no passing record"
        );
    }
    assert!(
        failures.is_empty(),
        "{} asserted records differ from Triton:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Triton's attribute text for a Gluon parameter object (`params` of a
/// reject record), for the families of this crate.
fn params_to_mlir(p: &Value) -> Option<String> {
    let list = |v: &Value| -> String {
        let items: Vec<String> = v
            .as_array()
            .map(|a| a.iter().map(|x| x.to_string()).collect())
            .unwrap_or_default();
        format!("[{}]", items.join(", "))
    };
    let matrix = |v: &Value| -> String {
        let items: Vec<String> = v
            .as_array()
            .map(|a| a.iter().map(&list).collect())
            .unwrap_or_default();
        format!("[{}]", items.join(", "))
    };
    let cga = |v: Option<&Value>| -> String {
        match v {
            Some(Value::Array(a)) if !a.is_empty() => {
                format!(", CGALayout = {}", matrix(&v.cloned().unwrap()))
            }
            Some(Value::Object(o)) => {
                let l = o
                    .get("legacy")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                if l.len() != 3 {
                    return String::new();
                }
                format!(
                    ", CTAsPerCGA = {}, CTASplitNum = {}, CTAOrder = {}",
                    list(&l[0]),
                    list(&l[1]),
                    list(&l[2])
                )
            }
            _ => String::new(),
        }
    };
    let cls = p["cls"].as_str()?;
    Some(match cls {
        "BlockedLayout" => format!(
            "#ttg.blocked<{{sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {}{}}}>",
            list(&p["size_per_thread"]),
            list(&p["threads_per_warp"]),
            list(&p["warps_per_cta"]),
            list(&p["order"]),
            cga(p.get("cga_layout"))
        ),
        "NVMMADistributedLayout" => {
            let v = p["version"].as_array()?;
            format!(
                "#ttg.nvidia_mma<{{versionMajor = {}, versionMinor = {}, warpsPerCTA = {}{}, instrShape = {}}}>",
                v[0],
                v[1],
                list(&p["warps_per_cta"]),
                cga(p.get("cga_layout")),
                list(&p["instr_shape"])
            )
        }
        "SliceLayout" => format!(
            "#ttg.slice<{{dim = {}, parent = {}}}>",
            p["dim"],
            params_to_mlir(&p["parent"])?
        ),
        "DotOperandLayout" => {
            let kw = p["k_width"].as_i64().unwrap_or(0);
            let kw = if kw == 0 { String::new() } else { format!(", kWidth = {kw}") };
            format!(
                "#ttg.dot_op<{{opIdx = {}, parent = {}{kw}}}>",
                p["operand_index"],
                params_to_mlir(&p["parent"])?
            )
        }
        "DistributedLinearLayout" => format!(
            "#ttg.linear<{{register = {}, lane = {}, warp = {}, block = {}}}>",
            matrix(&p["reg_bases"]),
            matrix(&p["lane_bases"]),
            matrix(&p["warp_bases"]),
            matrix(&p["block_bases"])
        ),
        _ => return None,
    })
}

/// The layout attribute inside a printed type `tensor<4x8xf16, #ttg...>`.
fn attr_of_type(t: &str) -> Option<String> {
    let start = t.find(", #")? + 2;
    let end = t.rfind('>')?;
    Some(t[start..end].to_string())
}

#[test]
fn every_sample_reject_is_rejected() {
    let records = read_jsonl("sample-rejects.jsonl", "TRITON_ORACLE_REJECTS");
    check_reject_records(&records, 10);
}

/// The rejects of seed 7 (85 records, 29 of this crate's kinds).
#[test]
fn seed7_rejects_are_rejected() {
    let records = read_jsonl("seed7-rejects.jsonl", "TRITON_ORACLE_REJECTS_2");
    check_reject_records(&records, 25);
}

/// The rejects of the mutated seed-11 run for this crate's kinds.
#[test]
fn seed11_mutated_rejects_are_rejected() {
    let records = read_jsonl(
        "seed11-mutated-distributed-rejects.jsonl",
        "TRITON_ORACLE_REJECTS_3",
    );
    check_reject_records(&records, 300);
}

/// The rejects of seed 13 (`--mutate 0.15`) for this crate's kinds
/// (includes a CGA layout that is not a permutation, s13-L00191).
#[test]
fn seed13_rejects_are_rejected() {
    let records = read_jsonl(
        "seed13-distributed-rejects.jsonl",
        "TRITON_ORACLE_REJECTS_4",
    );
    check_reject_records(&records, 90);
}

/// Gluon's `DistributedLinearLayout` from its parameters, built as Gluon
/// does: the class carries its own shape (the out sizes), which an MLIR
/// attribute cannot. Unreadable bases become an invalid basis (an error).
fn gluon_linear(p: &Value) -> Result<Linear, hw_layouts::HwError> {
    let m = |k: &str| -> Vec<Vec<i64>> {
        serde_json::from_value(p[k].clone()).unwrap_or_else(|_| vec![vec![-1]])
    };
    let (rb, lb, wb, bb) = (
        m("reg_bases"),
        m("lane_bases"),
        m("warp_bases"),
        m("block_bases"),
    );
    let shape: Vec<u64> = p["shape"]
        .as_array()
        .map(|a| a.iter().map(|x| x.as_u64().unwrap_or(u64::MAX)).collect())
        .unwrap_or_default();
    Linear::from_bases([&rb, &lb, &wb, &bb], &shape)
}

/// Every reject of `records` for this crate's kinds is refused; at least
/// `min_checked` inputs must be checked (the count the committed file
/// holds, so that a reader that skips records fails).
fn check_reject_records(records: &[Value], min_checked: usize) {
    let mut checked = 0;
    let mut failures = Vec::new();
    for r in records {
        if r["query"] != "layout" {
            continue;
        }
        let kind = r["kind"].as_str().unwrap_or("");
        if !ASSERTED_REJECT_KINDS.contains(&kind) {
            continue;
        }
        let to_shape = |v: &Value| -> Vec<u64> {
            v.as_array()
                .map(|a| a.iter().map(|x| x.as_u64().unwrap_or(u64::MAX)).collect())
                .unwrap_or_default()
        };
        let shape = to_shape(&r["shape"]);
        let p = &r["params"];
        if p["cls"] == "DistributedLinearLayout" {
            // Gluon's class carries its own shape, which the text cannot:
            // build it as Gluon does (out sizes = that shape).
            checked += 1;
            let res = catch_unwind(AssertUnwindSafe(|| {
                gluon_linear(p).and_then(|l| Encoding::Linear(l).to_linear_layout(&shape))
            }));
            match res {
                Err(_) => failures.push(format!("{} panicked (from_bases)", r["id"])),
                Ok(Ok(l)) => failures.push(format!(
                    "{} accepted DistributedLinearLayout {p} at {shape:?} (Triton: {}) giving {}",
                    r["id"],
                    r["error"],
                    l.bases_json()
                )),
                Ok(Err(e)) => eprintln!("{} rejected: {e}", r["id"]),
            }
        }
        // A slice of Gluon's DistributedLinearLayout: the parent's own shape
        // (which the MLIR text of the slice cannot carry) is checked by
        // Gluon's class; a parent it refuses makes the slice a reject that
        // the text form cannot show, so check the parent as Gluon builds it.
        let parent = &p["parent"];
        if p["cls"] == "SliceLayout" && parent["cls"] == "DistributedLinearLayout" {
            let built = catch_unwind(AssertUnwindSafe(|| gluon_linear(parent).is_ok()));
            match built {
                Err(_) => {
                    failures.push(format!("{} panicked (slice parent from_bases)", r["id"]));
                    continue;
                }
                Ok(false) => {
                    checked += 1;
                    eprintln!("{} rejected: parent as Gluon builds it", r["id"]);
                    continue;
                }
                Ok(true) => {}
            }
        }
        let mut texts = vec![];
        if p["cls"] != "DistributedLinearLayout" {
            texts.extend(params_to_mlir(p));
        }
        if let Some(ts) = r.get("printed_types").and_then(Value::as_array) {
            texts.extend(ts.iter().filter_map(|t| t.as_str().and_then(attr_of_type)));
        }
        if texts.is_empty() {
            if p["cls"] == "DistributedLinearLayout" {
                continue;
            }
            // Only AMD parameter objects have no text here (AMD family).
            assert!(
                r["params"].to_string().contains("AMD"),
                "{}: no text for the reject",
                r["id"]
            );
            continue;
        }
        for text in texts {
            checked += 1;
            let res = catch_unwind(AssertUnwindSafe(|| {
                Encoding::parse(&text).and_then(|e| e.to_linear_layout(&shape))
            }));
            match res {
                Err(_) => failures.push(format!("{} panicked on {text} {shape:?}", r["id"])),
                Ok(Ok(l)) => failures.push(format!(
                    "{} accepted {text} {shape:?} (Triton: {}) giving {}",
                    r["id"],
                    r["error"],
                    l.bases_json()
                )),
                Ok(Err(e)) => eprintln!("{} rejected: {e}", r["id"]),
            }
        }
    }
    eprintln!("{checked} rejected inputs checked");
    assert!(checked >= min_checked, "only {checked} reject inputs found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
