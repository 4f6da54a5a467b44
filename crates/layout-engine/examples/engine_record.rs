//! The engine on one record of an oracle corpus, what `benches/engine.rs`
//! times as `engine/…` (parse, axis analysis, anchors, assignment with a
//! fresh cost cache, checker), run once: for instruction counts, which a
//! shared machine's timings are too noisy to compare (`valgrind
//! --tool=callgrind` counts the same total for the same binary and input).
//!
//! ```text
//! cargo build --release -p layout-engine --example engine_record
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     --toggle-collect='*whole_record*' \
//!     target/release/examples/engine_record crates/layout-engine/tests/data/sample.jsonl [ID-PREFIX]
//! ```
//!
//! Without an id prefix it takes the record of the longest TTIR (the
//! benchmark's `largest`).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use layout_engine::anchors::Target;
use layout_engine::cost::Pricer;
use layout_engine::engine::{assign, Options};
use layout_engine::{check, parse_program};

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: engine_record RECORDS.jsonl [ID-PREFIX]")?;
    let prefix = args.next();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let records: Vec<serde_json::Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{path}: {e}")))
        .collect::<Result<_, _>>()?;
    let ttir = |r: &serde_json::Value| r["ttir"].as_str().map_or(0, str::len);
    let record = match &prefix {
        Some(p) => records
            .iter()
            .find(|r| r["id"].as_str().is_some_and(|i| i.starts_with(p.as_str()))),
        None => records.iter().max_by_key(|r| ttir(r)),
    }
    .ok_or("no such record")?;
    let target = record["target"]
        .as_str()
        .and_then(Target::parse)
        .ok_or("the record's target")?;
    let warps = record["options"]["num_warps"]
        .as_u64()
        .ok_or("the record's num_warps")?;
    let (ops, wanted, violations) =
        whole_record(record["ttir"].as_str().unwrap_or(""), target, warps)?;
    println!(
        "{}: {ops} ops, {wanted} conversions wanted, {violations} violations",
        record["id"].as_str().unwrap_or("?"),
    );
    Ok(())
}

/// What `engine/…` times: ops, conversions wanted, checker violations.
/// Not inlined, so that `--toggle-collect='*whole_record*'` counts it alone.
#[inline(never)]
fn whole_record(ttir: &str, target: Target, warps: u64) -> Result<(usize, usize, usize), String> {
    let p = parse_program(ttir).map_err(|e| e.to_string())?;
    let mut pricer = Pricer::new();
    let out = assign(&p, Options::new(target, warps), &mut pricer).map_err(|e| e.to_string())?;
    let violations = check(&p, &out.assignment).len();
    Ok((p.ops.len(), out.assignment.uses.len(), violations))
}
