//! The reader never panics: truncated, mutated and deeply nested input
//! gives an error naming the problem and its line.

mod common;

use layout_engine::ir::{Def, OpKind};
use layout_engine::{parse_program, EngineError};
use proptest::prelude::*;

const SMALL: &str = "module {
  tt.func public @k(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: i32) {
    %c0_i32 = arith.constant 0 : i32
    %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %3 = tt.load %2 : tensor<128x!tt.ptr<f32>>
    %4 = arith.cmpi sgt, %arg1, %c0_i32 : i32
    %5 = scf.if %4 -> (tensor<128xf32>) {
      %8 = math.exp %3 : tensor<128xf32>
      scf.yield %8 : tensor<128xf32>
    } else {
      scf.yield %3 : tensor<128xf32>
    }
    %6:2 = scf.while (%arg2 = %c0_i32, %arg3 = %5) : (i32, tensor<128xf32>) -> (i32, tensor<128xf32>) {
      %9 = arith.cmpi slt, %arg2, %arg1 : i32
      scf.condition(%9) %arg2, %arg3 : i32, tensor<128xf32>
    } do {
    ^bb0(%arg4: i32, %arg5: tensor<128xf32>):
      %10 = arith.addf %arg5, %arg5 : tensor<128xf32>
      %11 = arith.addi %arg4, %arg1 : i32
      scf.yield %11, %10 : i32, tensor<128xf32>
    }
    %7 = \"tt.reduce\"(%6#1) <{axis = 0 : i32}> ({
    ^bb0(%arg6: f32, %arg7: f32):
      %12 = arith.addf %arg6, %arg7 : f32
      tt.reduce.return %12 : f32
    }) : (tensor<128xf32>) -> f32
    tt.store %2, %6#1 : tensor<128x!tt.ptr<f32>>
    tt.return
  }
}";

#[test]
fn reads_if_while_and_reduce_regions() {
    let p = parse_program(SMALL).unwrap();
    let w = p.ops.iter().position(|o| o.kind == OpKind::While).unwrap();
    assert_eq!(p.ops[w].regions.len(), 2);
    assert_eq!(p.ops[w].operands.len(), 2);
    assert_eq!(p.ops[w].results.len(), 2);
    // The `do` region's block arguments, and loop depth 1 inside it.
    let do_region = &p.ops[w].regions[1];
    assert_eq!(do_region.args.len(), 2);
    assert!(matches!(
        p.values[do_region.args[1]].def,
        Def::RegionArg { region: 1, .. }
    ));
    assert!(do_region.ops.iter().all(|&o| p.ops[o].loop_depth == 1));
    let i = p.ops.iter().position(|o| o.kind == OpKind::If).unwrap();
    assert_eq!(p.ops[i].regions.len(), 2);
    let r = p.ops.iter().position(|o| o.name == "tt.reduce").unwrap();
    assert_eq!(p.values[p.ops[r].results[0]].ty.elem(), "f32");
    assert_eq!(p.walk().len(), p.ops.len());
    // addptr's result has the pointer's type (the first of its two).
    let ap = p.ops.iter().find(|o| o.name == "tt.addptr").unwrap();
    assert_eq!(p.values[ap.results[0]].ty.elem(), "!tt.ptr<f32>");
}

/// `SMALL` as MLIR prints it with debug info: `loc(...)` after every op
/// (and after the `}` closing an op with regions), after each function and
/// block argument, and `#loc` lines at the end.
fn with_locations(text: &str) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_end();
        let located = if t.trim_start().starts_with("tt.func") {
            t.replace(
                "{tt.divisibility = 16 : i32}",
                "{tt.divisibility = 16 : i32} loc(\"a\"(#loc))",
            )
            .replace("%arg1: i32)", "%arg1: i32 loc(\"n\"(#loc)))")
        } else if t.trim_start().starts_with("^bb0") {
            t.replace(": i32,", ": i32 loc(#loc),")
                .replace(": f32,", ": f32 loc(#loc),")
        } else if t.ends_with('{')
            || t.trim() == "module {"
            || t.trim() == "}" && i + 1 == text.lines().count()
        {
            t.to_string()
        } else {
            format!("{t} loc(#loc{i})")
        };
        out.push_str(&located);
        out.push('\n');
    }
    out.push_str("#loc = loc(\"k.py\":1:0)\n#loc3 = loc(\"x\"(#loc))\n");
    out
}

#[test]
fn source_locations_are_read_past() {
    let located = with_locations(SMALL);
    assert!(located.matches("loc(").count() > 20, "{located}");
    let (p, q) = (
        parse_program(SMALL).unwrap(),
        parse_program(&located).unwrap(),
    );
    assert_eq!(p.ops.len(), q.ops.len());
    for (a, b) in p.ops.iter().zip(&q.ops) {
        assert_eq!(
            (&a.name, &a.kind, &a.operands, &a.results),
            (&b.name, &b.kind, &b.operands, &b.results)
        );
    }
    for (a, b) in p.values.iter().zip(&q.values) {
        assert_eq!(
            (a.ty.elem(), a.ty.tensor_shape()),
            (b.ty.elem(), b.ty.tensor_shape()),
            "{}",
            a.name
        );
    }
    assert_eq!(p.arg_divisibility, q.arg_divisibility);
}

#[test]
fn unknown_op_names_op_and_line() {
    let text = SMALL
        .replace("math.exp %3", "%3")
        .replace("%8 = %3", "%8 = tt.frobnicate %3");
    match parse_program(&text) {
        Err(EngineError::UnknownOp { line, op }) => {
            assert_eq!(op, "tt.frobnicate");
            assert_eq!(line, 10);
        }
        other => panic!("expected an unknown-op error, got {other:?}"),
    }
}

#[test]
fn undefined_value_is_named() {
    let text = SMALL.replace("tt.addptr %1, %0", "tt.addptr %1, %99");
    assert!(matches!(
        parse_program(&text),
        Err(EngineError::Undefined { name, line: 6 }) if name == "%99"
    ));
}

#[test]
fn deep_nesting_is_bounded() {
    let mut t = String::from("module {\n tt.func @k(%arg0: i32) {\n");
    let n = 10_000;
    for _ in 0..n {
        t.push_str("scf.if %arg0 {\n");
    }
    for _ in 0..n {
        t.push_str("}\n");
    }
    t.push_str("tt.return\n}\n}\n");
    assert!(matches!(
        parse_program(&t),
        Err(EngineError::TooDeep { .. })
    ));
    // Deeply nested types too.
    let ty = format!(
        "tensor<4xf32, {}{}>",
        "#ttg.slice<{dim = 0, parent = ".repeat(5000),
        "}>".repeat(5000)
    );
    let t = format!("module {{\n tt.func @k(%arg0: {ty}) {{\n tt.return\n }}\n}}\n");
    assert!(parse_program(&t).is_err());
}

fn corpus_texts() -> &'static [String] {
    static TEXTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    TEXTS.get_or_init(|| {
        common::records()
            .iter()
            .take(6)
            .map(|r| r["ttgir_pre_pipeline"].as_str().unwrap().to_string())
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any prefix of a real program reads or fails cleanly.
    #[test]
    fn truncated_input_never_panics(k in 0usize..6, cut in 0.0f64..1.0) {
        let texts = corpus_texts();
        let t = &texts[k];
        let mut n = (t.len() as f64 * cut) as usize;
        while !t.is_char_boundary(n) { n -= 1; }
        let _ = parse_program(&t[..n]);
    }

    /// Random byte edits of a real program read or fail cleanly.
    #[test]
    fn mutated_input_never_panics(
        k in 0usize..6,
        edits in proptest::collection::vec((0.0f64..1.0, prop::sample::select(vec!["", "{", "}", "(", ")", "<", ">", "%", ":", " = ", "#", "x", "0", "\n", "^bb0(", "->", ","])), 1..8),
    ) {
        let texts = corpus_texts();
        let mut t = texts[k].clone();
        for (pos, ins) in edits {
            let mut n = (t.len() as f64 * pos) as usize;
            while !t.is_char_boundary(n) { n -= 1; }
            let mut end = (n + 3).min(t.len());
            while !t.is_char_boundary(end) { end -= 1; }
            t.replace_range(n..end, ins);
        }
        let _ = parse_program(&t);
    }

    /// Arbitrary text reads or fails cleanly.
    #[test]
    fn arbitrary_text_never_panics(s in "[ -~\n]{0,400}") {
        let _ = parse_program(&s);
    }
}
