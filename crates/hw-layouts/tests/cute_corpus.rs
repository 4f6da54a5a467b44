//! The CuTe bridge against pycute (CUTLASS's Python reference of the CuTe
//! algebra): `data/cute/algebra.tsv` holds pycute's results for 5 000
//! random linear-subset cases per operation; ours, computed over GF(2),
//! must be the same function of the flat index (evaluated at every index
//! with CuTe's integer arithmetic, independent of the GF(2) path).
//! `data/cute/convert.tsv` holds random layouts labelled linear or not by
//! brute force; the bridge must accept exactly the linear ones (and agree
//! with them at every index) and reject the others naming a mode.

use hw_layouts::cute::{self, algebra, CuteError, CuteLayout, Layout};
use linear_layout::DimName;
use std::collections::BTreeMap;

const ALGEBRA: &str = include_str!("data/cute/algebra.tsv");
const CONVERT: &str = include_str!("data/cute/convert.tsv");

/// Whether `ours` and `theirs` are the same function of the flat index.
fn same_function(ours: &Layout, theirs: &Layout) -> Result<(), String> {
    let (n, m) = (ours.size().unwrap(), theirs.size().unwrap());
    if n != m {
        return Err(format!("size {n} != pycute's {m}"));
    }
    for i in 0..n {
        let (a, b) = (ours.offset_of(i), theirs.offset_of(i));
        if a != b {
            return Err(format!("index {i}: {a:?} != pycute's {b:?}"));
        }
    }
    Ok(())
}

#[test]
fn algebra_agrees_with_pycute() {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    let mut mismatches = vec![];
    for line in ALGEBRA.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let (op, a, b, want) = (f[0], f[1], f[2], f[3]);
        let a = cute::parse_layout(a).unwrap();
        let want = cute::parse_layout(want).unwrap();
        let got = match op {
            "composition" => algebra::composition(&a, &cute::parse_layout(b).unwrap()),
            "complement" => algebra::complement(&a, b.parse().unwrap()),
            "logical_divide" => algebra::logical_divide(&a, &cute::parse_layout(b).unwrap()),
            "logical_product" => algebra::logical_product(&a, &cute::parse_layout(b).unwrap()),
            "right_inverse" => algebra::right_inverse(&a),
            "left_inverse" => algebra::left_inverse(&a),
            _ => panic!("unknown op {op}"),
        };
        *count.entry(op).or_default() += 1;
        let verdict = match got {
            Ok(g) => same_function(&g, &want).map_err(|e| format!("{g}: {e}")),
            Err(e) => Err(format!("error: {e}")),
        };
        if let Err(e) = verdict {
            mismatches.push(format!("{line}\n    ours: {e}"));
        }
    }
    for (op, n) in &count {
        assert!(*n >= 5000, "{op}: only {n} cases");
    }
    assert_eq!(count.len(), 6);
    assert!(
        mismatches.is_empty(),
        "{} mismatches, first: {}",
        mismatches.len(),
        mismatches[..mismatches.len().min(5)].join("\n")
    );
}

#[test]
fn linearity_verdicts_agree_with_brute_force() {
    let (mut linear, mut rejected) = (0, 0);
    for line in CONVERT.lines() {
        let (label, text) = line.split_once('\t').unwrap();
        let l = cute::parse_layout(text).unwrap();
        let got = cute::index_to_offset(&CuteLayout::plain(l.clone()));
        match (label, got) {
            ("linear", Ok(ll)) => {
                linear += 1;
                for i in 0..l.size().unwrap() {
                    let ours = ll.apply(&[(cute::index_dim(), i as u64)]).unwrap()[0].1;
                    assert_eq!(Some(ours as i64), l.offset_of(i), "{text} at {i}");
                }
                assert_eq!(ll.out_dim_names().next(), Some(DimName::OFFSET));
            }
            ("nonlinear", Err(e)) => {
                rejected += 1;
                let mode = match &e {
                    CuteError::ShapeNotPowerOfTwo { mode, .. }
                    | CuteError::NegativeStride { mode, .. }
                    | CuteError::Carry { mode, .. } => mode.clone(),
                    other => panic!("{text}: rejected without naming a mode: {other}"),
                };
                assert!(l.shape.leaf_paths().contains(&mode), "{text}: {e}");
                assert!(e.to_string().contains(&format!("mode {mode}")), "{e}");
            }
            (label, got) => panic!("{text} is {label} but the bridge said {got:?}"),
        }
    }
    assert!(
        linear > 1000 && rejected > 3000,
        "{linear} linear, {rejected} rejected"
    );
}
