//! The compute term (`layout_engine::compute`) on small TTGIR kernels
//! whose instructions per thread are counted by hand below.
//!
//! Units: ALU warp instructions per thread (one per register of an
//! elementwise op, two for a 64-bit pointer, four for a transcendental or
//! a division by a tensor, two per vector load or store), cycles = that /
//! 2 (`layout_codegen::cost::ALU_PER_CYCLE`), ×10 per enclosing loop.

mod common;

use layout_engine::anchors::Target;
use layout_engine::compute::{compute_cost, compute_terms, registers};
use layout_engine::cost::Pricer;
use layout_engine::engine::{assign, Options};
use layout_engine::{parse_program, Assignment};

/// `n` f16 elements loaded, widened, `exp`ed and stored as f32, in
/// layout `layout`.
fn kernel(n: u64, layout: &str) -> String {
    format!(
        "#blocked = {layout}
module attributes {{\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 32 : i32}} {{
  tt.func public @k(%arg0: !tt.ptr<f16> {{tt.divisibility = 16 : i32}}, %arg1: !tt.ptr<f32> {{tt.divisibility = 16 : i32}}) {{
    %0 = tt.make_range {{end = {n} : i32, start = 0 : i32}} : tensor<{n}xi32, #blocked>
    %1 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<{n}x!tt.ptr<f16>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<{n}x!tt.ptr<f16>, #blocked>, tensor<{n}xi32, #blocked>
    %3 = tt.load %2 : tensor<{n}x!tt.ptr<f16>, #blocked>
    %4 = arith.extf %3 : tensor<{n}xf16, #blocked> to tensor<{n}xf32, #blocked>
    %5 = math.exp %4 : tensor<{n}xf32, #blocked>
    %6 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<{n}x!tt.ptr<f32>, #blocked>
    %7 = tt.addptr %6, %0 : tensor<{n}x!tt.ptr<f32>, #blocked>, tensor<{n}xi32, #blocked>
    tt.store %7, %5 : tensor<{n}x!tt.ptr<f32>, #blocked>
    tt.return
  }}
}}"
    )
}

const FOUR: &str =
    "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>";
const ONE: &str =
    "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>";

fn cost(text: &str) -> f64 {
    let p = parse_program(text).unwrap();
    let a = Assignment::from_types(&p).unwrap();
    compute_cost(&p, &a).unwrap()
}

/// 512 elements, 4 per thread on 128 threads: `make_range` 4, the two
/// pointer additions 2 × 8 (64-bit), `extf` 4, `exp` 4 × 4 = 16, the load
/// (4 contiguous f16, aligned to 16 bytes: one vector) 2 and the store
/// (4 f32, one 128-bit vector) 2: 44 instructions, **22** cycles.
///
/// 128 elements in the same layout: the 4 warps each hold the whole
/// tensor (the layout's tile is 512), still 4 registers per thread:
/// **22** again, the replication repeating the work. In the layout of 1
/// per thread (no replication): `make_range` 1, pointers 2 × 2, `extf`
/// 1, `exp` 4, one scalar load and one scalar store (2 + 2): 14
/// instructions, **7** cycles.
///
/// Planted mutation (run when this test was written): counting registers
/// as elements / threads (ignoring replication) made the replicated
/// kernel cost 7 and this test failed.
#[test]
fn replication_multiplies_the_work() {
    assert_eq!(cost(&kernel(512, FOUR)), 22.0);
    assert_eq!(cost(&kernel(128, FOUR)), 22.0);
    assert_eq!(cost(&kernel(128, ONE)), 7.0);
}

/// A loop body's ops count ×10, and a division by a splat constant is a
/// multiplication (Triton computes the reciprocal once) while one by a
/// tensor is not. 512 elements, 4 per thread: before the loop
/// `make_range` 4, pointers 8, load 2, `extf` 4 (18 instructions, 9
/// cycles); in the loop `divf` by the splat 4, `divf` by the tensor 4 × 4
/// = 16, `exp` 16: 36 instructions, 18 cycles, ×10 = 180; after it the
/// store's pointers 8 and the store 2: 5 cycles. Total **194**.
#[test]
fn loops_weigh_and_divisions_by_a_splat_are_multiplications() {
    let text = format!(
        "#blocked = {FOUR}
module attributes {{\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 32 : i32}} {{
  tt.func public @k(%arg0: !tt.ptr<f16> {{tt.divisibility = 16 : i32}}, %arg1: !tt.ptr<f32> {{tt.divisibility = 16 : i32}}, %arg2: i32) {{
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %cst = arith.constant dense<3.000000e+00> : tensor<512xf32, #blocked>
    %0 = tt.make_range {{end = 512 : i32, start = 0 : i32}} : tensor<512xi32, #blocked>
    %1 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<512x!tt.ptr<f16>, #blocked>, tensor<512xi32, #blocked>
    %3 = tt.load %2 : tensor<512x!tt.ptr<f16>, #blocked>
    %4 = arith.extf %3 : tensor<512xf16, #blocked> to tensor<512xf32, #blocked>
    %5 = scf.for %i = %c0 to %arg2 step %c1 iter_args(%acc = %4) -> (tensor<512xf32, #blocked>)  : i32 {{
      %a = arith.divf %acc, %cst : tensor<512xf32, #blocked>
      %b = arith.divf %a, %4 : tensor<512xf32, #blocked>
      %e = math.exp %b : tensor<512xf32, #blocked>
      scf.yield %e : tensor<512xf32, #blocked>
    }}
    %6 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %7 = tt.addptr %6, %0 : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    tt.store %7, %5 : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }}
}}"
    );
    assert_eq!(cost(&text), 194.0);
    // Every term names its op; the loop's three are the only weighted ones.
    let p = parse_program(&text).unwrap();
    let a = Assignment::from_types(&p).unwrap();
    let in_loop: Vec<(String, f64)> = compute_terms(&p, &a)
        .unwrap()
        .into_iter()
        .filter(|t| p.ops[t.op].loop_depth == 1)
        .map(|t| (p.ops[t.op].name.clone(), t.cycles))
        .collect();
    assert_eq!(
        in_loop,
        [
            ("arith.divf".to_string(), 20.0),
            ("arith.divf".to_string(), 80.0),
            ("math.exp".to_string(), 80.0)
        ]
    );
}

/// The sm80 int4 GEMM (`int4_gemm.sm80.w8.s3.BK=64,BM=64,BN=128`, 8
/// warps, mma `[2, 4]`): B (64×128) is dequantised from packed `i32`
/// (shift, mask, `sitofp`, zero point, scale). In B's dot-operand layout
/// it is replicated over the 2 warps along M: 64 × 128 × 2 / 256 = 64
/// registers per thread, against 32 without replication. The engine
/// used to recompute the dequantisation there (every element converted
/// twice: `cvt.rn.f32.u32` 64 per thread, and 0.81× Triton's time on the
/// H200); with the compute term it dequantises in 32 registers and
/// converts the `f16` result into the dot operand, as Triton does.
#[test]
fn int4_gemm_dequantises_once() {
    let r = common::record(
        "seed11.jsonl",
        "int4_gemm.sm80.w8.s3.BK=64,BM=64,BN=128,DT=fp16",
    );
    let p = parse_program(r["ttir"].as_str().unwrap()).unwrap();
    let opts = Options::new(Target::Sm80, 8);
    let mut pricer = Pricer::new();
    let out = assign(&p, opts, &mut pricer).unwrap();
    let convert = p.ops.iter().position(|o| o.name == "arith.sitofp").unwrap();
    let l = out.assignment.layout(p.ops[convert].results[0]).unwrap();
    assert_eq!(registers(&l.ll), 32);
    // B reaches the dot by a conversion of the dequantised f16 value.
    let dot = p.ops.iter().position(|o| o.name == "tt.dot").unwrap();
    let priced = pricer.price_all(&p, &out.assignment).unwrap();
    let b = priced
        .iter()
        .find(|(c, _)| c.op == dot && c.value == p.ops[dot].operands[1])
        .expect("B converted at the dot");
    assert_eq!(p.values[b.0.value].ty.elem(), "f16");
    assert_eq!(registers(&b.0.dst.ll), 64);
}

/// MLIR's CSE merges identical ops before the code runs, so a TTGIR that
/// repeats an index chain pays for it once: two `make_range`s and two
/// `addi`s that are the same after merging count as one each. Each op is
/// 256 / 128 = 2 registers per thread, one ALU instruction each, at 2 warp
/// instructions per cycle: 1 cycle per distinct op, 2 in all (4 if the
/// duplicates were counted).
#[test]
fn identical_ops_count_once() {
    let text = "#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 32 : i32} {
  tt.func public @k(%arg0: !tt.ptr<i32>) {
    %0 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %1 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %2 = arith.addi %0, %0 : tensor<256xi32, #blocked>
    %3 = arith.addi %1, %1 : tensor<256xi32, #blocked>
    tt.return
  }
}";
    let p = parse_program(text).unwrap();
    let a = Assignment::from_types(&p).unwrap();
    assert_eq!(compute_cost(&p, &a).unwrap(), 2.0);
    // Different operands are different ops.
    let distinct = text.replace("%3 = arith.addi %1, %1", "%3 = arith.addi %1, %2");
    let p = parse_program(&distinct).unwrap();
    let a = Assignment::from_types(&p).unwrap();
    assert_eq!(compute_cost(&p, &a).unwrap(), 3.0);
}

/// The register run by its definition, on unpacked bases: basis `k` is
/// `2^k` along the out dim where basis 0 is 1, zero along the others.
fn run_by_definition(l: &linear_layout::LinearLayout) -> (u64, Option<usize>) {
    use linear_layout::DimName;
    let bases = l.bases(DimName::REGISTER);
    let Some(dim) = bases.first().and_then(|b| b.iter().position(|&x| x == 1)) else {
        return (1, None);
    };
    let mut run = 1;
    for (k, b) in bases.iter().enumerate() {
        let unit = (0..b.len()).all(|d| b[d] == if d == dim { 1 << k } else { 0 });
        if !unit {
            break;
        }
        run <<= 1;
    }
    (run, Some(dim))
}

proptest::proptest! {
    /// `register_run` (packed bases) equals its definition on random
    /// register bases over two out dims: unit steps, zeros (broadcast) and
    /// arbitrary vectors, including steps past an out dim's size.
    #[test]
    fn register_run_is_its_definition(
        logs in (1u32..5, 1u32..5),
        picks in proptest::collection::vec((0u8..4, 0u64..16, 0u64..16), 0..6),
    ) {
        use linear_layout::{DimName, LinearLayout};
        let (a, b) = logs;
        let regs: Vec<Vec<u64>> = picks
            .iter()
            .enumerate()
            .map(|(k, &(kind, x, y))| match kind {
                0 => vec![(1u64 << k) % (1 << a), 0],
                1 => vec![0, (1u64 << k) % (1 << b)],
                2 => vec![0, 0],
                _ => vec![x % (1 << a), y % (1 << b)],
            })
            .collect();
        let l = LinearLayout::new(
            vec![(DimName::REGISTER, regs)],
            vec![(DimName::dim(0), 1 << a), (DimName::dim(1), 1 << b)],
            false,
        )
        .unwrap();
        proptest::prop_assert_eq!(
            layout_engine::compute::register_run(&l),
            run_by_definition(&l)
        );
    }
}
