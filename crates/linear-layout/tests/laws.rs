//! Algebraic laws of `LinearLayout`, checked on random layouts (up to 14
//! input bits, several named in/out dims) against a brute-force model: the
//! model keeps every basis as one component per out dim (never packed) and
//! evaluates by XOR-ing the components of the set bits, so it shares no code
//! with the crate's packed representation.
//!
//! One file on purpose, although it passes 800 lines: every law is checked
//! against the one brute-force model defined here, and splitting the laws
//! over several test binaries would copy that model into each.

use linear_layout::{divide_left, divide_right, DimName, LayoutError, LinearLayout};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::collections::{HashMap, HashSet};

// ------------------------------------------------------------------ model

#[derive(Clone, Debug)]
struct Model {
    /// `(in dim, bases)`, each basis one component per out dim.
    ins: Vec<(DimName, Vec<Vec<u64>>)>,
    /// `(out dim, size)`.
    outs: Vec<(DimName, u64)>,
}

impl Model {
    fn layout(&self) -> LinearLayout {
        LinearLayout::new(self.ins.clone(), self.outs.clone(), false).unwrap()
    }
    fn in_bits(&self) -> usize {
        self.ins.iter().map(|x| x.1.len()).sum()
    }
    /// All inputs as named coordinates, the first in dim varying fastest.
    fn inputs(&self) -> Vec<Vec<(DimName, u64)>> {
        let n = self.in_bits();
        (0..1u64 << n)
            .map(|mut x| {
                self.ins
                    .iter()
                    .map(|(d, bs)| {
                        let v = x & ((1 << bs.len()) - 1);
                        x >>= bs.len();
                        (*d, v)
                    })
                    .collect()
            })
            .collect()
    }
    /// Brute-force evaluation: XOR of the bases of the set bits.
    fn eval(&self, x: &[(DimName, u64)]) -> Vec<u64> {
        let mut out = vec![0u64; self.outs.len()];
        for (d, bs) in &self.ins {
            let v = x.iter().find(|p| p.0 == *d).map_or(0, |p| p.1);
            for (i, b) in bs.iter().enumerate() {
                if v >> i & 1 == 1 {
                    for (o, c) in out.iter_mut().zip(b) {
                        *o ^= c;
                    }
                }
            }
        }
        out
    }
    fn eval_named(&self, x: &[(DimName, u64)]) -> HashMap<DimName, u64> {
        self.outs.iter().map(|o| o.0).zip(self.eval(x)).collect()
    }
    /// The flat columns as values per out dim, in input-bit order.
    fn columns(&self) -> Vec<Vec<u64>> {
        self.ins.iter().flat_map(|x| x.1.clone()).collect()
    }
}

fn named(c: &[(DimName, u64)]) -> HashMap<DimName, u64> {
    c.iter().copied().collect()
}

fn apply(l: &LinearLayout, x: &[(DimName, u64)]) -> HashMap<DimName, u64> {
    named(&l.apply(x).unwrap())
}

/// The set spanned by vectors (each a Vec of components), by enumeration.
fn span(vs: &[Vec<u64>], width: usize) -> HashSet<Vec<u64>> {
    let mut s: HashSet<Vec<u64>> = HashSet::new();
    s.insert(vec![0; width]);
    for v in vs {
        if s.contains(v) {
            continue;
        }
        let add: Vec<Vec<u64>> = s
            .iter()
            .map(|x| x.iter().zip(v).map(|(a, b)| a ^ b).collect())
            .collect();
        s.extend(add);
    }
    s
}

// ------------------------------------------------------------------ strategies

const IN_POOL: &[&str] = &["register", "lane", "warp", "block"];
const OUT_POOL: &[&str] = &["dim0", "dim1", "dim2"];

/// A basis built from random words: 1/8 zero, 1/4 a single bit, 1/8 a copy
/// of an earlier basis, otherwise dense (real layouts are mostly single
/// bits and zeros; dense ones exercise the solver).
fn make_basis(r: u64, logs: &[u32], earlier: &[Vec<u64>]) -> Vec<u64> {
    let total: u32 = logs.iter().sum();
    match r % 8 {
        0 => vec![0; logs.len()],
        1 | 2 if total > 0 => {
            let bit = ((r >> 8) % u64::from(total)) as u32;
            let mut acc = 0;
            logs.iter()
                .map(|&l| {
                    let v = if bit >= acc && bit < acc + l {
                        1u64 << (bit - acc)
                    } else {
                        0
                    };
                    acc += l;
                    v
                })
                .collect()
        }
        3 if !earlier.is_empty() => earlier[((r >> 8) as usize) % earlier.len()].clone(),
        _ => logs
            .iter()
            .enumerate()
            .map(|(k, &l)| (r.rotate_left(7 * k as u32 + 11)) & ((1u64 << l) - 1))
            .collect(),
    }
}

fn build(
    in_names: &[DimName],
    in_logs: &[u32],
    out_names: &[DimName],
    out_logs: &[u32],
    raw: &[u64],
) -> Model {
    let mut all: Vec<Vec<u64>> = Vec::new();
    let mut k = 0;
    let ins = in_names
        .iter()
        .zip(in_logs)
        .map(|(&d, &l)| {
            let bs: Vec<Vec<u64>> = (0..l)
                .map(|_| {
                    let b = make_basis(raw[k % raw.len()], out_logs, &all);
                    k += 1;
                    all.push(b.clone());
                    b
                })
                .collect();
            (d, bs)
        })
        .collect();
    let outs = out_names
        .iter()
        .zip(out_logs)
        .map(|(&d, &l)| (d, 1u64 << l))
        .collect();
    Model { ins, outs }
}

/// Chooses a sub-list of `pool` (order kept) with log2 sizes, capping the
/// total number of bits.
fn pick(pool: &[&str], present: u32, logs: &[u32], max_total: u32) -> (Vec<DimName>, Vec<u32>) {
    let mut names = Vec::new();
    let mut ls = Vec::new();
    let mut total = 0;
    for (i, p) in pool.iter().enumerate() {
        if present >> i & 1 == 1 {
            let l = logs[i].min(max_total - total);
            total += l;
            names.push(DimName::new(p));
            ls.push(l);
        }
    }
    (names, ls)
}

fn arb_model(max_in: u32, max_out: u32) -> impl Strategy<Value = Model> {
    (
        0u32..16,
        prop::collection::vec(0u32..6, 4),
        1u32..8,
        prop::collection::vec(0u32..5, 3),
        prop::collection::vec(any::<u64>(), 16),
    )
        .prop_map(move |(ip, il, op, ol, raw)| {
            let (inn, inl) = pick(IN_POOL, ip, &il, max_in);
            let (outn, outl) = pick(OUT_POOL, op, &ol, max_out);
            build(&inn, &inl, &outn, &outl, &raw)
        })
}

/// An invertible layout: unit columns mixed by random column operations,
/// split over random in and out dims of the same total size.
fn arb_invertible() -> impl Strategy<Value = Model> {
    (
        1u32..=12,
        prop::collection::vec(any::<u64>(), 40),
        0u32..16,
        prop::collection::vec(0u32..6, 4),
        0u32..13,
    )
        .prop_map(|(n, raw, ip, il, split)| {
            let mut cols: Vec<u64> = (0..n).map(|k| 1u64 << k).collect();
            for r in &raw {
                let i = (r % u64::from(n)) as usize;
                let j = ((r >> 8) % u64::from(n)) as usize;
                if i != j {
                    cols[i] ^= cols[j];
                }
                if r >> 20 & 3 == 0 {
                    cols.swap(i, j);
                }
            }
            // Ins: the picked dims, the last one absorbing the remainder.
            let (mut names, mut logs) = pick(IN_POOL, ip | 1, &il, n);
            let used: u32 = logs.iter().sum();
            *logs.last_mut().unwrap() += n - used;
            let s = split.min(n);
            let out_logs = [s, n - s];
            let outs = [DimName::dim(0), DimName::dim(1)];
            let mut k = 0;
            let ins = names
                .drain(..)
                .zip(logs)
                .map(|(d, l)| {
                    let bs = (0..l)
                        .map(|_| {
                            let c = cols[k];
                            k += 1;
                            vec![c & ((1 << s) - 1), c >> s]
                        })
                        .collect();
                    (d, bs)
                })
                .collect();
            Model {
                ins,
                outs: outs
                    .iter()
                    .zip(out_logs)
                    .map(|(&d, l)| (d, 1u64 << l))
                    .collect(),
            }
        })
}

fn cfg() -> Config {
    Config {
        cases: 192,
        ..Config::default()
    }
}

// ------------------------------------------------------------------ laws

proptest! {
    #![proptest_config(cfg())]

    /// `apply`, `apply_values`, `apply_flat` and `table()` all agree with the
    /// brute-force model on every input.
    #[test]
    fn evaluation_matches_model(m in arb_model(14, 14)) {
        let l = m.layout();
        let table = l.table().unwrap();
        let ev = l.evaluator();
        prop_assert_eq!(table.len(), 1usize << m.in_bits());
        for (flat, x) in m.inputs().iter().enumerate() {
            prop_assert_eq!(ev.apply(x).unwrap(), l.apply(x).unwrap());
            prop_assert_eq!(ev.apply_values(&x.iter().map(|p| p.1).collect::<Vec<_>>()), l.apply_flat(flat as u64));
            let want = m.eval(x);
            let got: Vec<u64> = l.apply(x).unwrap().iter().map(|p| p.1).collect();
            prop_assert_eq!(&got, &want);
            let packed = l.apply_flat(flat as u64);
            prop_assert_eq!(table[flat], packed);
            prop_assert_eq!(l.apply_values(&x.iter().map(|p| p.1).collect::<Vec<_>>()), packed);
            prop_assert_eq!(l.unpack(packed).to_vec(), want);
        }
    }

    /// `a.compose(b)` is `x ↦ b(a(x))`.
    #[test]
    fn compose_is_function_composition(
        a in arb_model(12, 10),
        raw in prop::collection::vec(any::<u64>(), 16),
        ol in prop::collection::vec(0u32..5, 3),
        op in 1u32..8,
        grow in prop::collection::vec(0u32..2, 3),
    ) {
        // b's in dims are a's out dims (reversed order), each at least as big.
        let b_in: Vec<DimName> = a.outs.iter().rev().map(|o| o.0).collect();
        let b_in_logs: Vec<u32> = a.outs.iter().rev().enumerate()
            .map(|(i, o)| o.1.trailing_zeros() + grow[i % 3]).collect();
        let (outn, outl) = pick(&["x", "y", "z"], op, &ol, 12);
        let b = build(&b_in, &b_in_logs, &outn, &outl, &raw);
        let c = a.layout().compose(&b.layout()).unwrap();
        prop_assert_eq!(c.in_dims(), a.layout().in_dims());
        prop_assert_eq!(c.out_dims(), b.outs.clone());
        for x in a.inputs() {
            let mid: Vec<(DimName, u64)> = a.outs.iter().map(|o| o.0).zip(a.eval(&x)).collect();
            prop_assert_eq!(apply(&c, &x), b.eval_named(&mid));
        }
    }

    /// `a.invert_and_compose(b)` gives `C` with `a(x) = b(C(x))`; dims whose
    /// bases agree in both map to themselves; every other basis of `C` uses
    /// only pivot columns of `b` (columns independent of the earlier
    /// non-identity columns).
    #[test]
    fn invert_and_compose_solves(
        b in arb_model(12, 8),
        raw in prop::collection::vec(any::<u64>(), 16),
        ip in 0u32..16,
        il in prop::collection::vec(0u32..5, 4),
        same in prop::collection::vec(any::<bool>(), 4),
    ) {
        // a = X ∘ b for a random X from a's ins to b's ins, so b covers a;
        // some dims shared with b copy b's bases (X is the identity there).
        let (an, al) = pick(IN_POOL, ip, &il, 10);
        let mut a_ins = Vec::new();
        let mut k = 0;
        for (i, (&d, &l)) in an.iter().zip(&al).enumerate() {
            let bd = b.ins.iter().find(|x| x.0 == d);
            let bases: Vec<Vec<u64>> = match bd {
                Some((_, bbs)) if same[i] => bbs.clone(),
                _ => (0..l).map(|_| {
                    let r = raw[k % raw.len()];
                    k += 1;
                    let x: Vec<(DimName, u64)> = b.ins.iter().enumerate()
                        .map(|(j, (bn, bbs))| (*bn, r.rotate_left(13 * j as u32) & ((1u64 << bbs.len()) - 1)))
                        .collect();
                    if r % 5 == 0 { vec![0; b.outs.len()] } else { b.eval(&x) }
                }).collect(),
            };
            a_ins.push((d, bases));
        }
        let a = Model { ins: a_ins, outs: b.outs.clone() };
        let c = a.layout().invert_and_compose(&b.layout()).unwrap();
        let b_l = b.layout();
        // The block-local variant is still a solution, and reads a CTA's
        // own copy wherever b is broadcast over block.
        let local = linear_layout::utils::invert_and_compose_block_local(&b_l, &a.layout()).unwrap();
        for x in a.inputs() {
            let cx = c.apply(&x).unwrap();
            prop_assert_eq!(apply(&b_l, &cx), a.eval_named(&x));
            prop_assert_eq!(apply(&b_l, &local.apply(&x).unwrap()), a.eval_named(&x));
        }
        let blk = DimName::BLOCK;
        if let (Some(ab), Some(bb)) = (a.ins.iter().find(|x| x.0 == blk), b.ins.iter().find(|x| x.0 == blk)) {
            for i in 0..ab.1.len().min(bb.1.len()) {
                if bb.1[i].iter().all(|&v| v == 0) {
                    prop_assert_eq!(local.basis_component(blk, i, blk) >> i & 1, 1);
                }
            }
        }
        // Shape: in dims of a, out dims = b's in dims with b's sizes.
        prop_assert_eq!(c.in_dims(), a.layout().in_dims());
        let b_in: Vec<(DimName, u64)> = b.ins.iter().map(|(d, bs)| (*d, 1u64 << bs.len())).collect();
        prop_assert_eq!(c.out_dims(), b_in.clone());
        // Identity dims (Triton's shortcut) and pivot choice. When the
        // non-identity columns of b do not cover a's other dims (Triton
        // aborts), the crate releases identity dims from the fastest (a's
        // first in dim) until they do.
        // Identity dims (Triton 3.9): equal bases in both, and in each model
        // no other in dim touches an output bit these bases use.
        let touches = |m: &Model, d: DimName| {
            let mask = |keep: &dyn Fn(DimName) -> bool| -> Vec<u64> {
                let mut acc = vec![0u64; m.outs.len()];
                for (n, bs) in &m.ins {
                    if keep(*n) {
                        for b in bs {
                            for (a, c) in acc.iter_mut().zip(b) { *a |= c; }
                        }
                    }
                }
                acc
            };
            let (mine, others) = (mask(&|n| n == d), mask(&|n| n != d));
            mine.iter().zip(&others).any(|(x, y)| x & y != 0)
        };
        let mut ident: Vec<DimName> = a.ins.iter().filter(|(d, bs)| {
            b.ins.iter().any(|(e, cs)| e == d && cs == bs) && !touches(&a, *d) && !touches(&b, *d)
        }).map(|x| x.0).collect();
        loop {
            let rest_b: Vec<Vec<u64>> = b.ins.iter().filter(|x| !ident.contains(&x.0)).flat_map(|x| x.1.clone()).collect();
            let rest_span = span(&rest_b, b.outs.len());
            if ident.is_empty() || a.ins.iter().filter(|x| !ident.contains(&x.0)).all(|x| x.1.iter().all(|v| rest_span.contains(v))) {
                break;
            }
            ident.remove(0);
        }
        let mut pivots: HashSet<(DimName, usize)> = HashSet::new();
        let mut seen: Vec<Vec<u64>> = Vec::new();
        for (d, bs) in &b.ins {
            if ident.contains(d) { continue; }
            for (i, v) in bs.iter().enumerate() {
                if !span(&seen, b.outs.len()).contains(v) {
                    pivots.insert((*d, i));
                }
                seen.push(v.clone());
            }
        }
        for (d, bs) in &a.ins {
            for (i, _) in bs.iter().enumerate() {
                let cb = c.basis(*d, i);
                for (j, (bd, _)) in b.ins.iter().enumerate() {
                    if ident.contains(d) {
                        let want = if bd == d { 1u64 << i } else { 0 };
                        prop_assert_eq!(cb[j], want);
                    } else {
                        for bit in 0..64 {
                            if cb[j] >> bit & 1 == 1 {
                                prop_assert!(pivots.contains(&(*bd, bit)),
                                    "C({d}={}) uses non-pivot {bd} bit {bit}", 1u64 << i);
                            }
                        }
                    }
                }
            }
        }
    }

    /// When `b` does not cover `a`'s image, `invert_and_compose` errors
    /// (and succeeds exactly when it does).
    #[test]
    fn invert_and_compose_uncovered_errors(
        a in arb_model(8, 8),
        raw in prop::collection::vec(any::<u64>(), 16),
        bl in prop::collection::vec(0u32..4, 2),
    ) {
        // b: in dims disjoint from a's (no identity shortcut), a's out dims.
        let out_names: Vec<DimName> = a.outs.iter().map(|o| o.0).collect();
        let out_logs: Vec<u32> = a.outs.iter().map(|o| o.1.trailing_zeros()).collect();
        let b = build(&[DimName::new("s0"), DimName::new("s1")], &bl, &out_names, &out_logs, &raw);
        let img_b = span(&b.columns(), b.outs.len());
        let covered = a.columns().iter().all(|v| img_b.contains(v));
        match a.layout().invert_and_compose(&b.layout()) {
            Ok(c) => {
                prop_assert!(covered);
                for x in a.inputs() {
                    prop_assert_eq!(apply(&b.layout(), &c.apply(&x).unwrap()), a.eval_named(&x));
                }
            }
            Err(LayoutError::NotCovered) => prop_assert!(!covered),
            Err(e) => prop_assert!(false, "unexpected error {}", e),
        }
    }

    /// `pseudoinvert` is a right inverse on surjective layouts.
    #[test]
    fn pseudoinvert_is_right_inverse(m in arb_model(14, 8)) {
        let l = m.layout();
        prop_assume!(l.is_surjective());
        let p = l.pseudoinvert().unwrap();
        let outs: Vec<(DimName, u64)> = l.out_dims();
        let total: u64 = outs.iter().map(|o| o.1).product();
        for y in 0..total {
            let mut r = y;
            let yv: Vec<(DimName, u64)> = outs.iter().map(|&(d, s)| { let v = r % s; r /= s; (d, v) }).collect();
            let x = p.apply(&yv).unwrap();
            prop_assert_eq!(m.eval_named(&x), named(&yv));
        }
    }

    /// `invert` is a two-sided inverse on invertible layouts.
    #[test]
    fn invert_is_two_sided(m in arb_invertible()) {
        let l = m.layout();
        prop_assert!(l.is_invertible());
        let inv = l.invert().unwrap();
        for x in m.inputs() {
            let y = l.apply(&x).unwrap();
            prop_assert_eq!(apply(&inv, &y), named(&x));
            // and l(inv(y')) = y' for y' = x read as an output (sizes differ
            // per dim, so go through the flat index instead).
        }
        let n = l.total_in_dim_size_log2();
        for y in 0..1u64 << n {
            prop_assert_eq!(l.apply_flat(inv.apply_flat(y)), y);
        }
    }

    /// Product: associative, `empty` neutral, first operand in the low bits.
    #[test]
    fn product_laws(a in arb_model(5, 4), b in arb_model(5, 4), c in arb_model(4, 4)) {
        let (la, lb, lc) = (a.layout(), b.layout(), c.layout());
        prop_assert_eq!(&(&la * &LinearLayout::empty()), &la);
        prop_assert_eq!(&(&LinearLayout::empty() * &la), &la);
        // Associative whenever both bracketings exist (the supremum of dim
        // orders is not always: [d1, d2] * ([d0, d2] * [d1]) has none).
        if let (Ok(ab), Ok(bc)) = (la.try_mul(&lb), lb.try_mul(&lc)) {
            if let (Ok(l), Ok(r)) = (ab.try_mul(&lc), la.try_mul(&bc)) {
                // Equal up to the order of dims, which the supremum's
                // tie-breaking may choose differently on each side.
                let ins: Vec<DimName> = l.in_dim_names().collect();
                let outs: Vec<DimName> = l.out_dim_names().collect();
                let r = r.transpose_ins(&ins).unwrap().transpose_outs(&outs).unwrap();
                prop_assert_eq!(l, r);
            }
        }
        let p = &la * &lb;
        let log = |m: &Model, d: DimName| m.ins.iter().find(|x| x.0 == d).map_or(0, |x| x.1.len() as u32);
        let olog = |m: &Model, d: DimName| m.outs.iter().find(|x| x.0 == d).map_or(0, |x| x.1.trailing_zeros());
        let pm = Model { ins: p.all_bases(), outs: p.out_dims() };
        for x in pm.inputs() {
            let lo: Vec<(DimName, u64)> = x.iter().map(|&(d, v)| (d, v & ((1 << log(&a, d)) - 1))).collect();
            let hi: Vec<(DimName, u64)> = x.iter().map(|&(d, v)| (d, v >> log(&a, d))).collect();
            let (ya, yb) = (a.eval_named(&lo), b.eval_named(&hi));
            let got = apply(&p, &x);
            for (o, v) in got {
                let want = ya.get(&o).copied().unwrap_or(0) | yb.get(&o).copied().unwrap_or(0) << olog(&a, o);
                prop_assert_eq!(v, want);
            }
        }
    }

    /// `divide_left(a*b, a) == b`, `divide_right(a*b, b) == a` (same dims in
    /// both); a non-product is rejected, and any quotient found is exact.
    #[test]
    fn division_inverts_product(
        a in arb_model(6, 5),
        raw in prop::collection::vec(any::<u64>(), 16),
        il in prop::collection::vec(0u32..4, 4),
        ol in prop::collection::vec(0u32..4, 3),
        flip in any::<u64>(),
    ) {
        let in_names: Vec<DimName> = a.ins.iter().map(|x| x.0).collect();
        let out_names: Vec<DimName> = a.outs.iter().map(|x| x.0).collect();
        let b = build(&in_names, &il[..in_names.len()], &out_names, &ol[..out_names.len()], &raw);
        let (la, lb) = (a.layout(), b.layout());
        let p = &la * &lb;
        prop_assert_eq!(divide_left(&p, &la), Some(lb.clone()));
        prop_assert_eq!(divide_right(&p, &lb), Some(la.clone()));
        // Flip one low output bit (inside a's range) of one of b's bases in
        // the product: no longer a product with a on the left.
        let mut pm = Model { ins: p.all_bases(), outs: p.out_dims() };
        let n_outs = a.outs.len();
        let mut choices: Vec<(usize, usize, usize)> = Vec::new();
        for (di, (dn, bs)) in pm.ins.iter().enumerate() {
            let na = a.ins.iter().find(|x| x.0 == *dn).map_or(0, |x| x.1.len());
            for bi in na..bs.len() {
                for oi in 0..n_outs {
                    if a.outs[oi].1 > 1 {
                        choices.push((di, bi, oi));
                    }
                }
            }
        }
        if !choices.is_empty() {
            let (di, bi, oi) = choices[(flip as usize) % choices.len()];
            let bit = (flip >> 32) % u64::from(a.outs[oi].1.trailing_zeros());
            pm.ins[di].1[bi][oi] ^= 1 << bit;
            prop_assert_eq!(divide_left(&pm.layout(), &la), None);
        }
        // Any quotient of two random layouts is exact.
        if let Some(q) = divide_left(&lb, &la) { prop_assert_eq!(&la * &q, lb.clone()); }
        if let Some(q) = divide_right(&lb, &la) { prop_assert_eq!(&q * &la, lb.clone()); }
    }

    /// Reshape, flatten and transpose keep the function up to re-indexing.
    #[test]
    fn shape_ops_preserve_function(m in arb_model(12, 12), cut in 0u32..13, perm in any::<u64>()) {
        let l = m.layout();
        let table = l.table().unwrap();
        // flatten/reshape ins: the flat input index is unchanged.
        prop_assert_eq!(l.flatten_ins().table().unwrap(), table.clone());
        let n = l.total_in_dim_size_log2();
        let c = cut.min(n);
        let r = l.reshape_ins(&[(DimName::new("p"), 1 << c), (DimName::new("q"), 1 << (n - c))]).unwrap();
        prop_assert_eq!(r.table().unwrap(), table.clone());
        // flatten/reshape outs: the packed output (first dim low) is unchanged.
        prop_assert_eq!(l.flatten_outs().table().unwrap(), table.clone());
        let no = l.total_out_dim_size_log2();
        let co = cut.min(no);
        let ro = l.reshape_outs(&[(DimName::new("u"), 1 << co), (DimName::new("v"), 1 << (no - co))]).unwrap();
        prop_assert_eq!(ro.table().unwrap(), table.clone());
        // transposes: the same values by name.
        let mut ins: Vec<DimName> = l.in_dim_names().collect();
        let mut outs: Vec<DimName> = l.out_dim_names().collect();
        let rot = (perm % (ins.len().max(1) as u64)) as usize;
        ins.rotate_left(rot);
        outs.reverse();
        let t = l.transpose_ins(&ins).unwrap().transpose_outs(&outs).unwrap();
        prop_assert_eq!(t.in_dim_names().collect::<Vec<_>>(), ins);
        prop_assert_eq!(t.out_dim_names().collect::<Vec<_>>(), outs);
        for x in m.inputs() {
            prop_assert_eq!(apply(&t, &x), m.eval_named(&x));
        }
    }

    /// Free bits are exactly those whose flip lands on an element that a
    /// lower flat input index already reaches.
    #[test]
    fn free_variable_masks_brute_force(m in arb_model(12, 10)) {
        let l = m.layout();
        let inputs = m.inputs();
        let masks = l.free_variable_masks();
        let mut k = 0usize;
        for (di, (d, bs)) in m.ins.iter().enumerate() {
            prop_assert_eq!(masks[di].0, *d);
            for (i, basis) in bs.iter().enumerate() {
                // Elements reached by flat indices < 2^k.
                let reached: HashSet<Vec<u64>> = inputs[..1usize << k].iter().map(|x| m.eval(x)).collect();
                let free = reached.contains(basis);
                prop_assert_eq!(masks[di].1 >> i & 1 == 1, free, "{} bit {}", d, i);
                k += 1;
            }
        }
    }

    /// `num_consecutive_in_out` is the largest `2^k` such that, for every
    /// input, the low `k` bits of the first in dim appear unchanged as the
    /// low `k` bits of the first out dim and touch nothing else.
    #[test]
    fn num_consecutive_in_out_brute_force(m in arb_model(12, 10), force in 0u32..4) {
        // Bias towards identity prefixes: make the first `force` bases of the
        // first in dim unit vectors of the first out dim.
        let mut m = m;
        if let (Some(first), Some(o0)) = (m.ins.first_mut(), m.outs.first()) {
            let olog = o0.1.trailing_zeros();
            for (i, b) in first.1.iter_mut().enumerate().take(force.min(olog) as usize) {
                b.iter_mut().for_each(|c| *c = 0);
                b[0] = 1 << i;
            }
        }
        let l = m.layout();
        let want = if m.ins.is_empty() || m.outs.is_empty() { 1 } else {
            let (d0, nin) = (m.ins[0].0, m.ins[0].1.len() as u32);
            let nout = m.outs[0].1.trailing_zeros();
            let mut best = 0;
            'k: for k in 1..=nin.min(nout) {
                let mask = (1u64 << k) - 1;
                for x in m.inputs() {
                    let v0 = x.iter().find(|p| p.0 == d0).unwrap().1;
                    let base: Vec<(DimName, u64)> = x.iter().map(|&(d, v)| (d, if d == d0 { v & !mask } else { v })).collect();
                    let (y, yb) = (m.eval(&x), m.eval(&base));
                    if y[0] & mask != v0 & mask || yb[0] & mask != 0 || y[0] & !mask != yb[0] & !mask || y[1..] != yb[1..] {
                        break 'k;
                    }
                }
                best = k;
            }
            1u64 << best
        };
        prop_assert_eq!(l.num_consecutive_in_out(), want);
    }

    /// Any pair of layouts, matching or not: every binary operation returns
    /// a value or an error, never panics.
    #[test]
    fn binary_ops_never_panic(a in arb_model(10, 8), b in arb_model(10, 8)) {
        let (la, lb) = (a.layout(), b.layout());
        let _ = la.try_mul(&lb);
        let _ = la.compose(&lb);
        let _ = la.invert_and_compose(&lb);
        let _ = linear_layout::factor_through(&la, &lb);
        let _ = divide_left(&la, &lb);
        let _ = divide_right(&la, &lb);
        let _ = la.concat_ins(&lb);
        let _ = la.concat_outs(&lb);
        let _ = linear_layout::utils::invert_and_compose_block_local(&la, &lb);
        let _ = linear_layout::utils::is_image_subset(&la, &lb);
        let _ = linear_layout::utils::get_reps(&la, &lb);
        let _ = linear_layout::utils::reg_perm_for_divide(&la, &lb, true);
        let _ = linear_layout::utils::reg_perm_for_divide(&la, &lb, false);
        let _ = la.pseudoinvert();
        let _ = la.invert();
        let _ = la.quotient(&lb.in_dim_names().collect::<Vec<_>>());
        let _ = la.sublayout(&lb.in_dim_names().collect::<Vec<_>>(), &lb.out_dim_names().collect::<Vec<_>>());
        let _ = linear_layout::utils::largest_vectorisation(&la, DimName::dim(0), 16, None);
        let _ = linear_layout::utils::ensure_layout_not_smaller_than(&la, &lb.out_dims());
        let _ = linear_layout::utils::ensure_layout_not_larger_than(&la, &lb.out_dims(), false);
    }

    /// Arbitrary (often malformed) JSON never panics: it parses or errors.
    #[test]
    fn from_json_never_panics(
        comps in prop::collection::vec(prop::collection::vec(
            prop::sample::select(vec![
                serde_json::json!(0), serde_json::json!(1), serde_json::json!(2),
                serde_json::json!(3), serde_json::json!(-1), serde_json::json!(1.5),
                serde_json::json!(1u64 << 31), serde_json::json!(u64::MAX),
                serde_json::json!("x"), serde_json::json!(null),
            ]), 0..4), 0..6),
        shape in prop::collection::vec(prop::sample::select(vec![0u64, 1, 2, 3, 4, 8, 1 << 40, u64::MAX]), 0..4),
        use_shape in any::<bool>(),
        out_dims in any::<bool>(),
    ) {
        let mut obj = serde_json::Map::new();
        obj.insert("register".into(), serde_json::Value::Array(
            comps.into_iter().map(serde_json::Value::Array).collect()));
        if out_dims {
            obj.insert("out_dims".into(), serde_json::json!(
                shape.iter().enumerate().map(|(i, s)| serde_json::json!([format!("dim{i}"), s])).collect::<Vec<_>>()));
        }
        let v = serde_json::Value::Object(obj);
        let _ = LinearLayout::from_json(&v, if use_shape { Some(&shape) } else { None });
    }

    /// JSON round trips, with explicit out dims and in the oracle's form.
    #[test]
    fn json_round_trip(m in arb_model(14, 14)) {
        let l = m.layout();
        prop_assert_eq!(LinearLayout::from_json(&l.to_json(), None).unwrap(), l.clone());
        let text = serde_json::to_string(&l).unwrap();
        let back: LinearLayout = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&back, &l);
        // Oracle form: bases only, out dims dim0.. with the shape given.
        if l.out_dim_names().enumerate().all(|(i, o)| o == DimName::dim(i)) {
            let shape: Vec<u64> = l.out_dims().iter().map(|o| o.1).collect();
            prop_assert_eq!(LinearLayout::from_json(&l.bases_json(), Some(&shape)).unwrap(), l);
        }
    }
}

/// Dims wider than 8 bits (several evaluator chunks) and tables wider than
/// the 12-bit block, against brute force.
#[test]
fn wide_dims_evaluate_correctly() {
    let cols: Vec<Vec<u64>> = (0..20u64)
        .map(|i| vec![(i * 0x9e37_79b9) & 0xfffff])
        .collect();
    let m = Model {
        ins: vec![(d("a"), cols[..13].to_vec()), (d("b"), cols[13..].to_vec())],
        outs: vec![(d("o"), 1 << 20)],
    };
    let l = m.layout();
    let t = l.table().unwrap();
    let ev = l.evaluator();
    for (flat, x) in m.inputs().iter().enumerate().step_by(97) {
        let want = m.eval(x)[0];
        assert_eq!(t[flat], want);
        assert_eq!(ev.apply(x).unwrap()[0].1, want);
        assert_eq!(l.apply(x).unwrap()[0].1, want);
    }
    assert_eq!(t.len(), 1 << 20);
    // table_into reuses a buffer and overwrites whatever was there.
    let mut buf = vec![7u64; 3];
    l.table_into(&mut buf).unwrap();
    assert_eq!(buf, t);
    let small = LinearLayout::identity_1d(4, d("a"), d("o"));
    small.table_into(&mut buf).unwrap();
    assert_eq!(buf, vec![0, 1, 2, 3]);
}

// ------------------------------------------------------------------ errors

fn d(s: &str) -> DimName {
    DimName::new(s)
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    use serde_json::json;
    // Non-power-of-two sizes.
    assert!(matches!(
        LinearLayout::new(vec![(d("i"), vec![vec![1]])], vec![(d("o"), 3)], false),
        Err(LayoutError::NotPowerOfTwo { .. })
    ));
    assert!(matches!(
        LinearLayout::new(vec![(d("i"), vec![vec![1]])], vec![(d("o"), 0)], false),
        Err(LayoutError::NotPowerOfTwo { .. })
    ));
    assert!(LinearLayout::try_identity_1d(6, d("i"), d("o")).is_err());
    assert!(LinearLayout::try_zeros_1d(4, d("i"), d("o"), 3).is_err());
    assert!(LinearLayout::try_strided_1d(4, 3, d("i"), d("o")).is_err());
    // Components out of range, wrong basis length.
    assert!(matches!(
        LinearLayout::new(vec![(d("i"), vec![vec![4]])], vec![(d("o"), 4)], false),
        Err(LayoutError::ComponentOutOfRange {
            value: 4,
            size: 4,
            ..
        })
    ));
    assert!(matches!(
        LinearLayout::new(vec![(d("i"), vec![vec![1, 0]])], vec![(d("o"), 4)], false),
        Err(LayoutError::BasisLength { .. })
    ));
    // More than 64 bits.
    let many: Vec<Vec<u64>> = (0..65).map(|_| vec![0]).collect();
    assert!(matches!(
        LinearLayout::new(vec![(d("i"), many)], vec![(d("o"), 1)], false),
        Err(LayoutError::TooManyBits { .. })
    ));
    assert!(matches!(
        LinearLayout::try_identity_1d(1 << 33, d("i"), d("o"))
            .unwrap()
            .try_mul(&LinearLayout::try_identity_1d(1 << 32, d("i"), d("o")).unwrap()),
        Err(LayoutError::TooManyBits { .. })
    ));
    assert!(LinearLayout::new(vec![], vec![(d("a"), 1 << 40), (d("b"), 1 << 40)], false).is_err());
    // More than MAX_DIMS dims (of size 1: no bits): a JSON object of bases
    // of 100 000 components, quadratic in the dims, took 3 s.
    let outs: Vec<(DimName, u64)> = (0..=linear_layout::MAX_DIMS)
        .map(|i| (DimName::dim(i), 1))
        .collect();
    assert!(LinearLayout::new(vec![], outs[..linear_layout::MAX_DIMS].to_vec(), false).is_ok());
    let e = LinearLayout::new(vec![], outs, false).unwrap_err();
    assert!(
        matches!(
            e,
            LayoutError::TooManyDims {
                dims: 65,
                limit: 64,
                ..
            }
        ),
        "{e}"
    );
    let wide = serde_json::json!({ "register": [vec![0; 100_000]] });
    let e = LinearLayout::from_json(&wide, None).unwrap_err();
    assert_eq!(e.to_string(), "too many output dims: 100000 (at most 64)");
    let ins: Vec<(DimName, Vec<Vec<u64>>)> = (0..=linear_layout::MAX_DIMS)
        .map(|i| (d(&format!("in{i}")), vec![]))
        .collect();
    assert!(matches!(
        LinearLayout::new(ins, vec![], false),
        Err(LayoutError::TooManyDims { which: "input", .. })
    ));
    // Duplicate dims.
    assert!(matches!(
        LinearLayout::new(
            vec![(d("i"), vec![vec![1]]), (d("i"), vec![vec![0]])],
            vec![(d("o"), 2)],
            false
        ),
        Err(LayoutError::DuplicateDim { .. })
    ));
    assert!(matches!(
        LinearLayout::new(vec![], vec![(d("o"), 2), (d("o"), 2)], false),
        Err(LayoutError::DuplicateDim { .. })
    ));
    // Not surjective when required.
    assert!(matches!(
        LinearLayout::new(vec![(d("i"), vec![vec![1]])], vec![(d("o"), 4)], true),
        Err(LayoutError::NotSurjective { .. })
    ));
    // Mismatched dims.
    let a = LinearLayout::identity_1d(4, d("i"), d("o"));
    let b = LinearLayout::identity_1d(4, d("j"), d("p"));
    assert!(a.compose(&b).is_err());
    assert!(a.invert_and_compose(&b).is_err());
    assert!(linear_layout::factor_through(&a, &b).is_err());
    assert!(a.apply(&[(d("j"), 1)]).is_err());
    assert!(a.transpose_outs(&[d("p")]).is_err());
    assert!(a.reshape_outs(&[(d("o"), 8)]).is_err());
    assert!(a.resize_out_dim(d("o"), 8).is_err());
    assert!(a.rename_out_dim(d("zz"), d("o")).is_err());
    assert!(a.is_trivial_over(&[d("zz")]).is_err());
    // JSON: negative, non-integer, malformed.
    assert!(matches!(
        LinearLayout::from_json(&json!({"register": [[-1]]}), Some(&[4])),
        Err(LayoutError::NegativeComponent { value: -1, .. })
    ));
    assert!(LinearLayout::from_json(&json!({"register": [[1.5]]}), Some(&[4])).is_err());
    assert!(LinearLayout::from_json(&json!({"register": [1]}), Some(&[4])).is_err());
    assert!(LinearLayout::from_json(&json!([1, 2]), None).is_err());
    assert!(LinearLayout::from_json(&json!({"register": [[5]]}), Some(&[4])).is_err());
    assert!(LinearLayout::from_json(&json!({"register": [[1]]}), Some(&[3])).is_err());
    assert!(
        LinearLayout::from_json(&json!({"register": [[1]], "out_dims": [["dim0"]]}), None).is_err()
    );
    assert!(LinearLayout::from_json(&json!({"register": [[1, 2]]}), Some(&[4])).is_err());
    // The error names the problem and the value.
    let e = LinearLayout::new(
        vec![(d("lane"), vec![vec![9]])],
        vec![(d("dim0"), 8)],
        false,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("lane") && e.contains('9') && e.contains("dim0"),
        "{e}"
    );
}
