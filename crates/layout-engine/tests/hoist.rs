//! Conversions move up to the producers of multi-operand ops when that is
//! cheaper (the minimum cut of `engine::placement`).

use layout_engine::anchors::Target;
use layout_engine::cost::{total_cost, Pricer};
use layout_engine::engine::{assign, Options};
use layout_engine::{check, parse_program};

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

#[test]
fn dot_operand_conversion_moves_to_the_shared_i8_load() {
    let p = parse_program(NIBBLES).unwrap();
    let mut pricer = Pricer::new();
    let out = assign(
        &p,
        Options {
            target: Target::Sm80,
            num_warps: 4,
        },
        &mut pricer,
    )
    .unwrap();
    assert!(check(&p, &out.assignment).is_empty());
    let priced = pricer.price_all(&p, &out.assignment).unwrap();
    let moved: Vec<&str> = priced
        .iter()
        .filter(|(_, pr)| !pr.trivial())
        .map(|(c, _)| p.values[c.value].name.as_str())
        .collect();
    // B is converted once, at the i8 load; the f16 values keep no
    // conversion of their own.
    assert!(moved.contains(&"%q"), "{moved:?}");
    for v in ["%b", "%lof", "%hif", "%lo", "%hi"] {
        assert!(!moved.contains(&v), "{v} converted: {moved:?}");
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
