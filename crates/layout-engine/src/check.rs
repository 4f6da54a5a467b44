//! The checker: given a program and an [`Assignment`], verify every op's
//! layout rule. It runs on the engine's output and on Triton's own
//! TTGIR, and shares no code with the engine's choices: only the shape-op
//! maps of [`crate::shape_ops`] (themselves tested against Triton's slice
//! layout) and equality of linear maps.
//!
//! What it proves, per op, on the layouts each use *sees*:
//!
//! | op | rule |
//! |---|---|
//! | elementwise, `addptr`, casts, `scan`, loads, stores, atomics | every tensor operand and result: one linear map |
//! | loads / stores / atomics | and the map covers the tensor (surjective) |
//! | `reduce(axis)` | each result = the operand with out dim `axis` dropped (Triton's slice) |
//! | `expand_dims(axis)` | operand = result with the size-1 dim dropped |
//! | `broadcast` | operand = result with broadcast dims collapsed |
//! | `trans`, `reshape`, `join`, `split` | result = the [`crate::shape_ops`] map of the operand |
//! | `dot` / `warp_group_dot` | accumulator = result; register operands are `dot_op(opIdx, parent)` with parent = result |
//! | `dot_scaled` | accumulator = result (its operands' layouts are those of Triton's decomposition, [`crate::scaled_dot`], which needs the target: the engine wants them, `tests/anchors_corpus.rs` compares them with Triton's) |
//! | `gather` | indices = result |
//! | `scf.for` / `while` / `if` | init = region argument = yielded value = result |
//!
//! Layouts are compared up to duplicated registers ([`canon`]) where the
//! shape changes (reduce, expand_dims, broadcast), exactly elsewhere.

use crate::assignment::{Assignment, Layout};
use crate::ir::{OpId, OpKind, Program, ValueId};
use crate::shape_ops::{canon, collapse_dims, drop_dim, join, reshape, split, transpose};
use hw_layouts::Encoding;
use linear_layout::LinearLayout;
use serde::Serialize;

/// Which rule a violation breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Rule {
    /// A tensor value without a layout.
    MissingLayout,
    /// Operands and results of a same-layout op disagree.
    SameLayout,
    /// A memory op's layout does not cover its tensor.
    Coverage,
    /// A reduce result is not the operand's slice.
    ReduceSlice,
    /// An expand_dims operand is not the result's slice.
    ExpandDims,
    /// A broadcast operand is not the collapsed result.
    Broadcast,
    /// trans / reshape / join / split result is not the operand's map.
    ShapeOp,
    /// A dot operand is not `dot_op(parent = result)`, or the accumulator differs.
    DotOperand,
    /// Gather indices and result disagree.
    Gather,
    /// A loop-carried / branch value changes layout across the region edge.
    RegionEdge,
    /// A use marked rematerialised whose value is not index arithmetic
    /// (constants, ranges, splats and elementwise/shape ops of those).
    Remat,
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The op's line.
    pub line: usize,
    /// The op's name.
    pub op: String,
    /// The rule.
    pub rule: Rule,
    /// The value(s) involved.
    pub detail: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}: {} breaks {:?}: {}",
            self.line, self.op, self.rule, self.detail
        )
    }
}

struct Ctx<'a> {
    p: &'a Program,
    a: &'a Assignment,
    out: Vec<Violation>,
}

impl<'a> Ctx<'a> {
    fn fail(&mut self, o: OpId, rule: Rule, detail: String) {
        let op = &self.p.ops[o];
        self.out.push(Violation {
            line: op.line,
            op: op.name.clone(),
            rule,
            detail,
        });
    }

    fn seen(&self, o: OpId, i: usize) -> Option<&'a Layout> {
        self.a.seen(self.p, o, i)
    }

    fn res(&self, v: ValueId) -> Option<&'a Layout> {
        self.a.layout(v)
    }

    fn name(&self, v: ValueId) -> &'a str {
        &self.p.values[v].name
    }

    /// Tensor operands (index, layout) and tensor results (value, layout).
    #[allow(clippy::type_complexity)]
    fn tensors(
        &self,
        o: OpId,
    ) -> (
        Vec<(usize, Option<&'a Layout>)>,
        Vec<(ValueId, Option<&'a Layout>)>,
    ) {
        let op = &self.p.ops[o];
        let ins = (0..op.operands.len())
            .filter(|&i| self.p.is_tensor(op.operands[i]))
            .map(|i| (i, self.seen(o, i)))
            .collect();
        let outs = op
            .results
            .iter()
            .filter(|&&v| self.p.is_tensor(v))
            .map(|&v| (v, self.res(v)))
            .collect();
        (ins, outs)
    }

    fn all_same(&mut self, o: OpId) {
        let (ins, outs) = self.tensors(o);
        let p = self.p;
        let op = &p.ops[o];
        let mut first: Option<(String, LinearLayout)> = None;
        let mut bad = None;
        for (name, l) in ins
            .iter()
            .map(|(i, l)| (self.name(op.operands[*i]).to_string(), *l))
            .chain(outs.iter().map(|(v, l)| (self.name(*v).to_string(), *l)))
        {
            let Some(l) = l else { continue };
            match &first {
                None => first = Some((name, l.ll.clone())),
                Some((n0, l0)) if *l0 != l.ll => {
                    bad = Some(format!("{name} differs from {n0}"));
                    break;
                }
                _ => {}
            }
        }
        if let Some(d) = bad {
            self.fail(o, Rule::SameLayout, d);
        }
    }

    fn coverage(&mut self, o: OpId) {
        let (ins, _) = self.tensors(o);
        for (i, l) in ins {
            if let Some(l) = l {
                if !l.ll.is_surjective() {
                    let n = self.name(self.p.ops[o].operands[i]).to_string();
                    self.fail(o, Rule::Coverage, format!("{n} does not cover its tensor"));
                }
            }
        }
    }

    fn expect(
        &mut self,
        o: OpId,
        rule: Rule,
        got: Option<&Layout>,
        want: Option<LinearLayout>,
        what: String,
        up_to_dups: bool,
    ) {
        let (Some(got), Some(want)) = (got, want) else {
            return;
        };
        // Equal maps are equal up to duplicates too (the canonical forms
        // are built only when the maps differ).
        let ok = got.ll == want || (up_to_dups && canon(&got.ll) == canon(&want));
        if !ok {
            self.fail(o, rule, what);
        }
    }

    fn region_edge(&mut self, o: OpId, a: ValueId, b: ValueId, what: &str) {
        if let (Some(x), Some(y)) = (self.res(a), self.res(b)) {
            if x.ll != y.ll {
                let d = format!("{what}: {} vs {}", self.name(a), self.name(b));
                self.fail(o, Rule::RegionEdge, d);
            }
        }
    }

    /// Layout seen by operand `i` of `o` against the layout of value `b`.
    fn edge_use(&mut self, o: OpId, i: usize, b: ValueId, what: &str) {
        let v = self.p.ops[o].operands[i];
        if !self.p.is_tensor(v) {
            return;
        }
        if let (Some(x), Some(y)) = (self.seen(o, i), self.res(b)) {
            if x.ll != y.ll {
                let d = format!("{what}: {} vs {}", self.name(v), self.name(b));
                self.fail(o, Rule::RegionEdge, d);
            }
        }
    }

    fn dot_operand(&mut self, o: OpId, i: usize, op_idx: u32, result: &Layout, shape: &[u64]) {
        if self.a.shared_operands.contains(&(o, i)) {
            // Read from shared memory: only wgmma (mma v3) does that.
            let wgmma = matches!(&*result.encoding, Encoding::NvidiaMma(m) if m.version_major == 3);
            if !wgmma {
                let n = self.name(self.p.ops[o].operands[i]);
                self.fail(
                    o,
                    Rule::DotOperand,
                    format!("{n} read from shared memory by a dot that is not wgmma"),
                );
            }
            return;
        }
        let Some(l) = self.seen(o, i) else { return };
        let ok = match &*l.encoding {
            Encoding::DotOperand(d) => {
                d.op_idx == op_idx
                    && d.parent
                        .to_linear_layout(shape)
                        .is_ok_and(|pl| pl == result.ll)
            }
            // Any other attribute denoting the same linear map as a
            // `dot_op` of the result's layout (for some kWidth).
            _ => {
                let v = self.p.ops[o].operands[i];
                let Some(oshape) = self.p.values[v].ty.tensor_shape() else {
                    return;
                };
                [1u32, 2, 4, 8, 16, 32].iter().any(|&k| {
                    let d = Encoding::DotOperand(hw_layouts::dot_operand::DotOperand {
                        op_idx,
                        parent: Box::new((*result.encoding).clone()),
                        k_width: k,
                    });
                    d.to_linear_layout(oshape).is_ok_and(|dl| dl == l.ll)
                })
            }
        };
        if !ok {
            let n = self.name(self.p.ops[o].operands[i]).to_string();
            self.fail(
                o,
                Rule::DotOperand,
                format!("{n} is not dot_op(opIdx = {op_idx}) of the result's layout"),
            );
        }
    }

    fn op(&mut self, o: OpId) {
        let p = self.p;
        let op = &p.ops[o];
        if p.in_combine_region(o) {
            return;
        }
        for &v in &op.results {
            if p.is_tensor(v) && self.res(v).is_none() {
                self.fail(o, Rule::MissingLayout, self.name(v).to_string());
            }
        }
        let r0 = op.results.first().copied();
        let in0 = || {
            if op.operands.is_empty() {
                None
            } else {
                Some(0)
            }
        };
        match &op.kind {
            OpKind::Elementwise | OpKind::Scan { .. } => self.all_same(o),
            OpKind::Load | OpKind::Store | OpKind::Atomic => {
                self.all_same(o);
                self.coverage(o);
            }
            OpKind::Reduce { axis } => {
                self.all_same_inputs(o);
                let Some(src) = in0().and_then(|i| self.seen(o, i)).cloned() else {
                    return;
                };
                let want = drop_dim(&src.ll, *axis).ok();
                for &v in &op.results {
                    if p.is_tensor(v) {
                        let what = format!(
                            "{} is not the slice of its operand along {axis}",
                            self.name(v)
                        );
                        self.expect(o, Rule::ReduceSlice, self.res(v), want.clone(), what, true);
                    }
                }
            }
            OpKind::ExpandDims { axis } => {
                let (Some(r), Some(i)) = (r0, in0()) else {
                    return;
                };
                let want = self.res(r).and_then(|l| drop_dim(&l.ll, *axis).ok());
                let what = format!(
                    "{} is not the slice of {}",
                    self.name(op.operands[i]),
                    self.name(r)
                );
                self.expect(o, Rule::ExpandDims, self.seen(o, i), want, what, true);
            }
            OpKind::Broadcast => {
                let (Some(r), Some(i)) = (r0, in0()) else {
                    return;
                };
                let Some(to) = p.values[op.operands[i]]
                    .ty
                    .tensor_shape()
                    .map(<[u64]>::to_vec)
                else {
                    return;
                };
                let want = self.res(r).and_then(|l| collapse_dims(&l.ll, &to).ok());
                let what = format!(
                    "{} is not {} collapsed",
                    self.name(op.operands[i]),
                    self.name(r)
                );
                self.expect(o, Rule::Broadcast, self.seen(o, i), want, what, true);
            }
            OpKind::Trans { order } => {
                let (Some(r), Some(i)) = (r0, in0()) else {
                    return;
                };
                let want = self.seen(o, i).and_then(|l| transpose(&l.ll, order).ok());
                let what = format!("{} is not the transpose of its operand", self.name(r));
                self.expect(o, Rule::ShapeOp, self.res(r), want, what, false);
            }
            OpKind::Reshape => {
                if op.text.contains("allow_reorder") || op.text.contains("efficient_layout") {
                    return;
                }
                let (Some(r), Some(i)) = (r0, in0()) else {
                    return;
                };
                let Some(to) = p.values[r].ty.tensor_shape().map(<[u64]>::to_vec) else {
                    return;
                };
                let want = self.seen(o, i).and_then(|l| reshape(&l.ll, &to).ok());
                let what = format!("{} is not the reshape of its operand", self.name(r));
                self.expect(o, Rule::ShapeOp, self.res(r), want, what, false);
            }
            OpKind::Join => {
                self.all_same_inputs(o);
                let (Some(r), Some(i)) = (r0, in0()) else {
                    return;
                };
                // The operand is the result with the join bit removed.
                let want = self.res(r).and_then(|l| split(&l.ll).ok());
                let what = format!(
                    "{} does not hold the joined operands in one register bit",
                    self.name(r)
                );
                if want.is_none() && self.res(r).is_some() {
                    self.fail(o, Rule::ShapeOp, what);
                } else {
                    self.expect(o, Rule::ShapeOp, self.seen(o, i), want, what, false);
                }
            }
            OpKind::Split => {
                let Some(i) = in0() else { return };
                let src = self.seen(o, i).cloned();
                let want = src.as_ref().and_then(|l| split(&l.ll).ok());
                if src.is_some() && want.is_none() {
                    self.fail(
                        o,
                        Rule::ShapeOp,
                        "the split dim is not one register bit".into(),
                    );
                    return;
                }
                for &v in &op.results {
                    let what = format!("{} is not the split of its operand", self.name(v));
                    self.expect(o, Rule::ShapeOp, self.res(v), want.clone(), what, false);
                }
                let _ = join; // join is split's inverse; tested in shape_ops
            }
            OpKind::Dot | OpKind::WarpGroupDot | OpKind::DotScaled => {
                let Some(r) = r0 else { return };
                let Some(res) = self.res(r).cloned() else {
                    return;
                };
                let Some(shape) = p.values[r].ty.tensor_shape().map(<[u64]>::to_vec) else {
                    return;
                };
                let acc = if op.kind == OpKind::DotScaled {
                    op.operands.len().checked_sub(1)
                } else {
                    Some(2)
                };
                if let Some(acc) = acc.filter(|&k| k < op.operands.len()) {
                    let what = format!(
                        "accumulator {} differs from the result",
                        self.name(op.operands[acc])
                    );
                    self.expect(
                        o,
                        Rule::DotOperand,
                        self.seen(o, acc),
                        Some(res.ll.clone()),
                        what,
                        false,
                    );
                }
                if op.kind != OpKind::DotScaled {
                    for (i, idx) in [(0usize, 0u32), (1, 1)] {
                        if i < op.operands.len() && p.is_tensor(op.operands[i]) {
                            self.dot_operand(o, i, idx, &res, &shape);
                        }
                    }
                }
            }
            OpKind::Gather { .. } => {
                let Some(r) = r0 else { return };
                if op.operands.len() > 1 {
                    let what = format!(
                        "indices {} differ from the result",
                        self.name(op.operands[1])
                    );
                    let want = self.res(r).map(|l| l.ll.clone());
                    self.expect(o, Rule::Gather, self.seen(o, 1), want, what, false);
                }
            }
            OpKind::For => {
                let body = &op.regions[0];
                // operands: lb, ub, step, inits…; region args: iv, iters…
                for k in 0..op.results.len() {
                    let (init, arg, res) = (3 + k, body.args.get(k + 1).copied(), op.results[k]);
                    if let Some(arg) = arg {
                        self.edge_use(o, init, arg, "loop init vs iteration argument");
                        self.region_edge(o, arg, res, "iteration argument vs result");
                    }
                }
                self.yield_edges(o, 0, &op.results.clone(), 0);
            }
            OpKind::While => {
                let before = &op.regions[0];
                for (k, &arg) in before.args.iter().enumerate() {
                    self.edge_use(o, k, arg, "while init vs before-argument");
                }
                if let Some(after) = op.regions.get(1) {
                    let args = before.args.clone();
                    self.yield_edges(o, 1, &args, 0);
                    for (k, &r) in op.results.iter().enumerate() {
                        if let Some(&aa) = after.args.get(k) {
                            self.region_edge(o, aa, r, "after-argument vs result");
                        }
                    }
                }
                // scf.condition passes values to the results (skip the flag).
                self.yield_edges(o, 0, &op.results.clone(), 1);
            }
            OpKind::If => {
                for ri in 0..op.regions.len() {
                    self.yield_edges(o, ri, &op.results.clone(), 0);
                }
            }
            _ => {}
        }
    }

    fn all_same_inputs(&mut self, o: OpId) {
        let (ins, _) = self.tensors(o);
        let p = self.p;
        let op = &p.ops[o];
        let mut first: Option<&Layout> = None;
        for (i, l) in ins {
            let Some(l) = l else { continue };
            match first {
                None => first = Some(l),
                Some(f) if f.ll != l.ll => {
                    let d = format!(
                        "operand {} differs from the first",
                        self.name(op.operands[i])
                    );
                    self.fail(o, Rule::SameLayout, d);
                    return;
                }
                _ => {}
            }
        }
    }

    /// The terminator of region `ri` of `o` passes its operands (from
    /// `skip`) to `targets`.
    fn yield_edges(&mut self, o: OpId, ri: usize, targets: &[ValueId], skip: usize) {
        let Some(term) = self.p.ops[o]
            .regions
            .get(ri)
            .and_then(|r| r.ops.last())
            .copied()
        else {
            return;
        };
        let t = &self.p.ops[term];
        if !matches!(t.kind, OpKind::Yield | OpKind::Condition) {
            return;
        }
        if (t.kind == OpKind::Condition) != (skip == 1) {
            return;
        }
        for (k, &target) in targets.iter().enumerate() {
            if k + skip < t.operands.len() {
                self.edge_use(term, k + skip, target, "yielded value vs region target");
            }
        }
    }
}

/// Whether every value in the backward slice of `v` can be recomputed in
/// any layout (constants, `make_range`, `splat` of scalars, loads of fewer
/// elements than the CTA's `threads`, and elementwise or shape ops of
/// those), so a use may see another layout without a conversion.
pub fn rematerialisable(p: &Program, v: ValueId, threads: u64) -> bool {
    let mut stack = vec![v];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) || !p.is_tensor(v) {
            continue;
        }
        let Some(o) = p.def_op(v) else { return false };
        let op = &p.ops[o];
        let small = p.values[v]
            .ty
            .tensor_shape()
            .is_some_and(|s| s.iter().product::<u64>() < threads);
        match op.kind {
            OpKind::Constant | OpKind::MakeRange | OpKind::Splat => {}
            OpKind::Load if small => stack.extend(op.operands.iter().copied()),
            OpKind::Elementwise
            | OpKind::Broadcast
            | OpKind::ExpandDims { .. }
            | OpKind::Trans { .. }
            | OpKind::Reshape
            | OpKind::Join => stack.extend(op.operands.iter().copied()),
            _ => return false,
        }
    }
    true
}

/// Every violated rule of `a` on `p` (empty = the assignment is legal).
pub fn check(p: &Program, a: &Assignment) -> Vec<Violation> {
    let mut c = Ctx {
        p,
        a,
        out: Vec::new(),
    };
    for o in p.walk() {
        c.op(o);
    }
    // Threads of the CTA, from any layout of the assignment.
    let threads = a
        .layouts
        .iter()
        .flatten()
        .next()
        .map(|l| {
            let n = |d| {
                if l.ll.has_in_dim(d) {
                    l.ll.in_dim_size(d)
                } else {
                    1
                }
            };
            n(linear_layout::DimName::LANE) * n(linear_layout::DimName::WARP)
        })
        .unwrap_or(1);
    for (o, i) in a.rematerialised() {
        let v = p.ops[o].operands[i];
        if !rematerialisable(p, v, threads) {
            let d = format!(
                "{} is recomputed in another layout but is not index arithmetic",
                p.values[v].name
            );
            c.fail(o, Rule::Remat, d);
        }
    }
    c.out
}
