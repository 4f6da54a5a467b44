//! Which attribute each printed value carries (its *spelling*), op by op,
//! as Triton's verifiers and type inference want it.
//!
//! One linear map can be written as several attributes (an mma v2
//! accumulator and the `dot_op` of its parent; a 2-D blocked layout and
//! the slice of a 3-D one). A value's spelling is the attribute of its
//! type at its definition; Triton's ops constrain spellings, not maps:
//!
//! - `tt.reduce` infers its results as `#ttg.slice<{dim = axis, parent =
//!   P}>` of its operands' attribute `P` (all operands alike);
//! - `tt.expand_dims` infers its result as the parent `P` of an operand
//!   spelled `#ttg.slice<{dim = axis, parent = P}>`;
//! - `tt.dot` / `ttng.warp_group_dot` want A and B (in registers) as
//!   `#ttg.dot_op<{opIdx, parent = D, kWidth}>` of the result's `D`, and
//!   the accumulator as `D`;
//! - `scf.for` / `scf.if` / `scf.while` give an init, its region argument,
//!   its yield and its result one type;
//! - every other op (elementwise, broadcast, load/store, scan, gather, …)
//!   gives its result its first tensor operand's attribute where that
//!   attribute denotes the result's map, and wants each operand in the
//!   result's attribute where that attribute denotes the operand's map;
//! - `tt.trans`, `tt.reshape`, `tt.join`, `tt.split` accept any attribute
//!   of the inferred map (Triton checks these by linear-layout
//!   equivalence), so they constrain nothing here.
//!
//! A result takes the spelling inferred from its operands where that
//! spelling denotes the engine's map (else the map's canonical attribute,
//! [`Printer::canonical`]). Where a use wants another spelling than its
//! value's, the printer writes an attribute-only
//! `%acN = ttg.convert_layout` right before the use. Its two maps are
//! equal, or equal up to duplicated registers (zero register bases, which
//! a `#ttg.slice` drops: [`crate::shape_ops::canon`]), so it moves no data
//! and is not one of the engine's conversions.

use super::Printer;
use crate::assignment::Layout;
use crate::ir::{OpId, OpKind, ValueId};
use crate::shape_ops::canon;
use hw_layouts::dot_operand::DotOperand;
use hw_layouts::slice::Slice;
use hw_layouts::Encoding;

/// Name prefix of an attribute-only `ttg.convert_layout` (`%ac0`, ...).
pub const ATTRIBUTE_CONVERT_PREFIX: &str = "%ac";

/// `e` instantiated at `shape`, when its map is `l`'s (exactly, or up to
/// duplicated registers when `up_to_duplicates`).
fn denotes(e: &Encoding, l: &Layout, up_to_duplicates: bool) -> Option<Layout> {
    let shape = crate::shape_ops::out_shape(&l.ll);
    let x = Layout::new(e.clone(), &shape).ok()?;
    let same = x.ll == l.ll || (up_to_duplicates && canon(&x.ll) == canon(&l.ll));
    same.then_some(x)
}

/// `#ttg.dot_op<{opIdx, parent = d, kWidth}>` denoting the map of `l`,
/// the operand `op_idx` of a dot whose result is spelled `d`: the kWidth
/// of `l`'s own attribute when it is a dot operand, else `32 / bits` (the
/// kWidth Triton gives mma operands of `bits`-bit elements), else the
/// first of 1, 2, 4, 8, 16 whose map is `l`'s.
fn dot_operand_of(d: &Encoding, op_idx: u32, l: &Layout, bits: u32) -> Option<Encoding> {
    let own = match &*l.encoding {
        Encoding::DotOperand(x) => Some(x.k_width),
        _ => None,
    };
    own.into_iter()
        .chain((bits > 0 && bits <= 32).then(|| 32 / bits))
        .chain([1, 2, 4, 8, 16])
        .map(|k_width| {
            Encoding::DotOperand(DotOperand {
                op_idx,
                parent: Box::new(d.clone()),
                k_width,
            })
        })
        .find(|e| denotes(e, l, false).is_some())
}

/// `(operand, attribute it must have, whether duplicated registers may
/// differ)` for each operand an op constrains.
type Want = Vec<(usize, Encoding, bool)>;

/// `e` at the map of `l`, when it denotes it exactly.
fn infer(e: &Encoding, l: &Option<Layout>) -> Option<Layout> {
    l.as_ref().and_then(|l| denotes(e, l, false))
}

/// `tt.expand_dims`: the result is the parent of an operand spelled
/// `#ttg.slice<{dim = axis, parent}>`; the operand must be the slice of
/// the result's attribute (its map up to duplicated registers, which a
/// slice drops).
fn expand_dims(
    axis: usize,
    own: &[Option<Layout>],
    results: &[(String, Option<Layout>)],
    res: &mut [Option<Layout>],
    want: &mut Want,
) {
    let (Some(Some(u)), Some(r)) = (own.first(), results.first()) else {
        return;
    };
    if let Encoding::Slice(s) = &*u.encoding {
        if s.dim == axis {
            if let Some(x) = infer(&s.parent, &r.1) {
                res[0] = Some(x);
            }
        }
    }
    if let Some(Some(r)) = res.first() {
        let parent = Box::new((*r.encoding).clone());
        want.push((0, Encoding::Slice(Slice { dim: axis, parent }), true));
    }
}

/// `tt.reduce`: every operand as the first, every result its slice.
fn reduce(
    axis: usize,
    own: &[Option<Layout>],
    results: &[(String, Option<Layout>)],
    res: &mut [Option<Layout>],
    want: &mut Want,
) {
    let Some(Some(u)) = own.first() else { return };
    let base = (*u.encoding).clone();
    for i in 1..own.len() {
        want.push((i, base.clone(), false));
    }
    let parent = Box::new(base);
    let s = Encoding::Slice(Slice { dim: axis, parent });
    for (k, r) in results.iter().enumerate() {
        if let Some(x) = infer(&s, &r.1) {
            res[k] = Some(x);
        }
    }
}

/// `tt.dot` / `ttng.warp_group_dot`: A and B in registers as
/// `#ttg.dot_op` of the result's attribute, the accumulator as the result
/// (`bits`: each operand's element width).
fn dot(
    operands: &[(String, Option<Layout>)],
    bits: &[u32],
    res: &[Option<Layout>],
    want: &mut Want,
) {
    let Some(Some(d)) = res.first() else { return };
    for (i, (_, l)) in operands.iter().enumerate().take(2) {
        let Some(l) = l else { continue };
        let b = bits.get(i).copied().unwrap_or(0);
        if let Some(e) = dot_operand_of(&d.encoding, i as u32, l, b) {
            want.push((i, e, false));
        }
    }
    if operands.len() > 2 {
        want.push((2, (*d.encoding).clone(), false));
    }
}

/// `scf.for` (operands: lower bound, upper bound, step, inits): a result
/// takes its init's attribute where it denotes its map, and the init (and
/// the region argument, [`Printer::spell_op`]) the result's.
fn for_loop(
    own: &[Option<Layout>],
    results: &[(String, Option<Layout>)],
    res: &mut [Option<Layout>],
    want: &mut Want,
) {
    for (k, r) in results.iter().enumerate() {
        if let Some(Some(u)) = own.get(3 + k) {
            if let Some(x) = infer(&u.encoding, &r.1) {
                res[k] = Some(x);
            }
        }
        if let Some(Some(x)) = res.get(k) {
            want.push((3 + k, (*x.encoding).clone(), false));
        }
    }
}

/// Ops whose operands and results share one attribute (elementwise,
/// broadcast, load/store, scan, gather's indices, ...; `own` from operand
/// `first` on): the attribute most operands already have (the result's
/// canonical one first among equals) that denotes every result's map; a
/// store's operands take their most common.
fn same_attribute(
    own: &[Option<Layout>],
    results: &[(String, Option<Layout>)],
    res: &mut [Option<Layout>],
    want: &mut Want,
    first: usize,
) {
    // Each attribute once, in order of first appearance (the first of the
    // most agreeing wins below, so repeats decide nothing and each costs an
    // inference).
    let mut cands: Vec<Encoding> = Vec::new();
    for e in res.iter().flatten().chain(own.iter().flatten()) {
        if !cands.contains(&e.encoding) {
            cands.push((*e.encoding).clone());
        }
    }
    let agree = |e: &Encoding| own.iter().flatten().filter(|u| *u.encoding == *e).count();
    let fits = |e: &Encoding| {
        results
            .iter()
            .all(|(_, l)| l.is_none() || infer(e, l).is_some())
    };
    let mut best: Option<(usize, Encoding)> = None;
    for e in cands.into_iter().filter(|e| fits(e)) {
        let n = agree(&e);
        if best.as_ref().is_none_or(|(m, _)| n > *m) {
            best = Some((n, e));
        }
    }
    let Some((_, e)) = best else { return };
    for (k, r) in results.iter().enumerate() {
        if let Some(x) = infer(&e, &r.1) {
            res[k] = Some(x);
        }
    }
    for i in 0..own.len() {
        want.push((first + i, e.clone(), false));
    }
}

fn spelled(e: &Encoding, l: &Layout) -> Layout {
    Layout {
        encoding: std::sync::Arc::new(e.clone()),
        ll: l.ll.clone(),
    }
}

/// What one op wants: the spelling each operand must have (`None`: any)
/// and the spelling of each result.
pub(super) struct Spelled {
    /// `(reference, layout)` of each operand after attribute-only
    /// conversions, the layout's encoding being the printed attribute.
    pub operands: Vec<(String, Option<Layout>)>,
    /// Each result's layout with its printed attribute.
    pub results: Vec<Option<Layout>>,
}

impl Printer<'_> {
    /// The layout `l` of the value printed as `name`, with that value's
    /// spelling (its canonical attribute when none was chosen).
    pub(super) fn spelled_as(&self, name: &str, l: &Layout) -> Layout {
        match self.spell.get(name) {
            Some(e) => spelled(e, l),
            None => spelled(&self.canonical(l), l),
        }
    }

    /// Records the spelling of a defined value.
    pub(super) fn define(&mut self, name: &str, l: &Layout) {
        self.spell.insert(name.to_string(), (*l.encoding).clone());
    }

    /// The spellings of op `o`'s operands (`operands`: the references and
    /// the maps the op sees) and of its results (`results`: names and the
    /// engine's maps); writes to `out` (at `indent`) the attribute-only
    /// conversions its operands need, and records the results' spellings.
    pub(super) fn spell_op(
        &mut self,
        o: OpId,
        operands: &[(String, Option<Layout>)],
        results: &[(String, Option<Layout>)],
        indent: &str,
        out: &mut String,
    ) -> Spelled {
        let p = self.p;
        let op = &p.ops[o];
        let own: Vec<Option<Layout>> = operands
            .iter()
            .map(|(n, l)| l.as_ref().map(|l| self.spelled_as(n, l)))
            .collect();
        let default =
            |s: &Self, l: &Option<Layout>| l.as_ref().map(|l| spelled(&s.canonical(l), l));
        let mut res: Vec<Option<Layout>> = results.iter().map(|(_, l)| default(self, l)).collect();
        let mut want = Want::new();
        match &op.kind {
            OpKind::ExpandDims { axis } => expand_dims(*axis, &own, results, &mut res, &mut want),
            OpKind::Reduce { axis } => reduce(*axis, &own, results, &mut res, &mut want),
            OpKind::Dot | OpKind::WarpGroupDot => {
                let bits: Vec<u32> = op
                    .operands
                    .iter()
                    .map(|&v| p.values[v].ty.elem_bits())
                    .collect();
                dot(operands, &bits, &res, &mut want);
            }
            OpKind::Gather { .. } => {
                same_attribute(&own[1.min(own.len())..], results, &mut res, &mut want, 1)
            }
            OpKind::For => for_loop(&own, results, &mut res, &mut want),
            OpKind::While => {
                // The before region's arguments are typed as the inits.
                if let Some(r) = op.regions.first() {
                    for (k, &v) in r.args.iter().enumerate() {
                        if let Some(Some(u)) = own.get(k) {
                            self.define(&p.values[v].name, u);
                        }
                    }
                }
            }
            OpKind::Yield | OpKind::Condition => {
                let skip = usize::from(op.kind == OpKind::Condition);
                for (k, t) in self.yield_targets(o).iter().enumerate() {
                    if let Some(e) = self.spell.get(t) {
                        want.push((skip + k, e.clone(), false));
                    }
                }
            }
            OpKind::If
            | OpKind::Trans { .. }
            | OpKind::Reshape
            | OpKind::Join
            | OpKind::Split
            | OpKind::DotScaled
            | OpKind::ConvertLayout
            | OpKind::Memory
            | OpKind::Return => {}
            _ => same_attribute(&own, results, &mut res, &mut want, 0),
        }
        for ((n, _), r) in results.iter().zip(&res) {
            if let Some(r) = r {
                self.define(n, r);
            }
        }
        // The region arguments of a loop share their results' types.
        if op.kind == OpKind::For {
            if let Some(r) = op.regions.first() {
                for (k, &v) in r.args.iter().skip(1).enumerate() {
                    if let Some(Some(x)) = res.get(k) {
                        let n = p.values[v].name.clone();
                        self.define(&n, x);
                    }
                }
            }
        }
        if op.kind == OpKind::While {
            if let Some(r) = op.regions.get(1) {
                for (k, &v) in r.args.iter().enumerate() {
                    if let Some(Some(x)) = res.get(k) {
                        let n = p.values[v].name.clone();
                        self.define(&n, x);
                    }
                }
            }
        }
        let mut ops: Vec<(String, Option<Layout>)> = operands
            .iter()
            .zip(&own)
            .map(|((n, _), l)| (n.clone(), l.clone()))
            .collect();
        for (i, e, dup) in want {
            let Some((n, Some(u))) = ops.get(i).cloned() else {
                continue;
            };
            if *u.encoding == e {
                continue;
            }
            let Some(x) = denotes(&e, &u, dup) else {
                continue;
            };
            let v = op.operands[i];
            let name = self.attribute_convert(v, &n, &u, &x, indent, out);
            ops[i] = (name, Some(x));
        }
        Spelled {
            operands: ops,
            results: res,
        }
    }

    /// The values a yield (or `scf.condition`) `o` passes its operands to:
    /// its parent's results, or for a `scf.while`'s after region the
    /// before region's arguments.
    fn yield_targets(&self, o: OpId) -> Vec<String> {
        let p = self.p;
        let Some(q) = p.ops[o].parent.map(|q| &p.ops[q]) else {
            return Vec::new();
        };
        let names = |vs: &[ValueId]| vs.iter().map(|&v| p.values[v].name.clone()).collect();
        let before = q.regions.first();
        match before {
            Some(r) if q.kind == OpKind::While && !r.ops.contains(&o) => names(&r.args),
            _ => names(&q.results),
        }
    }

    /// The reference of `name` (spelled `from`) spelled `to`: an
    /// attribute-only `ttg.convert_layout` written to `out`, or one
    /// written before in an enclosing block.
    fn attribute_convert(
        &mut self,
        v: ValueId,
        name: &str,
        from: &Layout,
        to: &Layout,
        indent: &str,
        out: &mut String,
    ) -> String {
        let key = (name.to_string(), to.encoding.to_mlir());
        if let Some((n, scope)) = self.attribute_converts.get(&key) {
            if self.scope.starts_with(scope) {
                return n.clone();
            }
        }
        let n = self.fresh(ATTRIBUTE_CONVERT_PREFIX);
        let (s, d) = (self.tensor_type(v, from), self.tensor_type(v, to));
        out.push_str(&format!(
            "{indent}{n} = ttg.convert_layout {name} : {s} -> {d}\n"
        ));
        self.counts.3 += 1;
        self.define(&n, to);
        self.attribute_converts
            .insert(key, (n.clone(), self.scope.clone()));
        n
    }
}
