//! The engine: anchors, propagation as linear-layout maps, and conversion
//! placement by cost (the paper's §4.4 over the tile IR).
//!
//! 1. **Anchors** ([`crate::anchors`]): every global load/store/atomic gets
//!    Coalesce's blocked layout from the [`crate::axis`] facts of its
//!    pointer; every dot gets its mma/wgmma/mfma accumulator and operand
//!    layouts.
//! 2. **Index arithmetic is free**: constants, `make_range`, `splat` and
//!    elementwise/shape ops of those ([`crate::check::rematerialisable`])
//!    are recomputed in whatever layout each use wants (as Triton does), so
//!    they never cost a conversion; their layouts are resolved last, from
//!    their uses backwards (broadcast collapses, expand_dims slices, trans
//!    and reshape invert).
//! 3. **Propagation** forward in dominance order, each shape op a map of
//!    [`crate::shape_ops`]: reduce slices, expand_dims unslices (the parent
//!    when the operand is its slice), broadcast reuses the zero bases
//!    (or a same-shape neighbour it collapses to), trans/reshape/join/split
//!    transform the linear layout (a `#ttg.linear` where no legacy family
//!    expresses it).
//! 4. **Placement by cost**: where an elementwise op's operands arrive in
//!    different layouts, each operand layout is a candidate and the one of
//!    least total converted cost (the plan cost model, weighted by loop
//!    depth, [`crate::cost`], plus the op's own work in the candidate,
//!    [`crate::compute`]) wins; the candidates and their costs are kept
//!    for `--explain`. A use that sees another layout is a conversion,
//!    dropped from the count when the algebra proves it trivial. Each
//!    conversion (of an elementwise operand, a dot operand, a stored
//!    value) goes where the placement (`engine/placement.rs`) finds it cheapest: at the value, or
//!    at the producers of a backward slice of register-only ops that is
//!    then recomputed in the new layout (a minimum cut over the slice, of
//!    the conversions plus the change of the compute term the
//!    recomputation makes).
//! 5. **Loops**: a loop-carried value whose initial value is index
//!    arithmetic (a zero accumulator, a pointer tensor) takes the layout its
//!    uses in the body want, or the layout of the value yielded into it
//!    (an accumulator stays in its dot's layout): a first sweep finds both,
//!    a second fixes each, and the assignment of lower total cost wins
//!    (`engine/sweeps.rs`).
//! 6. **Choices by total cost** ([`search`]): the warps of chained dots
//!    (attention's `Q·Kᵀ` → `P·V`) are chosen jointly among their legal
//!    arrangements, and a reduction whose result is broadcast back may
//!    take its operand in a layout that keeps the reduced axis inside a
//!    warp ([`reduction`]); the engine runs once per candidate and the
//!    least total cost (conversions plus reductions, loop-weighted) wins,
//!    ties to Triton's rule.
//! 7. **Objective** ([`objective`]): every comparison above ranks by the
//!    total cost by default; [`Objective::Conversions`] ranks by the
//!    conversions' cost, the other terms only breaking ties.
//!
//! This file is one pass over the program in op order: `Pass`'s match on
//! the op kind holds the propagation rule of every op (about 550 lines), so
//! that each op's rule is read in one place beside the others; the
//! placement search, the minimum cut, rematerialisation, chained dots,
//! reductions, the sweeps and the search are the submodules.

use crate::anchors::{
    blocked_for, coalesced, coalesced_layout, default_blocked, descriptor_coalesced,
    dot_layout_with_warps, memory_anchors_with, orig_bit_width, row_major, Target,
};
use crate::assignment::{Assignment, Layout};
use crate::axis::AxisInfo;
use crate::cost::{weighted, Pricer};
use crate::error::{EngineError, Result};
use crate::ir::{OpId, OpKind, Program, ValueId};
use crate::scaled_dot::scaled_dot_layout;
use crate::shape_ops::{
    canon, collapse_dims_canon, drop_dim, drop_dim_canon, insert_dim, join, lift, reshape, split,
    transpose,
};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use hw_layouts::slice::Slice;
use hw_layouts::Encoding;
use linear_layout::LinearLayout;
use serde::Serialize;
use std::rc::Rc;

mod chain;
pub mod gather;
pub mod gather_lowering;
mod mincut;
pub mod objective;
mod placement;
pub mod reduction;
mod remat;
pub mod search;
mod sweeps;

pub use objective::Objective;
pub use search::Choices;
use sweeps::assign_with;

/// What the engine is asked.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The target GPU.
    pub target: Target,
    /// Warps per CTA.
    pub num_warps: u64,
    /// What the engine minimises ([`Objective::Total`] by default).
    pub objective: Objective,
}

impl Options {
    /// `target` and `num_warps`, minimising the total cost.
    pub const fn new(target: Target, num_warps: u64) -> Options {
        Options {
            target,
            num_warps,
            objective: Objective::Total,
        }
    }

    /// These options minimising `objective` instead.
    pub const fn with_objective(self, objective: Objective) -> Options {
        Options { objective, ..self }
    }
}

/// One conflict and how it was settled.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    /// Line of the op.
    pub line: usize,
    /// The op.
    pub op: String,
    /// The result value (for a hoist: the value brought into a layout).
    pub value: String,
    /// The candidates and their weighted costs: for operands meeting in
    /// different layouts, each layout (Triton syntax) and the cost of
    /// converting the other operands into it; for a conversion hoisted to
    /// producers (`op` = `hoist into …`), the placement chosen and
    /// converting the value where it is used.
    pub candidates: Vec<(String, f64)>,
    /// Index of the chosen candidate.
    pub chosen: usize,
}

/// The engine's answer.
#[derive(Clone, Debug)]
pub struct EngineOutput {
    /// A layout for every tensor value, and the conversions.
    pub assignment: Assignment,
    /// Every conflict settled by cost.
    pub decisions: Vec<Decision>,
}

#[allow(clippy::mutable_key_type)]
struct Pass<'a> {
    p: &'a Program,
    info: &'a [AxisInfo],
    opts: Options,
    lanes: u64,
    pricer: &'a mut Pricer,
    lay: Vec<Option<Layout>>,
    free: Vec<bool>,
    /// The layout each use wants, shared between the uses that want the
    /// same one ([`Pass::want_all`], [`Pass::resolve_free`]).
    demand: HashMap<(OpId, usize), Rc<Layout>>,
    shared: HashSet<(OpId, usize)>,
    decisions: Vec<Decision>,
    fixed: &'a HashMap<ValueId, Layout>,
    /// Choices made outside the pass ([`search`]): dot warps, warp-local reductions.
    choices: &'a Choices,
    position: Vec<usize>,
    /// Uses of every value ([`Program::uses`]), computed once.
    uses: Vec<Vec<(OpId, usize)>>,
    /// Coalesced anchors of the memory ops ([`crate::anchors::memory_anchors`]).
    anchors: HashMap<OpId, crate::anchors::Coalesced>,
    /// Conversions already placed (value, destination): reusing one is free.
    made: HashSet<(ValueId, LinearLayout)>,
}

fn shape(p: &Program, v: ValueId) -> Vec<u64> {
    p.values[v]
        .ty
        .tensor_shape()
        .map(<[u64]>::to_vec)
        .unwrap_or_default()
}

/// Whether `v` is a tensor of `ll`'s out shape (no allocation: `want` asks
/// it of every operand).
fn same_shape(p: &Program, v: ValueId, ll: &LinearLayout) -> bool {
    let Some(s) = p.values[v].ty.tensor_shape() else {
        return false;
    };
    s.len() == ll.num_out_dims()
        && ll
            .out_dim_names()
            .zip(s)
            .all(|(d, &x)| ll.out_dim_size(d) == x)
}

impl Pass<'_> {
    fn default_layout(&self, v: ValueId) -> Result<Layout> {
        let s = shape(self.p, v);
        Layout::new(default_blocked(&s, self.opts.num_warps, self.lanes), &s)
    }

    fn want(&mut self, o: OpId, i: usize, l: &Layout) {
        self.want_shared(o, i, l, &mut None);
    }

    /// [`Self::want`], sharing `shared` (made from `l` on first need)
    /// between the uses wanting `l`.
    fn want_shared(&mut self, o: OpId, i: usize, l: &Layout, shared: &mut Option<Rc<Layout>>) {
        if let Some(&v) = self.p.ops[o].operands.get(i) {
            if self.p.is_tensor(v) && same_shape(self.p, v, &l.ll) {
                // Wanting the layout already wanted changes nothing.
                if self.demand.get(&(o, i)).is_some_and(|d| **d == *l) {
                    return;
                }
                let d = shared.get_or_insert_with(|| Rc::new(l.clone())).clone();
                self.demand.insert((o, i), d);
            }
        }
    }

    /// Operand `i` of an anchor `o` (dot operand, stored value) wanted in
    /// `l`: the conversion goes where [`Pass::bring`] finds it cheapest.
    fn want_data(&mut self, o: OpId, i: usize, l: &Layout) -> Result<()> {
        self.want(o, i, l);
        if let Some(&v) = self.p.ops[o].operands.get(i) {
            if self.p.is_tensor(v) && same_shape(self.p, v, &l.ll) {
                self.place(o, v, l)?;
            }
        }
        Ok(())
    }

    /// Brings `v`, used by `o`, into `c` where [`Pass::bring`] finds it
    /// cheapest; a conversion moved to producers is recorded as a decision
    /// (for `--explain`) beside the cost of converting `v` where it is used.
    fn place(&mut self, o: OpId, v: ValueId, c: &Layout) -> Result<()> {
        let (cost, h) = self.bring(v, c)?;
        if !h.rewrite.is_empty() {
            if let Some(l) = self.known(v) {
                let p = self.p;
                let here = weighted(
                    self.pricer
                        .price(&l.ll, &c.ll, p.values[v].ty.elem_bits())?
                        .cycles,
                    p.def_depth(v),
                );
                let moved: Vec<&str> = h
                    .convert
                    .iter()
                    .map(|(w, _, _)| p.values[*w].name.as_str())
                    .collect();
                let hoisted = if moved.is_empty() {
                    format!("recompute {} values, no conversion", h.rewrite.len())
                } else {
                    format!(
                        "convert {} and recompute {} values above",
                        moved.join(", "),
                        h.rewrite.len()
                    )
                };
                self.decisions.push(Decision {
                    line: p.ops[o].line,
                    op: format!("hoist into {}", p.ops[o].name),
                    value: p.values[v].name.clone(),
                    candidates: vec![
                        (hoisted, cost),
                        (
                            format!("convert {} where it is used", p.values[v].name),
                            here,
                        ),
                    ],
                    chosen: 0,
                });
            }
        }
        self.apply_hoist(&h);
        Ok(())
    }

    fn known(&self, v: ValueId) -> Option<Layout> {
        self.known_ref(v).cloned()
    }

    /// [`Self::known`] without the clone.
    fn known_ref(&self, v: ValueId) -> Option<&Layout> {
        if self.free[v] {
            None
        } else {
            self.lay[v].as_ref()
        }
    }

    fn set_all_results(&mut self, o: OpId, l: &Layout) {
        for &r in &self.p.ops[o].results {
            if self.p.is_tensor(r) {
                self.lay[r] = Some(l.clone());
            }
        }
    }

    fn want_all(&mut self, o: OpId, l: &Layout) {
        let mut shared = None;
        for i in 0..self.p.ops[o].operands.len() {
            self.want_shared(o, i, l, &mut shared);
        }
    }

    /// The operand's layout, or the default one demanded of it.
    fn operand_or_default(&mut self, o: OpId, i: usize) -> Result<Layout> {
        let v = self.p.ops[o].operands[i];
        match self.known(v) {
            Some(l) => Ok(l),
            None => self.default_layout(v),
        }
    }

    fn op(&mut self, o: OpId) -> Result<()> {
        let p = self.p;
        let op = &p.ops[o];
        if p.in_combine_region(o) {
            return Ok(());
        }
        let nw = self.opts.num_warps;
        let tensor_result = op.results.iter().any(|&r| p.is_tensor(r));
        match &op.kind {
            OpKind::ConvertLayout | OpKind::Memory | OpKind::WarpGroupDot => {
                return Err(EngineError::Unsupported(format!(
                    "line {}: {} is TTGIR; the engine reads layout-free TTIR",
                    op.line, op.name
                )))
            }
            OpKind::Constant | OpKind::MakeRange | OpKind::Splat => {
                for &r in &op.results {
                    self.free[r] = p.is_tensor(r);
                }
            }
            OpKind::Elementwise => {
                if !tensor_result {
                    return Ok(());
                }
                let nonfree: Vec<ValueId> = op
                    .operands
                    .iter()
                    .copied()
                    .filter(|&v| p.is_tensor(v) && self.known_ref(v).is_some())
                    .collect();
                if nonfree.is_empty() {
                    for &r in &op.results {
                        self.free[r] = true;
                    }
                    return Ok(());
                }
                let mut cands: Vec<Layout> = Vec::new();
                for &v in &nonfree {
                    let l = self.known_ref(v).expect("filtered");
                    if !cands.iter().any(|c| c.ll == l.ll) {
                        cands.push(l.clone());
                    }
                }
                let chosen = if cands.len() == 1 {
                    cands.pop().expect("one")
                } else {
                    let mut costs = Vec::new();
                    for c in &cands {
                        // The op's own work in `c` ([`crate::compute`]):
                        // a replicated candidate repeats it.
                        let work = crate::compute::op_cycles(p, o, &c.ll, self.info);
                        let mut total = self.opts.objective.score(0.0, work);
                        for &v in &nonfree {
                            total += self.bring(v, c)?.0;
                        }
                        costs.push(total);
                    }
                    let mut best = (0..cands.len())
                        .min_by(|&a, &b| costs[a].total_cmp(&costs[b]).then(a.cmp(&b)))
                        .expect("candidates");
                    // Another candidate the search found cheaper in total.
                    if let Some(&k) = self.choices.tied_pick.get(&o) {
                        if k < cands.len() {
                            best = k;
                        }
                    }
                    self.decisions.push(Decision {
                        line: op.line,
                        op: op.name.clone(),
                        value: op
                            .results
                            .first()
                            .map(|&r| p.values[r].name.clone())
                            .unwrap_or_default(),
                        candidates: cands
                            .iter()
                            .zip(&costs)
                            .map(|(c, &k)| (c.mlir(), k))
                            .collect(),
                        chosen: best,
                    });
                    cands.swap_remove(best)
                };
                for &v in &nonfree {
                    self.place(o, v, &chosen)?;
                }
                self.set_all_results(o, &chosen);
                self.want_all(o, &chosen);
            }
            OpKind::Load | OpKind::Store | OpKind::Atomic => {
                let Some(&ptr) = op.operands.first() else {
                    return Ok(());
                };
                let Some(s) = p.values[ptr].ty.tensor_shape().map(<[u64]>::to_vec) else {
                    return Ok(());
                };
                // A load of fewer elements than threads is no anchor (Triton's
                // `isExpensiveLoadOrStore`): it is issued in the layout its
                // uses want, like index arithmetic.
                if op.kind == OpKind::Load
                    && s.iter().product::<u64>() < nw * self.lanes
                    && !self.choices.anchored_loads.contains(&o)
                {
                    for &r in &op.results {
                        self.free[r] = true;
                    }
                    return Ok(());
                }
                let elem = p.values[ptr].ty.elem();
                let pointee = elem
                    .strip_prefix("!tt.ptr<")
                    .and_then(|x| x.strip_suffix('>'))
                    .unwrap_or(elem);
                let bits = crate::ir::elem_bits(pointee);
                let c = match self.anchors.get(&o) {
                    Some(c) => c.clone(),
                    None => coalesced(&s, &self.info[ptr], bits, nw, self.lanes),
                };
                let l = Layout::new(coalesced_layout(&s, &c, nw, self.lanes), &s)?;
                self.set_all_results(o, &l);
                self.want_all(o, &l);
                if op.kind == OpKind::Store {
                    // The stored value: a conversion may move up its producers.
                    self.want_data(o, 1, &l)?;
                }
            }
            OpKind::Dot | OpKind::DotScaled => {
                let Some(&r) = op.results.first() else {
                    return Ok(());
                };
                if op.kind == OpKind::DotScaled {
                    if let Some(c) = scaled_dot_layout(p, op, self.opts.target, nw) {
                        let res = Layout::from_ll(c.result);
                        self.lay[r] = Some(res.clone());
                        self.want(o, c.accumulator, &res);
                        for (i, l) in c.wants {
                            self.want_data(o, i, &Layout::from_ll(l))?;
                        }
                        return Ok(());
                    }
                }
                let rs = shape(p, r);
                if rs.len() < 2 {
                    return Err(EngineError::Unsupported(format!(
                        "line {}: dot of rank {}",
                        op.line,
                        rs.len()
                    )));
                }
                let (a, b) = (op.operands[0], op.operands.get(1).copied());
                let ashape = shape(p, a);
                let k = ashape.last().copied().unwrap_or(1);
                let bits = p.values[a].ty.elem_bits();
                // IEEE fp32 is the default precision and prints no attribute.
                let ieee = bits == 32 && !op.text.contains("inputPrecision = tf32");
                let chain = self.dot_chain(o);
                let warps = self.choices.dot_warps.get(&o).map(|w| &w[..]);
                let orig_bits = match b {
                    Some(b) => orig_bit_width(p, a).min(orig_bit_width(p, b)),
                    None => orig_bit_width(p, a),
                };
                let choice =
                    dot_layout_with_warps(self.opts.target, &rs, k, bits, ieee, chain, nw, warps)
                        .with_mma_v2_operand_bits(orig_bits);
                let res = Layout::new(choice.result.clone(), &rs)?;
                self.lay[r] = Some(res.clone());
                if op.kind == OpKind::DotScaled {
                    // Scaled dots: the accumulator is the operand of the result's shape and type.
                    for i in 0..op.operands.len() {
                        let v = op.operands[i];
                        if shape(p, v) == rs && p.values[v].ty.elem() == p.values[r].ty.elem() {
                            self.want(o, i, &res);
                        }
                    }
                    return Ok(());
                }
                self.want(o, 2, &res);
                match choice.a {
                    Some(enc) => {
                        let l = Layout::new(enc, &ashape)?;
                        self.want_data(o, 0, &l)?;
                    }
                    None => {
                        let from_mma = self
                            .known_ref(a)
                            .is_some_and(|l| matches!(*l.encoding, Encoding::NvidiaMma(_)));
                        match (&choice.a_in_registers, from_mma) {
                            (Some(enc), true) => {
                                let l = Layout::new(enc.clone(), &ashape)?;
                                self.want_data(o, 0, &l)?;
                            }
                            _ => {
                                self.shared.insert((o, 0));
                            }
                        }
                    }
                }
                match (choice.b, b) {
                    (Some(enc), Some(b)) => {
                        let l = Layout::new(enc, &shape(p, b))?;
                        self.want_data(o, 1, &l)?;
                    }
                    _ => {
                        self.shared.insert((o, 1));
                    }
                }
            }
            OpKind::Reduce { axis } | OpKind::Scan { axis } => {
                if op.operands.is_empty() || !p.is_tensor(op.operands[0]) {
                    return Ok(());
                }
                let mut src = self.operand_or_default(o, 0)?;
                let local = self.choices.local_reduce.contains(&o);
                match local
                    .then(|| reduction::warp_local(&src.ll, *axis))
                    .flatten()
                {
                    // The reduced axis moved inside the warp (`search`):
                    // the operands are brought into that layout.
                    Some(ll) => {
                        src = Layout::from_ll(ll);
                        for i in 0..op.operands.len() {
                            self.want_data(o, i, &src)?;
                        }
                    }
                    None => self.want_all(o, &src),
                }
                if matches!(op.kind, OpKind::Scan { .. }) {
                    self.set_all_results(o, &src);
                    return Ok(());
                }
                for &r in &op.results {
                    if !p.is_tensor(r) {
                        continue;
                    }
                    let rs = shape(p, r);
                    let slice = Encoding::Slice(Slice {
                        dim: *axis,
                        parent: Box::new((*src.encoding).clone()),
                    });
                    let want = drop_dim_canon(&src.ll, *axis)?;
                    // A slice of a `#ttg.linear` parent is no simpler than the map.
                    let linear = matches!(*src.encoding, Encoding::Linear(_));
                    let l = match (!linear).then(|| Layout::new(slice, &rs)) {
                        Some(Ok(l)) if l.ll == want => l,
                        _ => Layout::from_ll(want),
                    };
                    self.lay[r] = Some(l);
                }
            }
            OpKind::ExpandDims { axis } => {
                let (v, r) = (op.operands[0], op.results[0]);
                let Some(src) = self.known(v) else {
                    self.free[r] = true;
                    return Ok(());
                };
                self.want(o, 0, &src);
                let rs = shape(p, r);
                let via_parent = match &*src.encoding {
                    Encoding::Slice(s)
                        if s.dim == *axis && !matches!(*s.parent, Encoding::Linear(_)) =>
                    {
                        Layout::new((*s.parent).clone(), &rs).ok().filter(|l| {
                            drop_dim(&l.ll, *axis).is_ok_and(|d| canon(&d) == canon(&src.ll))
                        })
                    }
                    _ => None,
                };
                let l = match via_parent {
                    Some(l) => l,
                    None => Layout::from_ll(insert_dim(&src.ll, *axis)?),
                };
                self.lay[r] = Some(l);
            }
            OpKind::Broadcast => {
                let (v, r) = (op.operands[0], op.results[0]);
                let Some(src) = self.known(v) else {
                    self.free[r] = true;
                    return Ok(());
                };
                self.want(o, 0, &src);
                let (vs, rs) = (shape(p, v), shape(p, r));
                let collapsed = canon(&src.ll);
                let fits =
                    |l: &LinearLayout| collapse_dims_canon(l, &vs).is_ok_and(|c| c == collapsed);
                let mut found = None;
                // A same-shape neighbour this value meets in an elementwise op.
                for &(u, _) in &self.uses[r] {
                    if p.ops[u].kind != OpKind::Elementwise {
                        continue;
                    }
                    for &w in &p.ops[u].operands {
                        if let Some(l) = self
                            .known_ref(w)
                            .filter(|l| shape(p, w) == rs && fits(&l.ll))
                        {
                            found = Some(l.clone());
                            break;
                        }
                        // Or a conversion of it already placed (a reduce's
                        // operand brought into a warp-local layout).
                        if let Some((_, l)) = self
                            .made
                            .iter()
                            .find(|(x, l)| *x == w && shape(p, w) == rs && fits(l))
                        {
                            found = Some(Layout::from_ll(l.clone()));
                            break;
                        }
                    }
                    if found.is_some() {
                        break;
                    }
                }
                let l = match found {
                    Some(l) => l,
                    // A `#ttg.linear` operand: lift its map directly.
                    None => match (!matches!(*src.encoding, Encoding::Linear(_)))
                        .then(|| Layout::new((*src.encoding).clone(), &rs).ok())
                        .flatten()
                        .filter(|l| fits(&l.ll))
                    {
                        Some(l) => l,
                        None => Layout::from_ll(lift(&src.ll, &vs, &rs)?),
                    },
                };
                self.lay[r] = Some(l);
            }
            OpKind::Trans { order } => {
                let (v, r) = (op.operands[0], op.results[0]);
                let Some(src) = self.known(v) else {
                    self.free[r] = true;
                    return Ok(());
                };
                self.want(o, 0, &src);
                self.lay[r] = Some(Layout::from_ll(transpose(&src.ll, order)?));
            }
            OpKind::Reshape => {
                let (v, r) = (op.operands[0], op.results[0]);
                let Some(src) = self.known(v) else {
                    self.free[r] = true;
                    return Ok(());
                };
                self.want(o, 0, &src);
                self.lay[r] = Some(Layout::from_ll(reshape(&src.ll, &shape(p, r))?));
            }
            OpKind::Join => {
                let r = op.results[0];
                let first = op.operands.iter().find_map(|&v| self.known(v));
                let Some(src) = first else {
                    self.free[r] = true;
                    return Ok(());
                };
                self.want_all(o, &src);
                self.lay[r] = Some(Layout::from_ll(join(&src.ll)?));
            }
            OpKind::Split => {
                let v = op.operands[0];
                let src = self.operand_or_default(o, 0)?;
                let src = match split(&src.ll) {
                    Ok(_) => src,
                    Err(_) => {
                        let s = shape(p, v);
                        let mut spt = vec![1; s.len()];
                        if let Some(x) = spt.last_mut() {
                            *x = 2;
                        }
                        Layout::new(
                            Encoding::Blocked(blocked_for(
                                &s,
                                &spt,
                                &row_major(s.len()),
                                nw,
                                self.lanes,
                            )),
                            &s,
                        )?
                    }
                };
                self.want(o, 0, &src);
                let half = Layout::from_ll(split(&src.ll)?);
                self.set_all_results(o, &half);
            }
            OpKind::Gather { axis } => {
                let r = op.results[0];
                if self.choices.lane_gather.contains(&o) {
                    let src = op.operands[0];
                    let src_shape = shape(p, src);
                    let order = match self.known_ref(src) {
                        Some(l) => gather::thread_order(l, src_shape.len()),
                        None => row_major(src_shape.len()),
                    };
                    let (s, l) = gather::lane_layout(
                        &src_shape,
                        &shape(p, r),
                        &order,
                        *axis,
                        nw,
                        self.lanes,
                    )?;
                    self.want(o, 0, &s);
                    self.want(o, 1, &l);
                    self.lay[r] = Some(l);
                    return Ok(());
                }
                let l = match op.operands.get(1).and_then(|&i| self.known(i)) {
                    Some(l) => l,
                    None => self.default_layout(r)?,
                };
                self.want(o, 1, &l);
                self.lay[r] = Some(l);
            }
            OpKind::Descriptor
                if op.name == "tt.descriptor_load" && self.opts.target == Target::Sm90 =>
            {
                // A TMA load's registers: Coalesce's rule for a 16-byte
                // aligned row-major tile (`anchors::descriptor_coalesced`).
                if let Some(&r) = op.results.first() {
                    let s = shape(p, r);
                    let bits = p.values[r].ty.elem_bits();
                    let c = descriptor_coalesced(&s, bits, nw, self.lanes);
                    self.lay[r] = Some(Layout::new(coalesced_layout(&s, &c, nw, self.lanes), &s)?);
                }
            }
            OpKind::Histogram | OpKind::Cat | OpKind::Descriptor => {
                for &r in &op.results {
                    if p.is_tensor(r) {
                        self.lay[r] = Some(self.default_layout(r)?);
                    }
                }
            }
            OpKind::For | OpKind::While => {
                let body = &op.regions[0];
                let (first_arg, first_init) = if op.kind == OpKind::For {
                    (1, 3)
                } else {
                    (0, 0)
                };
                for (k, &arg) in body.args.iter().enumerate().skip(first_arg) {
                    let Some(&init) = op.operands.get(first_init + k - first_arg) else {
                        continue;
                    };
                    if !p.is_tensor(arg) {
                        continue;
                    }
                    let l = self.fixed.get(&arg).cloned().or_else(|| self.known(init));
                    match l {
                        Some(l) => {
                            self.want(o, first_init + k - first_arg, &l);
                            self.lay[arg] = Some(l.clone());
                            if op.kind == OpKind::For {
                                if let Some(&r) = op.results.get(k - first_arg) {
                                    self.lay[r] = Some(l);
                                }
                            }
                        }
                        None => {
                            self.free[arg] = true;
                            if op.kind == OpKind::For {
                                if let Some(&r) = op.results.get(k - first_arg) {
                                    self.free[r] = true;
                                }
                            }
                        }
                    }
                }
            }
            OpKind::Yield | OpKind::Condition => {
                let Some(parent) = op.parent else {
                    return Ok(());
                };
                let pop = &p.ops[parent];
                let skip = usize::from(op.kind == OpKind::Condition);
                let region = pop
                    .regions
                    .iter()
                    .position(|r| r.ops.contains(&o))
                    .unwrap_or(0);
                // Where the yielded values go.
                let targets: Vec<ValueId> = match (&pop.kind, region) {
                    (OpKind::For, _) => pop.regions[0].args.iter().skip(1).copied().collect(),
                    (OpKind::While, 1) => pop.regions[0].args.clone(),
                    _ => pop.results.clone(),
                };
                for (k, &t) in targets.iter().enumerate() {
                    let i = k + skip;
                    let Some(&v) = op.operands.get(i) else {
                        continue;
                    };
                    if !p.is_tensor(v) {
                        continue;
                    }
                    if self.lay[t].is_none() && !self.free[t] {
                        let l = match self.known(v) {
                            Some(l) => l,
                            None => self.default_layout(v)?,
                        };
                        self.lay[t] = Some(l);
                    }
                    if let Some(l) = self.lay[t].clone() {
                        self.want(o, i, &l);
                    }
                    // scf.while: the after-region arguments mirror the results.
                    if pop.kind == OpKind::While && skip == 1 {
                        if let (Some(&aa), Some(l)) = (
                            pop.regions.get(1).and_then(|r| r.args.get(k)),
                            self.lay[t].clone(),
                        ) {
                            self.lay[aa] = Some(l);
                        }
                    }
                }
            }
            OpKind::If | OpKind::Scalar | OpKind::Return | OpKind::CombineReturn => {}
        }
        Ok(())
    }
}

/// Layouts, free marks, demands, shared-memory operands, decisions.
type PassOutput = (
    Vec<Option<Layout>>,
    Vec<bool>,
    HashMap<(OpId, usize), Rc<Layout>>,
    HashSet<(OpId, usize)>,
    Vec<Decision>,
);

// LinearLayout's only interior mutability is a lazily built evaluator that
// Hash and Eq ignore.
#[allow(clippy::mutable_key_type)]
fn run_pass(
    p: &Program,
    info: &[AxisInfo],
    opts: Options,
    pricer: &mut Pricer,
    fixed: &HashMap<ValueId, Layout>,
    choices: &Choices,
) -> Result<PassOutput> {
    let order = p.walk();
    let mut position = vec![0; p.ops.len()];
    for (k, &o) in order.iter().enumerate() {
        position[o] = k;
    }
    let mut pass = Pass {
        p,
        info,
        opts,
        lanes: opts.target.threads_per_warp(),
        pricer,
        lay: vec![None; p.values.len()],
        free: vec![false; p.values.len()],
        // Every operand may be wanted: sized once (a layout is large, and
        // rehashing a growing map moves every entry).
        demand: HashMap::with_capacity(p.ops.iter().map(|op| op.operands.len()).sum()),
        shared: HashSet::new(),
        decisions: Vec::new(),
        fixed,
        choices,
        position,
        made: HashSet::new(),
        uses: p.uses(),
        anchors: memory_anchors_with(p, opts.target, opts.num_warps, info)
            .into_iter()
            .map(|(o, _, c)| (o, c))
            .collect(),
    };
    for &o in &order {
        pass.op(o)?;
    }
    pass.resolve_free(&order)?;
    Ok((
        pass.lay,
        pass.free,
        pass.demand,
        pass.shared,
        pass.decisions,
    ))
}

/// Assigns layouts to a layout-free program (see the module doc), with
/// chained dots' warps and warp-local reductions chosen by total cost
/// ([`search`]).
pub fn assign(p: &Program, opts: Options, pricer: &mut Pricer) -> Result<EngineOutput> {
    search::search(p, opts, pricer)
}

/// [`assign`] without the search: dots take AccelerateMatmul's warps
/// (chained ones included) and reductions their operand's layout.
pub fn assign_fixed(p: &Program, opts: Options, pricer: &mut Pricer) -> Result<EngineOutput> {
    assign_with(p, opts, pricer, &Choices::default())
}
