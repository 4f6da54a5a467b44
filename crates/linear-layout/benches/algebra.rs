//! Benchmarks of the algebra's hot paths on layouts from Triton's oracle
//! sample (`tests/data/triton-oracle/sample-layouts.jsonl`):
//! `apply` (named) and `apply_values`, `compose`, `invert_and_compose` and
//! `pseudoinvert` of 16-bit layouts, and the full `table()`.
//!
//! Run: `cargo bench -p linear-layout --bench algebra -- --warm-up-time 1
//! --measurement-time 2`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use linear_layout::{DimName, LinearLayout};
use serde_json::Value;

struct Sample {
    id: String,
    space: String,
    layout: LinearLayout,
}

fn samples() -> Vec<Sample> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/triton-oracle/sample-layouts.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("oracle sample");
    text.lines()
        .filter_map(|line| {
            let rec: Value = serde_json::from_str(line).ok()?;
            let key = if rec.get("linear_shape").is_some() {
                "linear_shape"
            } else {
                "shape"
            };
            let shape: Vec<u64> = serde_json::from_value(rec[key].clone()).ok()?;
            let layout = LinearLayout::from_json(&rec["linear"], Some(&shape)).ok()?;
            Some(Sample {
                id: rec["id"].as_str()?.to_string(),
                space: rec["space"].as_str()?.to_string(),
                layout,
            })
        })
        .collect()
}

/// A distributed layout with `bits` input bits over 4 in dims, and a
/// distributed and an invertible shared layout of the same shape.
fn pick(samples: &[Sample], bits: u32) -> (&Sample, &Sample, &Sample) {
    for a in samples.iter().filter(|s| {
        s.space == "dist"
            && s.layout.total_in_dim_size_log2() == bits
            && s.layout.num_in_dims() == 4
            && s.layout.is_surjective()
    }) {
        let shape = a.layout.out_dims();
        let other = samples.iter().find(|s| {
            s.space == "dist"
                && s.id != a.id
                && s.layout.out_dims() == shape
                && s.layout.is_surjective()
        });
        let shared = samples.iter().find(|s| {
            s.space == "shared" && s.layout.out_dims() == shape && s.layout.is_invertible()
        });
        if let (Some(b), Some(sh)) = (other, shared) {
            return (a, b, sh);
        }
    }
    panic!("no oracle pair with {bits} input bits");
}

fn bench(c: &mut Criterion) {
    let samples = samples();
    let (a, b, sh) = pick(&samples, 16);
    let (la, lb, lsh) = (&a.layout, &b.layout, &sh.layout);
    eprintln!(
        "layouts: A = {} ({} in bits), B = {}, shared = {} ({} in bits)",
        a.id,
        la.total_in_dim_size_log2(),
        b.id,
        sh.id,
        lsh.total_in_dim_size_log2()
    );
    let ins: Vec<(DimName, u64)> = la.in_dims();
    let mut g = c.benchmark_group("algebra");

    // apply (named): a different input each iteration.
    let mut x = 0u64;
    g.bench_function("apply", |bn| {
        bn.iter(|| {
            x = x.wrapping_add(0x9e37_79b9);
            let input = [
                (ins[0].0, x),
                (ins[1].0, x >> 5),
                (ins[2].0, x >> 10),
                (ins[3].0, x >> 15),
            ];
            black_box(la.apply(black_box(&input)).unwrap())
        })
    });
    let mut y = 0u64;
    g.bench_function("apply_values", |bn| {
        bn.iter(|| {
            y = y.wrapping_add(0x9e37_79b9);
            black_box(la.apply_values(black_box(&[y, y >> 5, y >> 10, y >> 15])))
        })
    });

    // compose: registers → shared offsets (A then shared⁻¹).
    let sh_inv = lsh.invert().unwrap();
    g.bench_function("compose", |bn| {
        bn.iter(|| black_box(black_box(la).compose(black_box(&sh_inv)).unwrap()))
    });
    // invert_and_compose: a register → register conversion and a
    // register → shared one, both 16-bit.
    g.bench_function("invert_and_compose/dist_dist", |bn| {
        bn.iter(|| black_box(black_box(lb).invert_and_compose(black_box(la)).unwrap()))
    });
    g.bench_function("invert_and_compose/dist_shared", |bn| {
        bn.iter(|| black_box(black_box(la).invert_and_compose(black_box(lsh)).unwrap()))
    });
    g.bench_function("pseudoinvert", |bn| {
        bn.iter(|| black_box(black_box(la).pseudoinvert().unwrap()))
    });
    g.finish();

    // table(): entries per second.
    let mut t = c.benchmark_group("table");
    for l in [la, lsh] {
        let n = l.total_in_dim_size_log2();
        t.throughput(Throughput::Elements(1u64 << n));
        t.bench_with_input(
            BenchmarkId::from_parameter(format!("{n}bits")),
            l,
            |bn, l| bn.iter(|| black_box(l.table().unwrap())),
        );
    }
    // A 22-bit layout (A times a 6-bit identity), to see the streaming rate.
    let big = la * &LinearLayout::identity_1d(64, DimName::REGISTER, DimName::dim(0));
    t.throughput(Throughput::Elements(1u64 << 22));
    t.bench_with_input(BenchmarkId::from_parameter("22bits"), &big, |bn, l| {
        bn.iter(|| black_box(l.table().unwrap()))
    });
    t.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
