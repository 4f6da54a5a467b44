//! Shared helpers of the integration tests: the oracle records.

#![allow(dead_code)]

use serde_json::Value;

/// The benchmarks' helpers, for their record reader (one reader of
/// gzip-compressed or plain corpora).
#[path = "../../benches/common/mod.rs"]
mod bench;

/// A record file's text: gzip-compressed (the corpora) or plain.
fn read_text(path: &std::path::Path) -> String {
    bench::read_text(&path.to_string_lossy()).expect("readable record file")
}

/// Every record of the `*.jsonl.gz` corpora under `tests/data/`.
pub fn records() -> Vec<Value> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/data exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(".jsonl.gz")))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = read_text(&f);
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

/// The records of one file under `tests/data/`: `file` as named, or, when
/// there is none, `file` with `.gz` (a corpus: `sample.jsonl` reads
/// `sample.jsonl.gz`).
pub fn records_in(file: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let path = std::path::PathBuf::from(&path);
    let path = if path.exists() {
        path
    } else {
        std::path::PathBuf::from(format!("{}.gz", path.display()))
    };
    let text = read_text(&path);
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect()
}

/// The first record of corpus `file` (as [`records_in`] names it) whose id
/// starts with `prefix`.
pub fn record(file: &str, prefix: &str) -> Value {
    records_in(file)
        .into_iter()
        .find(|r| id(r).starts_with(prefix))
        .unwrap_or_else(|| panic!("no record {prefix}… in {file}"))
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
