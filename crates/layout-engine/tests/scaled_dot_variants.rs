//! `tt.dot_scaled` of every element kind Triton 3.9 compiles, against the
//! dot Triton decomposes it into (`tests/data/scaled_dot_variants.ndjson`,
//! made by `tools/scaled_dot_variants.py`): where the engine prints the
//! decomposition, its dot has Triton's operand and result types (aliases
//! resolved) and the printed program reads back and passes the checker;
//! where it keeps `tt.dot_scaled` (fp16 compute, both sides scaled), its
//! anchor is Triton's accumulator layout.

use layout_engine::anchors::Target;
use layout_engine::cost::Pricer;
use layout_engine::engine::{assign, Options};
use layout_engine::ir::OpKind;
use layout_engine::scaled_dot::scaled_dot_layout;
use layout_engine::ttgir::print_ttgir;
use layout_engine::{check, parse_program, Assignment};
use serde_json::Value;

fn variants() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/scaled_dot_variants.ndjson"
    );
    std::fs::read_to_string(path)
        .expect("the variants file")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// `text` with every alias of `aliases` replaced by its definition.
fn resolve(mut text: String, aliases: &[(String, String)]) -> String {
    for _ in 0..4 {
        for (name, def) in aliases {
            let mut out = String::new();
            let mut rest = text.as_str();
            while let Some(i) = rest.find(name.as_str()) {
                let after = &rest[i + name.len()..];
                let whole = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
                out.push_str(&rest[..i]);
                out.push_str(if whole { def } else { name });
                rest = after;
            }
            out.push_str(rest);
            text = out;
        }
    }
    text
}

#[test]
fn scaled_dots_decompose_into_tritons_dot() {
    let mut pricer = Pricer::new();
    let (mut printed, mut kept) = (0, 0);
    let mut bad = Vec::new();
    for r in variants() {
        let name = format!(
            "{} x {} ({}{}) {} w{}",
            r["lhs"], r["rhs"], r["lhs_scaled"], r["rhs_scaled"], r["target"], r["num_warps"]
        );
        let target = Target::parse(r["target"].as_str().unwrap()).unwrap();
        let nw = r["num_warps"].as_u64().unwrap();
        let ttir = r["ttir"].as_str().unwrap();
        let p = parse_program(ttir).unwrap();
        let opts = Options::new(target, nw);
        let out = assign(&p, opts, &mut pricer).unwrap();
        let g = print_ttgir(&p, ttir, &out.assignment, target, nw).unwrap();
        let theirs = r["dot_types"].as_str().unwrap();
        if g.text.contains("tt.dot_scaled") {
            kept += 1;
            // The anchor: the accumulator of Triton's dot (of the
            // transposed product when only B is scaled).
            let o = (0..p.ops.len())
                .find(|&o| p.ops[o].kind == OpKind::DotScaled)
                .unwrap();
            let c = scaled_dot_layout(&p, &p.ops[o], target, nw).unwrap();
            let acc = c.mma.to_mlir();
            let rs = p.values[p.ops[o].results[0]]
                .ty
                .tensor_shape()
                .unwrap()
                .to_vec();
            let dims = if c.transposed {
                format!("{}x{}", rs[1], rs[0])
            } else {
                format!("{}x{}", rs[0], rs[1])
            };
            if !theirs.ends_with(&format!("-> tensor<{dims}xf32, {acc}>")) {
                bad.push(format!("{name}: kept, anchor {acc}, Triton's dot {theirs}"));
            }
            continue;
        }
        printed += 1;
        let line = g
            .text
            .lines()
            .find(|l| l.contains(" = tt.dot ") || l.contains(" = ttng.warp_group_dot "))
            .unwrap()
            .trim()
            .replace(" {inputPrecision = 0 : i32}", "");
        let op = line.split(" = ").nth(1).unwrap().split(' ').next().unwrap();
        let ours = resolve(line.split_once(" : ").unwrap().1.to_string(), &g.aliases);
        if op != r["dot"].as_str().unwrap() || ours != theirs {
            bad.push(format!(
                "{name}: ours {op} {ours}\n  Triton {} {theirs}",
                r["dot"]
            ));
        }
        let back = parse_program(&g.text).unwrap();
        let a = Assignment::from_types(&back).unwrap();
        let v = check(&back, &a);
        if !v.is_empty() {
            bad.push(format!("{name}: checker: {}", v[0]));
        }
    }
    assert!(printed >= 10 && kept >= 3, "{printed} printed, {kept} kept");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
