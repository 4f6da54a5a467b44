//! Triton's lowering of `tt.gather` as the engine models it
//! (`engine::gather_lowering`), and the engine's choice of a gather's
//! layout by it (`engine::search`, step 4).
//!
//! * Every count of the model equals what Triton 3.9 emitted for 14
//!   minimal gather kernels (`tests/data/gather_ptx.tsv`, made by
//!   `tools/gather_ptx.py`): the path, `shfl.sync.idx`, `selp`,
//!   `st.shared`, `ld.shared`, `bar.sync`.
//! * The costs of both paths, derived by hand from the rules for small
//!   cases; the expected load wavefronts against a brute-force mean.
//! * The lane layout is Triton's `efficient_layout` on every gather record.
//! * The gather records choose what the H200 measured faster.

mod common;

use hw_layouts::Encoding;
use layout_engine::engine::assign;
use layout_engine::engine::gather::{gather_cycles, lane_encoding};
use layout_engine::engine::gather_lowering::{triton_gather, GatherPath};
use layout_engine::{cost::Pricer, parse_program, Layout};
use linear_layout::DimName;

fn layout(text: &str, shape: &[u64]) -> Layout {
    Layout::new(Encoding::parse(text).unwrap(), shape).unwrap()
}

fn shape(s: &str) -> Vec<u64> {
    s.split('x').map(|x| x.parse().unwrap()).collect()
}

fn bits(dtype: &str) -> u32 {
    match dtype {
        "f16" | "bf16" | "i16" => 16,
        "f32" | "i32" => 32,
        "f64" | "i64" => 64,
        "i8" => 8,
        other => panic!("dtype {other}"),
    }
}

fn blocked(spt: [u64; 2], tpw: [u64; 2], wpc: [u64; 2]) -> String {
    format!(
        "#ttg.blocked<{{sizePerThread = [{}, {}], threadsPerWarp = [{}, {}], warpsPerCTA = [{}, {}], order = [1, 0]}}>",
        spt[0], spt[1], tpw[0], tpw[1], wpc[0], wpc[1]
    )
}

/// The model's counts are Triton's PTX counts, kernel by kernel.
#[test]
fn counts_are_tritons_ptx() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gather_ptx.tsv"
    ))
    .unwrap();
    let mut lines = text.lines();
    let cols: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let mut n = 0;
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        let get = |c: &str| f[cols.iter().position(|&x| x == c).unwrap()];
        let num = |c: &str| get(c).parse::<u64>().unwrap();
        let s = layout(get("src_layout"), &shape(get("src_shape")));
        let i = layout(get("idx_layout"), &shape(get("idx_shape")));
        let axis = get("axis").parse().unwrap();
        let g = triton_gather(&s.ll, &i.ll, axis, bits(get("dtype"))).unwrap();
        let name = get("name");
        let shared = num("scratch_bytes") > 0;
        assert_eq!(g.path == GatherPath::Shared, shared, "{name}: path");
        assert_eq!(g.shuffles, num("shfl"), "{name}: shfl.sync.idx");
        assert_eq!(g.selects, num("selp"), "{name}: selp");
        assert_eq!(g.stores, num("st_shared"), "{name}: st.shared");
        assert_eq!(g.loads, num("ld_shared"), "{name}: ld.shared");
        assert_eq!(g.barriers, num("bar_sync"), "{name}: bar.sync");
        n += 1;
    }
    assert_eq!(n, 14);
}

/// Warp-local, by hand: a 32x32 fp16 gather along dim 1 in
/// `sizePerThread = [1, 8], threadsPerWarp = [8, 4]`, one warp. The axis
/// (32) is 8 registers x 4 lanes, so one column holds R = 8 of a thread's
/// registers; 32 x 32 / 32 lanes = 32 index registers, each 8 shuffles and
/// 7 compares and selects: 256 shuffles, 224 + 224 ALU instructions = 112
/// cycles at 2 per cycle, below the 256 of the shuffles: 256 cycles. In
/// the lane layout (`threadsPerWarp = [1, 32]`) R = 1: 32 shuffles, 32
/// cycles. A 64-bit element doubles shuffles and selects.
#[test]
fn warp_local_by_hand() {
    let regs = layout(&blocked([1, 8], [8, 4], [1, 1]), &[32, 32]);
    let g = triton_gather(&regs.ll, &regs.ll, 1, 16).unwrap();
    assert_eq!((g.path, g.regs_per_column), (GatherPath::WarpLocal, 8));
    assert_eq!((g.shuffles, g.compares, g.selects), (256, 224, 224));
    assert_eq!(g.cycles(), 256.0);
    let lanes = layout(&blocked([1, 1], [1, 32], [1, 1]), &[32, 32]);
    assert_eq!(gather_cycles(&lanes.ll, &lanes.ll, 1, 16).unwrap(), 32.0);
    // f64, `sizePerThread = [1, 2], threadsPerWarp = [2, 16]`: R = 2, 32
    // index registers: 32 x 2 x 2 words = 128 shuffles, 32 compares, 64
    // selects.
    let f64 = layout(&blocked([1, 2], [2, 16], [1, 1]), &[32, 32]);
    let g = triton_gather(&f64.ll, &f64.ll, 1, 64).unwrap();
    assert_eq!((g.shuffles, g.compares, g.selects), (128, 32, 64));
    // 32 candidates: `sizePerThread = [1, 32], threadsPerWarp = [32, 1]`:
    // the axis all in registers, 32 index registers (one row each), each
    // 32 shuffles and 31 compares and selects: 1024 shuffles against ALU
    // 2 x 31 x 32 / 2 = 992: 1024 cycles.
    let deep = layout(&blocked([1, 32], [32, 1], [1, 1]), &[32, 32]);
    let g = triton_gather(&deep.ll, &deep.ll, 1, 32).unwrap();
    assert_eq!((g.shuffles, g.selects), (32 * 32, 32 * 31));
    assert_eq!(g.cycles(), 1024.0);
}

/// Shared memory, by hand: 64x32 fp32 gathered along dim 0 with the two
/// warps along dim 0 (`threadsPerWarp = [1, 32], warpsPerCTA = [2, 1]`):
/// not warp-local. Each of the 32 source registers is one row of 32
/// consecutive words written by the 32 lanes: 1 wavefront each, 32. Each
/// of the 32 index registers reads word `v · 32 + lane` for whatever row
/// `v`: bank `lane`, 1 wavefront each, 32. Plus one barrier (4 cycles):
/// 68. The source's lanes differing from the index's off the axis make it
/// shared too: 16x64 fp16 in `threadsPerWarp = [4, 8]` against a 16x32
/// index in `[8, 4]`: each store of one register puts 8 lanes on each of
/// 4 rows 128 bytes (32 words) apart, 16 bytes apart within a row: 8
/// banks, each with one word of each row: 4 wavefronts, 16 registers: 64.
#[test]
fn shared_by_hand() {
    let l = layout(&blocked([1, 1], [1, 32], [2, 1]), &[64, 32]);
    let g = triton_gather(&l.ll, &l.ll, 0, 32).unwrap();
    assert_eq!(g.path, GatherPath::Shared);
    assert_eq!((g.stores, g.loads, g.barriers), (32, 32, 1));
    assert_eq!((g.store_wavefronts, g.load_wavefronts), (32.0, 32.0));
    assert_eq!(g.cycles(), 68.0);
    let src = layout(&blocked([1, 8], [4, 8], [2, 1]), &[16, 64]);
    let idx = layout(&blocked([1, 8], [8, 4], [2, 1]), &[16, 32]);
    let g = triton_gather(&src.ll, &idx.ll, 1, 16).unwrap();
    assert_eq!(g.path, GatherPath::Shared);
    assert_eq!((g.stores, g.store_wavefronts), (16, 64.0));
}

/// The expected load wavefronts of the shared path against a brute-force
/// mean with another generator: 16x32 fp16 indices (`threadsPerWarp =
/// [8, 4]`, 2 warps) reading a 16x64 source along dim 1, every index
/// uniform in 0..64: each lane reads the 2-byte element `row · 64 + v`.
#[test]
fn expected_loads_match_brute_force() {
    let src = layout(&blocked([1, 8], [4, 8], [2, 1]), &[16, 64]);
    let idx = layout(&blocked([1, 8], [8, 4], [2, 1]), &[16, 32]);
    let g = triton_gather(&src.ll, &idx.ll, 1, 16).unwrap();
    let mut state = 0x2545_f491_u64;
    let mut next = |n: u64| {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    };
    let draws = 4000;
    let mut total = 0u64;
    let regs = idx.ll.in_dim_size(DimName::REGISTER);
    for _ in 0..draws {
        for w in 0..2 {
            for r in 0..regs {
                let mut words: Vec<u64> = (0..32)
                    .map(|l| {
                        let c = idx
                            .ll
                            .apply(&[
                                (DimName::REGISTER, r),
                                (DimName::LANE, l),
                                (DimName::WARP, w),
                                (DimName::BLOCK, 0),
                            ])
                            .unwrap();
                        (c[0].1 * 64 + next(64)) * 2 / 4
                    })
                    .collect();
                words.sort_unstable();
                words.dedup();
                let mut per_bank = [0u64; 32];
                for x in words {
                    per_bank[(x % 32) as usize] += 1;
                }
                total += per_bank.into_iter().max().unwrap();
            }
        }
    }
    let mean = total as f64 / (draws * 2) as f64;
    let rel = (g.load_wavefronts - mean).abs() / mean;
    assert!(rel < 0.05, "model {} brute force {mean}", g.load_wavefronts);
}

/// A gather's `efficient_layout` in a TTGIR: the encoding's text, the
/// source and index shapes, the axis.
struct Efficient {
    text: String,
    src: Vec<u64>,
    idx: Vec<u64>,
    axis: usize,
}

/// The gather's alias in a TTGIR: the encoding of its `efficient_layout`.
fn efficient_layout(ttgir: &str) -> Option<Efficient> {
    let line = ttgir
        .lines()
        .find(|l| l.contains("tt.gather") && l.contains("efficient_layout"))?;
    let axis = line
        .split("axis = ")
        .nth(1)?
        .split(' ')
        .next()?
        .parse()
        .ok()?;
    let types = line.split(" : (").nth(1)?;
    let tensor = |t: &str| -> Option<(Vec<u64>, String)> {
        let body = t.split("tensor<").nth(1)?;
        let (dims, alias) = body.split_once(", ")?;
        let mut parts: Vec<&str> = dims.split('x').collect();
        parts.pop();
        let alias = alias.split('>').next()?.to_string();
        Some((parts.iter().map(|d| d.parse().unwrap()).collect(), alias))
    };
    let mut ts = types
        .split("tensor<")
        .skip(1)
        .map(|t| format!("tensor<{t}"));
    let (src_shape, alias) = tensor(&ts.next()?)?;
    let (idx_shape, _) = tensor(&ts.next()?)?;
    let def = ttgir
        .lines()
        .find(|l| l.starts_with(&format!("{alias} = ")))?
        .split_once(" = ")?
        .1
        .to_string();
    Some(Efficient {
        text: def,
        src: src_shape,
        idx: idx_shape,
        axis,
    })
}

/// On every gather record whose Triton TTGIR marks an `efficient_layout`,
/// [`lane_encoding`] (sources in row-major order, as all these records'
/// are) is Triton's.
#[test]
fn lane_encoding_is_tritons_efficient_layout() {
    let mut n = 0;
    for r in common::records() {
        if !common::id(&r).starts_with("gather.") {
            continue;
        }
        let ttgir = r["ttgir_pre_pipeline"].as_str().unwrap();
        let Some(e) = efficient_layout(ttgir) else {
            continue;
        };
        let nw = r["options"]["num_warps"].as_u64().unwrap();
        let ours = lane_encoding(&e.src, &e.idx, &[1, 0], e.axis, nw, 32);
        assert_eq!(ours.to_mlir(), e.text, "{}", common::id(&r));
        n += 1;
    }
    // Five in sample, seed 11 and seed 23 together, two in seed 59, two in
    // seed 97.
    assert_eq!(n, 9);
}

/// The gather records choose the layout the H200 measured faster
/// (`bench/engine-gpu/results/2026-11-25-h200/report.md`: Triton's lane
/// layout over the index's own by 1/0.888, 1/0.804, 1/0.900 and 1/0.865;
/// the index's own over the lane layout by 1.064), except the last, where
/// the model calls the two within 3% (`bench/engine-gpu/README.md`, known
/// limits).
#[test]
fn gather_records_choose_the_faster_layout() {
    // (id, lane layout faster on the GPU)
    let measured = [
        ("gather.sm90.w2.AXIS=1,DT=fp16,MNK=16x64x32", true),
        ("gather.sm80.w1.AXIS=1,DT=fp32,MNK=32x32x32", false),
        ("gather.sm80.w1.AXIS=1,DT=fp16,MNK=32x32x32", true),
        ("gather.sm80.w2.AXIS=1,DT=fp16,MNK=16x64x32", true),
    ];
    let close = "gather.sm90.w4.AXIS=1,DT=fp32,MNK=128x32x8";
    let mut pricer = Pricer::new();
    let mut seen = 0;
    for r in common::records() {
        let id = common::id(&r);
        let p = parse_program(r["ttir"].as_str().unwrap()).unwrap();
        let opts = common::options(&r);
        let want = measured.iter().find(|(m, _)| *m == id).map(|m| m.1);
        if want.is_none() && id != close {
            continue;
        }
        let out = assign(&p, opts, &mut pricer).unwrap();
        let d = out
            .decisions
            .iter()
            .find(|d| d.op == "tt.gather layout")
            .unwrap_or_else(|| panic!("{id}: no gather decision"));
        let (idx_cost, lane_cost) = (d.candidates[0].1, d.candidates[1].1);
        match want {
            Some(lane) => assert_eq!(
                d.chosen == 1,
                lane,
                "{id}: index layout {idx_cost}, lane layout {lane_cost}"
            ),
            None => assert!(
                (idx_cost - lane_cost).abs() / lane_cost < 0.05,
                "{id}: index layout {idx_cost}, lane layout {lane_cost}"
            ),
        }
        seen += 1;
    }
    assert_eq!(seen, 5);
}
