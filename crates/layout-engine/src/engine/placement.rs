//! Conversion placement: the cheapest way to bring a value into a layout.
//!
//! A value wanted in another layout can be converted where it is used, or
//! the conversion can move up to the producers of a backward slice of
//! register-only ops (elementwise ops of any number of operands, `join`,
//! `broadcast`, `expand_dims`, `reshape`, `trans`), which are then
//! recomputed in the layouts the wanted one implies: each producer's
//! operands take the inverse image of its result's layout. A conversion
//! of an `i8` load below a dequant chain moves a quarter of the bytes of
//! one of its `f32` results; one of a broadcast's operand moves fewer
//! elements.
//!
//! ## The choice is a minimum cut
//! The slice is a DAG of nodes `(value, wanted layout)`. A set `R` of
//! nodes is recomputed; a node outside `R` used by a node of `R` (or the
//! wanted value itself, when outside `R`) is converted at its weighted
//! plan cost `c`. `R` must be closed upwards: a recomputed value changes
//! its one layout, so every user of it must be recomputed too (a value
//! with a use outside the slice, or wanted in two layouts, is never
//! recomputed). Minimising the total cost is a minimum s–t cut
//! ([`super::mincut`]): per node `n` a membership node `x_n` (source side
//! = in `R`) and an entry node `a_n` with edges `x_parent → a_n` (∞),
//! `a_n → x_n` (`c`), `source → a_root` (∞), `x_n → x_parent` (∞, the
//! closure) and `x_n → sink` (∞) for a node that cannot be recomputed.
//! A cut edge `a_n → x_n` is a conversion of `n`. Recomputing `n` also
//! changes the compute term ([`crate::compute`]: its producer's work in
//! the new layout against the old, `δ_n`, loop-weighted like the
//! conversions): an edge `x_n → sink` of capacity `δ_n` when positive (a
//! replicated layout repeats the work), `source → x_n` of `−δ_n` when
//! negative (the saving is forgone unless `n` is recomputed), so the cut
//! minimises conversions plus compute, the total the engine reports.
//! Shared operands are
//! counted once, which a per-node greedy choice gets wrong: the two
//! nibble chains of an mxfp4 dequant each look cheaper to convert alone,
//! but together they meet at one `i8` load.

use super::mincut::{Network, INF};
use super::{shape, Pass};
use crate::assignment::Layout;
use crate::cost::weighted;
use crate::error::Result;
use crate::ir::{OpId, OpKind, ValueId};
use crate::shape_ops::{canon, collapse_dims_canon, drop_dim_canon, reshape, split, transpose};
use foldhash::{HashMap, HashMapExt};
use hw_layouts::slice::Slice;
use hw_layouts::Encoding;
use linear_layout::LinearLayout;

/// Nodes of the backward slice one [`Pass::bring`] explores (bounds the
/// search on long dequant chains; the corpus's largest slice, the sm80
/// mxfp4 matmul's B operand, has about 50 nodes).
const HOIST_BUDGET: usize = 256;

/// A recomputed value: its new layout and the layouts its producer's
/// tensor operands are then wanted in (operand index, layout).
pub(super) type Rewrite = (ValueId, Layout, Vec<(usize, Layout)>);

/// Where the conversions go when a value is brought into a layout.
#[derive(Clone, Debug, Default)]
pub(super) struct Hoist {
    /// Values recomputed in a new layout, each with the layouts its
    /// producer's tensor operands are then wanted in (operand index,
    /// layout).
    pub rewrite: Vec<Rewrite>,
    /// Values converted where the slice uses them (value, layout, weighted
    /// cost).
    pub convert: Vec<(ValueId, Layout, f64)>,
    /// The change of the compute term ([`crate::compute`]) by recomputing
    /// `rewrite` in its new layouts (negative when they hold fewer
    /// registers per thread), weighted as the objective weighs it
    /// ([`super::Objective::score`]).
    pub compute: f64,
}

impl Hoist {
    /// The weighted cost: the sum of the conversions and the change of the
    /// compute term.
    pub(super) fn cost(&self) -> f64 {
        self.convert.iter().map(|c| c.2).sum::<f64>() + self.compute + 0.0
    }
}

/// A node of the hoisting graph: `v` wanted in `target`.
struct Node {
    v: ValueId,
    /// `v`'s present layout.
    src: LinearLayout,
    target: Layout,
    /// Weighted cost of converting `v` into `target`: exact once priced,
    /// a lower bound ([`crate::cost::Pricer::lower_bound`]) before.
    cost: f64,
    exact: bool,
    /// The producer's operand layouts when it can be recomputed in
    /// `target`.
    wanted: Option<Vec<(usize, Layout)>>,
    /// Weighted compute cycles recomputing `v`'s producer in `target`
    /// adds (negative: saves) over computing it in `src`
    /// ([`crate::compute::op_cycles`]).
    delta: f64,
    /// Operand nodes (operands that need a conversion or a recomputation).
    children: Vec<usize>,
    parents: Vec<usize>,
}

/// The source side of the minimum cut of the hoisting graph (see the
/// module doc): node `n`'s membership node is `2 + 2n`, its entry node
/// `3 + 2n`.
fn min_cut(nodes: &[Node]) -> Vec<bool> {
    let mut net = Network::new(2 + 2 * nodes.len());
    let (s, t) = (0, 1);
    let x = |n: usize| 2 + 2 * n;
    let a = |n: usize| 3 + 2 * n;
    net.edge(s, a(0), INF);
    for (n, node) in nodes.iter().enumerate() {
        net.edge(a(n), x(n), node.cost);
        if node.wanted.is_none() {
            net.edge(x(n), t, INF);
            continue;
        }
        // Recomputing `n` (source side) pays its compute change: a cut
        // `x_n → sink` edge when positive; when negative, not recomputing
        // it forgoes the saving (a cut `source → x_n` edge). Every cut's
        // value is then its conversions plus its compute change plus the
        // sum of all savings, the same constant for every cut;
        // [`Pass::bring`] reports the cost without it ([`Hoist::cost`]).
        if node.delta > 0.0 {
            net.edge(x(n), t, node.delta);
        } else if node.delta < 0.0 {
            net.edge(s, x(n), -node.delta);
        }
        for &k in &node.children {
            net.edge(x(n), a(k), INF);
        }
        for &q in &node.parents {
            net.edge(x(n), x(q), INF);
        }
    }
    net.min_cut(s, t)
        .expect("every source-sink path has a finite edge: the root's entry or a saving")
}

impl Pass<'_> {
    /// The cheapest way to see `v` in layout `c` (see the module doc):
    /// the weighted cost and the placement ([`Hoist`]: empty when `v`
    /// already has `c`, is index arithmetic, or a conversion to `c`
    /// exists).
    // LinearLayout's only interior mutability is a lazily built evaluator
    // that Hash and Eq ignore.
    #[allow(clippy::mutable_key_type)]
    pub(super) fn bring(&mut self, v: ValueId, c: &Layout) -> Result<(f64, Hoist)> {
        let mut nodes: Vec<Node> = Vec::new();
        let mut index: HashMap<(ValueId, LinearLayout), usize> = HashMap::new();
        if self.slice_node(v, c, &mut nodes, &mut index)?.is_none() {
            return Ok((0.0, Hoist::default()));
        }
        // Explore the slice: nodes whose producer can be recomputed get
        // their operands as children.
        let mut queue = vec![0];
        while let Some(n) = queue.pop() {
            let w = nodes[n].v;
            if nodes.len() >= HOIST_BUDGET || (n == 0 && self.uses[w].len() != 1) {
                continue;
            }
            let Some(o) = self.p.def_op(w) else { continue };
            if self.p.ops[o].results.len() != 1 {
                continue;
            }
            let Some(wanted) = self.operand_layouts(o, &nodes[n].target)? else {
                continue;
            };
            for (i, l) in &wanted {
                let before = nodes.len();
                if let Some(k) =
                    self.slice_node(self.p.ops[o].operands[*i], l, &mut nodes, &mut index)?
                {
                    if k >= before {
                        queue.push(k);
                    }
                    if !nodes[n].children.contains(&k) {
                        nodes[n].children.push(k);
                        nodes[k].parents.push(n);
                    }
                }
            }
            let (p, info) = (self.p, self.info);
            let change = crate::compute::op_cycles(p, o, &nodes[n].target.ll, info)
                - crate::compute::op_cycles(p, o, &nodes[n].src, info);
            nodes[n].delta = self.opts.objective.score(0.0, change);
            nodes[n].wanted = Some(wanted);
        }
        // Values that keep their layout: wanted in two layouts, or used
        // outside the slice.
        let mut per_value: HashMap<ValueId, usize> = HashMap::new();
        for n in &nodes {
            *per_value.entry(n.v).or_default() += 1;
        }
        for n in 1..nodes.len() {
            let w = nodes[n].v;
            let outside = self.uses[w].iter().any(|&(u, _)| {
                !nodes[n]
                    .parents
                    .iter()
                    .any(|&q| self.p.def_op(nodes[q].v) == Some(u))
            });
            if outside || per_value[&w] > 1 {
                nodes[n].wanted = None;
            }
        }
        // The minimum cut, pricing lazily: nodes start at a lower bound of
        // their cost; while the cut converts a node not yet priced, price
        // it and cut again. A cut of exact costs is then minimal, as every
        // other cut costs at least its bound.
        let (x, a) = (|n: usize| 2 + 2 * n, |n: usize| 3 + 2 * n);
        let side = loop {
            let side = min_cut(&nodes);
            let open: Vec<usize> = (0..nodes.len())
                .filter(|&n| side[a(n)] && !side[x(n)] && !nodes[n].exact)
                .collect();
            if open.is_empty() {
                break side;
            }
            for n in open {
                let node = &nodes[n];
                let cycles = self
                    .pricer
                    .price(
                        &node.src,
                        &node.target.ll,
                        self.p.values[node.v].ty.elem_bits(),
                    )?
                    .cycles;
                nodes[n].cost = weighted(cycles, self.p.def_depth(nodes[n].v));
                nodes[n].exact = true;
            }
            for node in nodes.iter_mut().filter(|n| !n.exact) {
                let bits = self.p.values[node.v].ty.elem_bits();
                node.cost = weighted(
                    self.pricer.lower_bound(&node.src, &node.target.ll, bits),
                    self.p.def_depth(node.v),
                );
            }
        };
        let mut h = Hoist::default();
        for (n, node) in nodes.into_iter().enumerate() {
            if side[x(n)] {
                h.compute += node.delta;
                let wanted = node
                    .wanted
                    .expect("only recomputable nodes reach the source side");
                h.rewrite.push((node.v, node.target, wanted));
            } else if side[a(n)] {
                h.convert.push((node.v, node.target, node.cost));
            }
        }
        Ok((h.cost(), h))
    }

    /// The node for `v` wanted in `target`, priced; `None` when nothing is
    /// needed (index arithmetic, the same layout, a conversion already
    /// placed).
    #[allow(clippy::mutable_key_type)]
    fn slice_node(
        &mut self,
        v: ValueId,
        target: &Layout,
        nodes: &mut Vec<Node>,
        index: &mut HashMap<(ValueId, LinearLayout), usize>,
    ) -> Result<Option<usize>> {
        if self.free[v] {
            return Ok(None);
        }
        let Some(l) = self.lay[v].as_ref() else {
            return Ok(None);
        };
        let key = (v, target.ll.clone());
        if let Some(&n) = index.get(&key) {
            return Ok(Some(n));
        }
        if l.ll == target.ll || self.made.contains(&key) || canon(&l.ll) == canon(&target.ll) {
            return Ok(None);
        }
        let src = l.ll.clone();
        let bound = self
            .pricer
            .lower_bound(&src, &target.ll, self.p.values[v].ty.elem_bits());
        nodes.push(Node {
            v,
            src,
            target: target.clone(),
            cost: weighted(bound, self.p.def_depth(v)),
            exact: false,
            delta: 0.0,
            wanted: None,
            children: Vec::new(),
            parents: Vec::new(),
        });
        index.insert(key, nodes.len() - 1);
        Ok(Some(nodes.len() - 1))
    }

    /// The layouts the tensor operands of register-only op `o` take when
    /// its result has `target` (the inverse image of each shape op); `None`
    /// for other ops or when no operand layout gives `target`.
    fn operand_layouts(&self, o: OpId, target: &Layout) -> Result<Option<Vec<(usize, Layout)>>> {
        let p = self.p;
        let op = &p.ops[o];
        let Some(&src) = op.operands.first() else {
            return Ok(None);
        };
        let one = |l: Layout| Ok(Some(vec![(0, l)]));
        match &op.kind {
            // Every tensor operand (data and index arithmetic) in the
            // result's layout.
            OpKind::Elementwise => Ok(Some(
                op.operands
                    .iter()
                    .enumerate()
                    .filter(|&(_, &w)| p.is_tensor(w) && shape(p, w) == shape(p, op.results[0]))
                    .map(|(i, _)| (i, target.clone()))
                    .collect(),
            )),
            OpKind::Join => Ok(split(&target.ll).ok().map(|half| {
                let half = Layout::from_ll(canon(&half));
                (0..op.operands.len()).map(|i| (i, half.clone())).collect()
            })),
            // Shape ops that only relabel tensor coordinates: their
            // inverse map gives the operand's layout exactly.
            OpKind::Reshape => one(Layout::from_ll(canon(&reshape(
                &target.ll,
                &shape(p, src),
            )?))),
            OpKind::Trans { order } => {
                let mut inverse = vec![0; order.len()];
                for (i, &d) in order.iter().enumerate() {
                    if let Some(x) = inverse.get_mut(d) {
                        *x = i;
                    }
                }
                one(Layout::from_ll(canon(&transpose(&target.ll, &inverse)?)))
            }
            OpKind::Broadcast => one(Layout::from_ll(collapse_dims_canon(
                &target.ll,
                &shape(p, src),
            )?)),
            OpKind::ExpandDims { axis } => {
                let want = drop_dim_canon(&target.ll, *axis)?;
                let slice = Encoding::Slice(Slice {
                    dim: *axis,
                    parent: Box::new((*target.encoding).clone()),
                });
                one(match Layout::new(slice, &shape(p, src)) {
                    Ok(x) if x.ll == want => x,
                    _ => Layout::from_ll(want),
                })
            }
            _ => Ok(None),
        }
    }

    /// Applies a placement of [`Self::bring`]: recomputed values take
    /// their new layouts and want their operands in the implied ones;
    /// converted values are remembered (a second use of the same
    /// conversion is free).
    pub(super) fn apply_hoist(&mut self, h: &Hoist) {
        for (w, l, wanted) in &h.rewrite {
            self.lay[*w] = Some(l.clone());
            self.made.retain(|(x, _)| x != w);
            if let Some(o) = self.p.def_op(*w) {
                for (i, ol) in wanted {
                    self.want(o, *i, ol);
                }
            }
        }
        for (w, l, _) in &h.convert {
            self.made.insert((*w, l.ll.clone()));
        }
    }
}
