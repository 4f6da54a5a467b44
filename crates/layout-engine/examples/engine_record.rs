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
//!     target/release/examples/engine_record crates/layout-engine/tests/data/sample.jsonl.gz [ID-PREFIX]
//! ```
//!
//! Without an id prefix it takes the record of the longest TTIR (the
//! benchmark's `largest`).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use layout_engine::anchors::Target;

#[path = "../benches/common/mod.rs"]
mod common;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: engine_record RECORDS.jsonl[.gz] [ID-PREFIX]")?;
    let records = common::read_records(&path)?;
    let record = match args.next() {
        Some(p) => records
            .iter()
            .find(|r| r["id"].as_str().is_some_and(|i| i.starts_with(p.as_str()))),
        None => common::largest(&records),
    }
    .ok_or("no such record")?;
    let (target, warps) = common::target_and_warps(record)?;
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
    let (p, out, _, violations) = common::engine_work(ttir, target, warps)?;
    Ok((p.ops.len(), out.assignment.uses.len(), violations))
}
