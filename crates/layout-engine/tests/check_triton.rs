//! The checker on Triton's own assignments: every record's
//! `ttgir_pre_pipeline` passes, its conversions are the record's, and
//! planted mutations are caught.

mod common;

use layout_engine::assignment::conversions;
use layout_engine::ir::OpKind;
use layout_engine::{check, parse_program, Assignment};

#[test]
fn every_triton_assignment_passes() {
    let mut failures = Vec::new();
    for r in common::records() {
        let p = parse_program(r["ttgir_pre_pipeline"].as_str().unwrap()).unwrap();
        let a = match Assignment::from_types(&p) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{}: {e}", common::id(&r)));
                continue;
            }
        };
        for v in check(&p, &a) {
            failures.push(format!("{}: {v}", common::id(&r)));
        }
        let n = conversions(&p, &a).unwrap().len() as u64;
        let want = r["facts_pre_pipeline"]["n_convert_layout"]
            .as_u64()
            .unwrap();
        if n != want {
            failures.push(format!(
                "{}: {n} conversions, record says {want}",
                common::id(&r)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Planted mutation: give one elementwise result (with a tensor operand)
/// the layout of another value of the same shape but a different linear
/// map; the checker must reject every such assignment. Likewise for a
/// loop-carried value (a `scf.for` result) and the result of every shape
/// op, dot and load.
#[test]
fn swapped_layouts_are_rejected() {
    let (mut tried, mut caught) = (0, 0);
    let mut missed = Vec::new();
    for r in common::records() {
        let p = parse_program(r["ttgir_pre_pipeline"].as_str().unwrap()).unwrap();
        let a = Assignment::from_types(&p).unwrap();
        for (o, op) in p.ops.iter().enumerate() {
            let mutable = match op.kind {
                OpKind::Elementwise => op.operands.iter().any(|&v| p.is_tensor(v)),
                OpKind::For
                | OpKind::Reduce { .. }
                | OpKind::ExpandDims { .. }
                | OpKind::Broadcast
                | OpKind::Trans { .. }
                | OpKind::Dot
                | OpKind::WarpGroupDot
                | OpKind::Load
                | OpKind::Join
                | OpKind::Split
                | OpKind::Reshape => true,
                _ => false,
            };
            if !mutable || p.in_combine_region(o) {
                continue;
            }
            let Some(&v) = op.results.iter().find(|&&v| p.is_tensor(v)) else {
                continue;
            };
            let shape = p.values[v].ty.tensor_shape().unwrap();
            let mine = a.layout(v).unwrap();
            let Some(other) = (0..p.values.len()).find_map(|w| {
                let l = a.layout(w)?;
                (p.values[w].ty.tensor_shape() == Some(shape) && l.ll != mine.ll).then_some(l)
            }) else {
                continue;
            };
            let mut bad = a.clone();
            bad.layouts[v] = Some(other.clone());
            tried += 1;
            if check(&p, &bad).is_empty() {
                missed.push(format!("{} {} line {}", common::id(&r), op.name, op.line));
            } else {
                caught += 1;
            }
        }
    }
    eprintln!("{caught}/{tried} mutations caught");
    assert!(tried > 100, "only {tried} mutations planted");
    assert!(
        missed.is_empty(),
        "{caught}/{tried} caught; missed:\n{}",
        missed.join("\n")
    );
}
