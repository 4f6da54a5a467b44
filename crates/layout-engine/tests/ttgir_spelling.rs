//! The engine's TTGIR writes the attributes Triton's verifiers and type
//! inference want (Triton 3.9: `tt.expand_dims` and `tt.reduce` infer
//! their result types from their operands' attributes, `tt.dot` wants
//! `#ttg.dot_op` operands of its result's attribute, elementwise ops and
//! `scf` ops want one type throughout). Triton's own parser accepts the
//! text (`tools/triton_parse.py`, outside CI); these tests state its rules
//! as literal equalities of attributes and check them on the printed
//! program of every record of the corpora, read back with the crate's
//! reader (aliases resolved).

mod common;

use hw_layouts::Encoding;
use layout_engine::cost::Pricer;
use layout_engine::engine::assign;
use layout_engine::ir::{OpKind, Program};
use layout_engine::ttgir::print_ttgir;
use layout_engine::{parse_program, Assignment, Layout};
use std::sync::OnceLock;

/// `(id, printed TTGIR)` of every record, printed once for all the tests.
fn printed() -> &'static [(String, String)] {
    static PRINTED: OnceLock<Vec<(String, String)>> = OnceLock::new();
    PRINTED.get_or_init(|| {
        let mut pricer = Pricer::new();
        let mut out = Vec::new();
        for file in ["sample.jsonl", "seed11.jsonl", "seed23.jsonl"] {
            for r in common::records_in(file) {
                let (target, nw) = common::target_and_warps(&r);
                let ttir = r["ttir"].as_str().unwrap();
                let p = parse_program(ttir).unwrap();
                let opts = common::options(&r);
                let a = assign(&p, opts, &mut pricer).unwrap().assignment;
                let g = print_ttgir(&p, ttir, &a, target, nw).unwrap();
                out.push((common::id(&r).to_string(), g.text));
            }
        }
        assert_eq!(out.len(), 271);
        out
    })
}

/// Runs `rule` on every printed program read back; each violation is a
/// line `id: message`.
fn check_all(rule: impl Fn(&Program, &Assignment, &mut Vec<String>)) {
    let mut bad = Vec::new();
    for (id, text) in printed() {
        let tp = parse_program(text).unwrap();
        let ta = Assignment::from_types(&tp).unwrap();
        let mut v = Vec::new();
        rule(&tp, &ta, &mut v);
        bad.extend(v.into_iter().map(|m| format!("{id}: {m}")));
    }
    assert!(
        bad.is_empty(),
        "{} violations:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The attribute of value `v` as printed (aliases resolved).
fn enc(a: &Assignment, v: usize) -> Option<&Encoding> {
    a.layout(v).map(|l| &*l.encoding)
}

fn slice(dim: usize, parent: &Encoding) -> Encoding {
    Encoding::Slice(hw_layouts::slice::Slice {
        dim,
        parent: Box::new(parent.clone()),
    })
}

#[test]
fn expand_dims_operand_is_the_slice_of_its_result() {
    check_all(|p, a, bad| {
        for op in &p.ops {
            let OpKind::ExpandDims { axis } = op.kind else {
                continue;
            };
            let (Some(x), Some(r)) = (enc(a, op.operands[0]), enc(a, op.results[0])) else {
                bad.push(format!("line {}: expand_dims without attributes", op.line));
                continue;
            };
            if *x != slice(axis, r) {
                bad.push(format!(
                    "line {}: expand_dims operand {} is not the slice {axis} of {}",
                    op.line,
                    x.to_mlir(),
                    r.to_mlir()
                ));
            }
        }
    });
}

#[test]
fn reduce_result_is_the_slice_of_its_operand() {
    check_all(|p, a, bad| {
        for op in &p.ops {
            let OpKind::Reduce { axis } = op.kind else {
                continue;
            };
            let Some(x) = enc(a, op.operands[0]) else {
                bad.push(format!(
                    "line {}: reduce operand without attribute",
                    op.line
                ));
                continue;
            };
            for &w in &op.operands[1..] {
                if enc(a, w) != Some(x) {
                    bad.push(format!("line {}: reduce operands differ", op.line));
                }
            }
            for &r in &op.results {
                // A reduce to a scalar has no attribute.
                if !p.is_tensor(r) {
                    continue;
                }
                if enc(a, r) != Some(&slice(axis, x)) {
                    bad.push(format!(
                        "line {}: reduce result {:?} is not the slice {axis} of {}",
                        op.line,
                        enc(a, r).map(Encoding::to_mlir),
                        x.to_mlir()
                    ));
                }
            }
        }
    });
}

#[test]
fn dot_operands_are_dot_op_of_the_result() {
    check_all(|p, a, bad| {
        for op in &p.ops {
            if !matches!(op.kind, OpKind::Dot | OpKind::WarpGroupDot) {
                continue;
            }
            let Some(d) = enc(a, op.results[0]) else {
                bad.push(format!("line {}: dot result without attribute", op.line));
                continue;
            };
            for (i, &v) in op.operands.iter().enumerate().take(2) {
                // A wgmma operand read from shared memory is a memdesc.
                if !p.is_tensor(v) {
                    continue;
                }
                match enc(a, v) {
                    Some(Encoding::DotOperand(x)) if x.op_idx as usize == i && *x.parent == *d => {}
                    e => bad.push(format!(
                        "line {}: dot operand {i} {:?} is not a dot_op (opIdx {i}) of {}",
                        op.line,
                        e.map(Encoding::to_mlir),
                        d.to_mlir()
                    )),
                }
            }
            if enc(a, op.operands[2]) != Some(d) {
                bad.push(format!(
                    "line {}: accumulator not typed as the result",
                    op.line
                ));
            }
        }
    });
}

/// Elementwise ops, broadcasts, loads and stores: every tensor has the
/// result's attribute (a store's: its first operand's) wherever that
/// attribute denotes the tensor's map. (Between a `#ttg.linear` operand
/// and another result attribute, which no one attribute can denote,
/// Triton 3.9 accepts a broadcast: tools/triton_parse.py.)
#[test]
fn elementwise_broadcast_and_memory_ops_have_one_attribute() {
    check_all(|p, a, bad| {
        for op in &p.ops {
            if !matches!(
                op.kind,
                OpKind::Elementwise | OpKind::Broadcast | OpKind::Load | OpKind::Store
            ) {
                continue;
            }
            let tensors: Vec<usize> = op
                .results
                .iter()
                .chain(&op.operands)
                .copied()
                .filter(|&v| p.is_tensor(v))
                .collect();
            let Some(first) = tensors.first().and_then(|&v| a.layout(v)) else {
                continue;
            };
            for &v in &tensors[1..] {
                let Some(l) = a.layout(v) else { continue };
                if l.encoding == first.encoding {
                    continue;
                }
                let shape = p.values[v].ty.tensor_shape().unwrap_or(&[]).to_vec();
                let denotes =
                    Layout::new((*first.encoding).clone(), &shape).is_ok_and(|x| x.ll == l.ll);
                if denotes {
                    bad.push(format!(
                        "line {}: {} has {} where {} denotes the same map",
                        op.line,
                        op.name,
                        l.encoding.to_mlir(),
                        first.encoding.to_mlir()
                    ));
                }
            }
        }
    });
}

#[test]
fn loop_carried_values_have_one_attribute() {
    check_all(|p, a, bad| {
        for (o, op) in p.ops.iter().enumerate() {
            if op.kind != OpKind::For {
                continue;
            }
            let args = &op.regions[0].args[1..];
            let yield_op = op.regions[0]
                .ops
                .iter()
                .copied()
                .find(|&y| p.ops[y].kind == OpKind::Yield && p.ops[y].parent == Some(o));
            for (k, &r) in op.results.iter().enumerate() {
                let want = enc(a, r);
                let init = enc(a, op.operands[3 + k]);
                let arg = enc(a, args[k]);
                let yielded = yield_op.map(|y| enc(a, p.ops[y].operands[k]));
                if init != want || arg != want || yielded.is_some_and(|y| y != want) {
                    bad.push(format!(
                        "line {}: loop-carried value {k} has several attributes",
                        op.line
                    ));
                }
            }
        }
    });
}
