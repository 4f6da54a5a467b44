//! Shared helpers of the integration tests: the oracle records.

#![allow(dead_code)]

use serde_json::Value;

/// Every `*.jsonl` record under `tests/data/`.
pub fn records() -> Vec<Value> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/data exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable record file");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            out.push(serde_json::from_str(line).expect("a JSON record"));
        }
    }
    assert!(!out.is_empty(), "no records under tests/data");
    out
}

/// The record's id.
pub fn id(r: &Value) -> &str {
    r["id"].as_str().unwrap_or("?")
}

/// The records of one file under `tests/data/`.
pub fn records_in(file: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("readable record file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect()
}

/// The record's target and warps per CTA (`target`, `options.num_warps`).
pub fn target_and_warps(r: &Value) -> (layout_engine::anchors::Target, u64) {
    let target = r["target"].as_str().expect("a target");
    (
        layout_engine::anchors::Target::parse(target).expect("a known target"),
        r["options"]["num_warps"].as_u64().expect("num_warps"),
    )
}

/// The engine's options for the record.
pub fn options(r: &Value) -> layout_engine::engine::Options {
    let (target, num_warps) = target_and_warps(r);
    layout_engine::engine::Options::new(target, num_warps)
}
