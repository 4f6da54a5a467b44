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
use layout_engine::parse_program;

mod common;

fn whole_record(ttir: &str, target: Target, num_warps: u64, price: bool, print: bool) -> f64 {
    let (p, out, mut pricer, violations) =
        common::engine_work(ttir, target, num_warps).expect("assigns");
    assert_eq!(violations, 0);
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
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sample.jsonl.gz");
    let recs = common::read_records(path).expect("sample records");
    let largest = common::largest(&recs).expect("records");
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
        let (target, nw) = common::target_and_warps(r).expect("target and warps");
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
