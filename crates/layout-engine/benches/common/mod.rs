//! The work `benches/engine.rs` times as `engine/…` and
//! `examples/engine_record.rs` counts: one record of an oracle corpus
//! parsed, assigned with a fresh cost cache, and checked.

use layout_engine::anchors::Target;
use layout_engine::cost::Pricer;
use layout_engine::engine::{assign, EngineOutput, Options};
use layout_engine::ir::Program;
use layout_engine::{check, parse_program};

/// A text file, gzip-compressed (by its first two bytes, `1f 8b`) or plain.
pub fn read_text(path: &str) -> Result<String, String> {
    use std::io::Read;
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return String::from_utf8(bytes).map_err(|e| format!("{path}: {e}"));
    }
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .map_err(|e| format!("{path}: {e}"))?;
    Ok(text)
}

/// The records of a JSON-lines corpus (plain or gzip-compressed).
pub fn read_records(path: &str) -> Result<Vec<serde_json::Value>, String> {
    read_text(path)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{path}: {e}")))
        .collect()
}

/// The record of the longest TTIR (the benchmark's `largest`).
pub fn largest(records: &[serde_json::Value]) -> Option<&serde_json::Value> {
    records
        .iter()
        .max_by_key(|r| r["ttir"].as_str().map_or(0, str::len))
}

/// A record's target and `num_warps`.
pub fn target_and_warps(r: &serde_json::Value) -> Result<(Target, u64), String> {
    let target = r["target"]
        .as_str()
        .and_then(Target::parse)
        .ok_or("the record's target")?;
    let warps = r["options"]["num_warps"]
        .as_u64()
        .ok_or("the record's num_warps")?;
    Ok((target, warps))
}

/// Parse, assign (fresh cost cache) and check: the program, the engine's
/// output, the pricer it filled and the checker's violation count.
pub fn engine_work(
    ttir: &str,
    target: Target,
    warps: u64,
) -> Result<(Program, EngineOutput, Pricer, usize), String> {
    let p = parse_program(ttir).map_err(|e| e.to_string())?;
    let mut pricer = Pricer::new();
    let out = assign(&p, Options::new(target, warps), &mut pricer).map_err(|e| e.to_string())?;
    let violations = check(&p, &out.assignment).len();
    Ok((p, out, pricer, violations))
}
