//! Criterion: what the search over chained-dot warps and warp-local
//! reductions (`engine::search`) costs on top of the engine without it
//! (`engine::assign_fixed`), on the sample's kernels where it runs extra
//! candidates: the sort kernel (the largest, one reduction candidate),
//! the online softmax and an sm80 flash attention from seed 11 (every
//! combination of its dots' warps). Each iteration starts with a fresh cost cache, as
//! the `engine` bench does.

use criterion::{criterion_group, criterion_main, Criterion};
use layout_engine::cost::Pricer;
use layout_engine::engine::{assign, assign_fixed, Options};
use layout_engine::parse_program;

#[path = "common/mod.rs"]
#[allow(dead_code)]
mod common;

fn record(file: &str, prefix: &str) -> serde_json::Value {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    common::read_records(&path)
        .expect("records")
        .into_iter()
        .find(|r| r["id"].as_str().is_some_and(|i| i.starts_with(prefix)))
        .expect("the record")
}

fn bench(c: &mut Criterion) {
    for (name, file, prefix) in [
        ("sort", "sample.jsonl.gz", "sort.sm90"),
        ("softmax_online", "sample.jsonl.gz", "softmax_online.sm80"),
        (
            "flash_attn_fwd_sm80",
            "seed11.jsonl.gz",
            "flash_attn_fwd.sm80.w8",
        ),
    ] {
        let r = record(file, prefix);
        let p = parse_program(r["ttir"].as_str().expect("ttir")).expect("reads");
        let (target, warps) = common::target_and_warps(&r).expect("target and warps");
        let opts = Options::new(target, warps);
        println!("{name}: {}", r["id"].as_str().unwrap_or("?"));
        c.bench_function(&format!("fixed/{name}"), |b| {
            b.iter(|| assign_fixed(&p, opts, &mut Pricer::new()).expect("assigns"))
        });
        c.bench_function(&format!("search/{name}"), |b| {
            b.iter(|| assign(&p, opts, &mut Pricer::new()).expect("assigns"))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
