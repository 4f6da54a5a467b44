//! The cold path of `from_mlir`: parsing Triton's attribute text
//! (`syntax::Attribute::parse`), interpreting it (`Encoding::from_attr`) and
//! building the linear layout (`to_linear_layout`), on every case of Triton's
//! oracle sample (`tests/data/triton-oracle/sample-layouts.jsonl`).
//!
//! Run: `cargo bench -p hw-layouts --bench from_mlir -- --warm-up-time 1
//! --measurement-time 2`.
//!
//! Before criterion, it prints per kind the median over cases of a floor
//! (the minimum over 200 batches of 8 calls of the time per call) for each
//! of the three steps: on a shared, loaded machine the floors approximate the
//! uncontended cost.

use criterion::{criterion_group, criterion_main, Criterion};
use hw_layouts::syntax::Attribute;
use hw_layouts::Encoding;
use serde_json::Value;
use std::collections::BTreeMap;
use std::hint::black_box;

struct Case {
    kind: String,
    mlir: String,
    shape: Vec<u64>,
}

fn cases() -> Vec<Case> {
    let baked = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/triton-oracle/sample-layouts.jsonl"
    );
    let text = std::fs::read_to_string(baked)
        .or_else(|_| std::fs::read_to_string("tests/data/triton-oracle/sample-layouts.jsonl"))
        .expect("oracle sample");
    text.lines()
        .filter_map(|line| {
            let rec: Value = serde_json::from_str(line).ok()?;
            let case = Case {
                kind: rec["kind"].as_str()?.to_string(),
                mlir: rec["mlir"].as_str()?.to_string(),
                shape: serde_json::from_value(rec["shape"].clone()).ok()?,
            };
            // Only the cases that build (as the Python bench's).
            Encoding::parse(&case.mlir)
                .and_then(|e| e.to_linear_layout(&case.shape))
                .ok()?;
            Some(case)
        })
        .collect()
}

/// Minimum over 200 batches of 8 calls of the time per call, in µs.
fn floor<R>(mut f: impl FnMut() -> R) -> f64 {
    (0..200)
        .map(|_| {
            let t = std::time::Instant::now();
            for _ in 0..8 {
                let r = f();
                black_box(&r);
            }
            t.elapsed().as_secs_f64() * 1e6 / 8.0
        })
        .fold(f64::INFINITY, f64::min)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn bench(c: &mut Criterion) {
    let cases = cases();
    // kind -> (parse, from_attr, to_linear_layout, all three) floors.
    type Floors = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);
    let mut by_kind: BTreeMap<&str, Floors> = BTreeMap::new();
    for case in &cases {
        let attr = Attribute::parse(&case.mlir).unwrap();
        let enc = Encoding::from_attr(&attr).unwrap();
        let e = by_kind.entry(&case.kind).or_default();
        e.0.push(floor(|| Attribute::parse(black_box(&case.mlir))));
        e.1.push(floor(|| Encoding::from_attr(black_box(&attr))));
        e.2.push(floor(|| enc.to_linear_layout(black_box(&case.shape))));
        e.3.push(floor(|| {
            Encoding::parse(black_box(&case.mlir)).and_then(|e| e.to_linear_layout(&case.shape))
        }));
    }
    eprintln!(
        "{:<22} {:>4} {:>10} {:>10} {:>10} {:>10}   (µs, median over cases of the floor)",
        "kind", "n", "parse", "from_attr", "build", "all"
    );
    let mut all = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (kind, (p, a, b, t)) in &by_kind {
        eprintln!(
            "{kind:<22} {:>4} {:>10.3} {:>10.3} {:>10.3} {:>10.3}",
            p.len(),
            median(p.clone()),
            median(a.clone()),
            median(b.clone()),
            median(t.clone())
        );
        all.0.extend(p);
        all.1.extend(a);
        all.2.extend(b);
        all.3.extend(t);
    }
    eprintln!(
        "{:<22} {:>4} {:>10.3} {:>10.3} {:>10.3} {:>10.3}",
        "all",
        all.0.len(),
        median(all.0),
        median(all.1),
        median(all.2),
        median(all.3)
    );

    let mut g = c.benchmark_group("from_mlir");
    g.bench_function("parse_all_cases", |bn| {
        bn.iter(|| {
            for case in &cases {
                black_box(&Attribute::parse(black_box(&case.mlir)));
            }
        })
    });
    g.bench_function("parse_and_build_all_cases", |bn| {
        bn.iter(|| {
            for case in &cases {
                let l = Encoding::parse(black_box(&case.mlir))
                    .and_then(|e| e.to_linear_layout(&case.shape));
                black_box(&l);
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
