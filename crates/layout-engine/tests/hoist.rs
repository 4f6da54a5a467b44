//! Conversions move up to the producers of multi-operand ops when that is
//! cheaper (the minimum cut of `engine::placement`).

use layout_engine::anchors::Target;
use layout_engine::assignment::Conversion;
use layout_engine::cost::{total_cost, Price, Pricer};
use layout_engine::engine::{assign, EngineOutput, Options};
use layout_engine::{check, parse_program, Program};

/// A packed `i8` tensor, unpacked into two `f16` nibble tensors that are
/// added and fed to a dot as B: the dot-operand conversion goes to the one
/// `i8` load both branches share (half the bytes of an `f16`, converted
/// once), not to the `f16` sum, nor to each branch.
const NIBBLES: &str = "module {
  tt.func public @k(%arg0: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %c64 = arith.constant dense<64> : tensor<64x1xi32>
    %c15 = arith.constant dense<15> : tensor<64x64xi8>
    %c4 = arith.constant dense<4> : tensor<64x64xi8>
    %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %r0 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %row = arith.muli %r0, %c64 : tensor<64x1xi32>
    %rb = tt.broadcast %row : tensor<64x1xi32> -> tensor<64x64xi32>
    %r1 = tt.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cb = tt.broadcast %r1 : tensor<1x64xi32> -> tensor<64x64xi32>
    %off = arith.addi %rb, %cb : tensor<64x64xi32>
    %pa = tt.splat %arg1 : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
    %pa2 = tt.addptr %pa, %off : tensor<64x64x!tt.ptr<f16>>, tensor<64x64xi32>
    %a = tt.load %pa2 : tensor<64x64x!tt.ptr<f16>>
    %pq = tt.splat %arg0 : !tt.ptr<i8> -> tensor<64x64x!tt.ptr<i8>>
    %pq2 = tt.addptr %pq, %off : tensor<64x64x!tt.ptr<i8>>, tensor<64x64xi32>
    %q = tt.load %pq2 : tensor<64x64x!tt.ptr<i8>>
    %lo = arith.andi %q, %c15 : tensor<64x64xi8>
    %hi = arith.shrui %q, %c4 : tensor<64x64xi8>
    %lof = arith.uitofp %lo : tensor<64x64xi8> to tensor<64x64xf16>
    %hif = arith.uitofp %hi : tensor<64x64xi8> to tensor<64x64xf16>
    %b = arith.addf %lof, %hif : tensor<64x64xf16>
    %d = tt.dot %a, %b, %z : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %po = tt.splat %arg2 : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
    %po2 = tt.addptr %po, %off : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
    tt.store %po2, %d : tensor<64x64x!tt.ptr<f32>>
    tt.return
  }
}";

/// [`NIBBLES`] assigned for sm80 on `num_warps` warps (the assignment
/// passes the checker), with every conversion priced and the names of the
/// values whose conversion moves data.
struct Assigned {
    p: Program,
    out: EngineOutput,
    pricer: Pricer,
    priced: Vec<(Conversion, Price)>,
    moved: Vec<String>,
}

fn assigned(num_warps: u64) -> Assigned {
    let p = parse_program(NIBBLES).unwrap();
    let mut pricer = Pricer::new();
    let out = assign(&p, Options::new(Target::Sm80, num_warps), &mut pricer).unwrap();
    assert!(check(&p, &out.assignment).is_empty());
    let priced = pricer.price_all(&p, &out.assignment).unwrap();
    let moved = priced
        .iter()
        .filter(|(_, pr)| !pr.trivial())
        .map(|(c, _)| p.values[c.value].name.clone())
        .collect();
    Assigned {
        p,
        out,
        pricer,
        priced,
        moved,
    }
}

/// On 2 warps AccelerateMatmul puts both warps along N (`[1, 2]`: 8
/// column tiles against 4 row tiles), so B's dot-operand layout is not
/// replicated: the dequantisation recomputed in it holds 32 registers per
/// thread as in the load's layout, and the compute term
/// (`layout_engine::compute`) does not change.
#[test]
fn dot_operand_conversion_moves_to_the_shared_i8_load() {
    let Assigned {
        p,
        out,
        mut pricer,
        priced,
        moved,
    } = assigned(2);
    // B is converted once, at the i8 load; the f16 values keep no
    // conversion of their own.
    assert!(moved.iter().any(|m| m == "%q"), "{moved:?}");
    for v in ["%b", "%lof", "%hif", "%lo", "%hi"] {
        assert!(!moved.iter().any(|m| m == v), "{v} converted: {moved:?}");
    }
    // Independent check of the choice: converting the f16 sum where the
    // dot uses it would cost more than what the engine placed for B.
    let q = p.values.iter().position(|v| v.name == "%q").unwrap();
    let b = p.values.iter().position(|v| v.name == "%b").unwrap();
    let (conv_q, _) = priced.iter().find(|(c, _)| c.value == q).unwrap();
    let b_old = out.assignment.layout(q).unwrap(); // the load's layout: where %b would sit
    let f16 = pricer.price(&b_old.ll, &conv_q.dst.ll, 16).unwrap().cycles;
    let i8 = pricer.price(&b_old.ll, &conv_q.dst.ll, 8).unwrap().cycles;
    assert!(i8 < f16, "i8 {i8} vs f16 {f16}");
    assert_eq!(
        out.assignment.layout(b).unwrap().ll,
        conv_q.dst.ll,
        "the sum is recomputed in the dot-operand layout"
    );
    assert!(total_cost(&priced) > 0.0);
    // `--explain` shows the hoist: the placement chosen, cheaper than
    // converting the sum where the dot uses it.
    let d = out
        .decisions
        .iter()
        .find(|d| d.op == "hoist into tt.dot" && d.value == "%b")
        .expect("a hoist decision for B");
    assert_eq!(d.chosen, 0);
    assert!(d.candidates[0].0.contains("%q"), "{:?}", d.candidates);
    assert!(d.candidates[0].1 < d.candidates[1].1, "{:?}", d.candidates);
    assert_eq!(
        d.candidates[0].1,
        priced
            .iter()
            .find(|(c, _)| c.value == q)
            .map(|(c, pr)| layout_engine::cost::weighted(pr.cycles, c.depth))
            .unwrap()
    );
}

/// The same kernel on 4 warps: AccelerateMatmul's `[2, 2]` replicates B's
/// dot-operand layout over the 2 warps along M (64 registers per thread
/// against 32 in the load's layout). Recomputing the dequantisation there
/// repeats its five elementwise ops (`andi`, `shrui`, two `uitofp`,
/// `addf`, one ALU instruction per register each, `layout_engine::compute`)
/// on 32 more registers: 160 instructions, 80 cycles at 2 per cycle, more
/// than the conversion of the `i8` load saves over converting the `f16`
/// sum. The engine converts the sum (as Triton converts the dequantised B
/// of the sm80 int4 GEMM) and keeps the dequantisation in the load's
/// layout.
#[test]
fn replicated_dot_operand_keeps_the_dequantisation_in_the_load_layout() {
    use layout_engine::compute::{compute_cost, registers};
    let Assigned {
        p,
        out,
        mut pricer,
        priced,
        moved,
    } = assigned(4);
    assert!(moved.iter().any(|m| m == "%b"), "{moved:?}");
    assert!(!moved.iter().any(|m| m == "%q"), "{moved:?}");
    let id = |n: &str| p.values.iter().position(|v| v.name == n).unwrap();
    let (conv_b, pr_b) = priced.iter().find(|(c, _)| c.value == id("%b")).unwrap();
    let load = out.assignment.layout(id("%q")).unwrap();
    assert_eq!(registers(&load.ll), 32);
    assert_eq!(registers(&conv_b.dst.ll), 64);
    for v in ["%lo", "%hi", "%lof", "%hif", "%b"] {
        assert_eq!(out.assignment.layout(id(v)).unwrap().ll, load.ll, "{v}");
    }
    // The alternative, priced independently: the i8 load converted into
    // B's layout plus the 80 cycles of repeated dequantisation.
    let i8 = pricer.price(&load.ll, &conv_b.dst.ll, 8).unwrap().cycles;
    assert!(
        i8 + 80.0 > pr_b.cycles,
        "i8 {i8} + 80 vs f16 {}",
        pr_b.cycles
    );
    assert!(i8 < pr_b.cycles, "the hoist alone would save");
    // The hoisted assignment's compute term is 80 cycles more: recompute
    // the five values in B's layout and compare.
    let mut hoisted = out.assignment.clone();
    for v in ["%lo", "%hi", "%lof", "%hif", "%b"] {
        hoisted.layouts[id(v)] = Some(conv_b.dst.clone());
    }
    let dot = p.ops.iter().position(|o| o.name == "tt.dot").unwrap();
    hoisted.uses.remove(&(dot, 1));
    assert_eq!(
        compute_cost(&p, &hoisted).unwrap() - compute_cost(&p, &out.assignment).unwrap(),
        80.0
    );
}
