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

use hw_layouts::Encoding;
use serde_json::Value;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// Record keys (`kind`, or `kind/parent_kind` for slices and dot operands)
/// that must match Triton exactly. Other helpers' kinds are appended here
/// when their families are merged: `amd_mfma`, `amd_wmma`,
/// `slice/amd_mfma`, `slice/amd_wmma`, `dot_op/amd_mfma`, `dot_op/amd_wmma`,
/// `swizzled_shared`, `nvmma_shared`, `shared_linear`, `padded_shared`,
/// `partitioned_shared`, `tensor_memory`, `tensor_memory_scales`.
const ASSERTED: &[&str] = &[
    "blocked",
    "slice/blocked",
    "slice/nvidia_mma",
    "slice/linear",
    "slice/slice",
    "slice/dot_op",
    "linear",
    "nvidia_mma",
    "dot_op/mma_v2",
    "dot_op/mma_v3",
    "dot_op/blocked",
    "tmem_reg",
];

/// Reject-record kinds (the `kind` field) whose rejection is asserted.
const ASSERTED_REJECT_KINDS: &[&str] = &["blocked", "slice", "linear", "nvidia_mma", "dot_op"];

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/triton-oracle")
}

fn read_jsonl(name: &str) -> Vec<Value> {
    let path = data_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

fn record_key(r: &Value) -> String {
    let kind = r["kind"].as_str().unwrap_or("?");
    match r.get("parent_kind").and_then(Value::as_str) {
        Some(p) if kind == "slice" || kind == "dot_op" => format!("{kind}/{p}"),
        _ => kind.to_string(),
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
    let ll = enc
        .to_linear_layout(&shape)
        .map_err(|e| format!("to_linear_layout: {e}"))?;
    if r.get("linear_incomplete").is_some() {
        return Ok(()); // Triton's answer lacks an input dim: nothing to compare.
    }
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
    let records = read_jsonl("sample-layouts.jsonl");
    assert!(records.len() >= 300, "only {} records", records.len());
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for r in &records {
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
    let records = read_jsonl("sample-rejects.jsonl");
    let mut checked = 0;
    let mut failures = Vec::new();
    for r in &records {
        if r["query"] != "layout" {
            continue;
        }
        let kind = r["kind"].as_str().unwrap_or("");
        if !ASSERTED_REJECT_KINDS.contains(&kind) {
            continue;
        }
        let shape: Vec<u64> = r["shape"]
            .as_array()
            .map(|a| a.iter().map(|x| x.as_u64().unwrap_or(u64::MAX)).collect())
            .unwrap_or_default();
        let mut texts = vec![];
        if let Some(t) = params_to_mlir(&r["params"]) {
            texts.push(t);
        }
        if let Some(ts) = r.get("printed_types").and_then(Value::as_array) {
            texts.extend(ts.iter().filter_map(|t| t.as_str().and_then(attr_of_type)));
        }
        assert!(!texts.is_empty(), "{}: no text for the reject", r["id"]);
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
    assert!(checked >= 10, "only {checked} reject inputs found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
