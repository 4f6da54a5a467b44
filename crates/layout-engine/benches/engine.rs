//! Criterion: the engine on a whole record, for the largest kernel of the
//! sample (by TTIR size) and for flash attention. `engine/…`: parse the
//! TTIR, axis analysis, anchors, assignment (pricing the conflicts it
//! settles, with a fresh cost cache) and the checker. `engine+price/…`:
//! the same plus pricing every remaining conversion with
//! `layout_codegen`'s simulated planner (what `--compare` reports).
//! `engine+price+ttgir/…`: the same plus printing the program as TTGIR
//! (what `linlayout engine` prints).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, Criterion};
use layout_engine::anchors::Target;
use layout_engine::cost::Pricer;
use layout_engine::engine::{assign, Options};
use layout_engine::{check, parse_program};

fn records() -> Vec<serde_json::Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sample.jsonl");
    std::fs::read_to_string(path)
        .expect("sample records")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect()
}

fn whole_record(ttir: &str, target: Target, num_warps: u64, price: bool, print: bool) -> f64 {
    let p = parse_program(ttir).expect("reads");
    let mut pricer = Pricer::new();
    let out = assign(&p, Options::new(target, num_warps), &mut pricer).expect("assigns");
    assert!(check(&p, &out.assignment).is_empty());
    if !price {
        return out.assignment.uses.len() as f64;
    }
    let priced = pricer.price_all(&p, &out.assignment).expect("prices");
    if print {
        let g = layout_engine::ttgir::print_ttgir(&p, ttir, &out.assignment, target, num_warps)
            .expect("prints");
        return g.text.len() as f64;
    }
    layout_engine::cost::total_cost(&priced)
}

fn bench(c: &mut Criterion) {
    let recs = records();
    let largest = recs
        .iter()
        .max_by_key(|r| r["ttir"].as_str().map(str::len).unwrap_or(0))
        .expect("records");
    let flash = recs
        .iter()
        .find(|r| {
            r["id"]
                .as_str()
                .is_some_and(|i| i.starts_with("flash_attn_fwd"))
        })
        .expect("flash attention");
    for (name, r) in [("largest", largest), ("flash_attn_fwd", flash)] {
        let ttir = r["ttir"].as_str().expect("ttir").to_string();
        let target = Target::parse(r["target"].as_str().expect("target")).expect("known target");
        let nw = r["options"]["num_warps"].as_u64().expect("num_warps");
        println!(
            "{name}: {} ({} bytes of TTIR, {} ops)",
            r["id"].as_str().unwrap_or("?"),
            ttir.len(),
            parse_program(&ttir).map(|p| p.ops.len()).unwrap_or(0)
        );
        c.bench_function(&format!("engine/{name}"), |b| {
            b.iter(|| whole_record(&ttir, target, nw, false, false))
        });
        c.bench_function(&format!("engine+price/{name}"), |b| {
            b.iter(|| whole_record(&ttir, target, nw, true, false))
        });
        c.bench_function(&format!("engine+price+ttgir/{name}"), |b| {
            b.iter(|| whole_record(&ttir, target, nw, true, true))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
