//! Conversion placement: the cheapest way to bring a value into a layout
//! (convert it, or convert a smaller or narrower value above a chain of
//! single-use register-only ops and recompute the chain), and which dots
//! are chained to another dot.

use super::{shape, Pass};
use crate::assignment::Layout;
use crate::cost::weighted;
use crate::error::Result;
use crate::ir::{OpId, OpKind, ValueId};
use crate::shape_ops::{canon, collapse_dims, drop_dim, reshape, transpose};
use hw_layouts::slice::Slice;
use hw_layouts::Encoding;
use std::collections::HashSet;

impl Pass<'_> {
    /// The cheapest way to see `v` in layout `c`: convert `v` itself, or
    /// convert a smaller or narrower value above a chain of single-use
    /// `broadcast` / `expand_dims` / `reshape` / `trans` ops and
    /// elementwise ops of one data operand (casts such as `extf`), and
    /// recompute the chain in the new layout (register-only ops). Returns the weighted cost and the chain to
    /// rewrite (`(value, new layout)` from the converted value down; empty
    /// for converting `v` itself).
    pub(super) fn bring(
        &mut self,
        v: ValueId,
        c: &Layout,
    ) -> Result<(f64, Vec<(ValueId, Layout)>)> {
        let p = self.p;
        let Some(l) = self.known(v) else {
            return Ok((0.0, vec![]));
        };
        if l.ll == c.ll || self.made.contains(&(v, c.ll.clone())) {
            return Ok((0.0, vec![]));
        }
        let bits = p.values[v].ty.elem_bits();
        let mut best = (
            weighted(
                self.pricer.price(&l.ll, &c.ll, bits)?.cycles,
                p.def_depth(v),
            ),
            vec![],
        );
        let uses = &self.uses;
        let (mut cur, mut target) = (v, c.clone());
        let mut chain = vec![(v, c.clone())];
        for _ in 0..8 {
            let Some(o) = p.def_op(cur) else { break };
            let op = &p.ops[o];
            if uses[cur].len() != 1 || op.operands.is_empty() {
                break;
            }
            let src = match op.kind {
                OpKind::Elementwise => match self.single_data_operand(o) {
                    Some(i) => op.operands[i],
                    None => break,
                },
                _ => op.operands[0],
            };
            let Some(sl) = self.known(src) else { break };
            let back = match &op.kind {
                // A cast or other elementwise op of one data operand (the
                // rest index arithmetic): the same layout above it, and
                // the conversion moves the operand's element width
                // (`extf` after a convert moves half the bytes).
                OpKind::Elementwise => target.clone(),
                // Shape ops that only relabel tensor coordinates: their
                // inverse map gives the operand's layout exactly.
                OpKind::Reshape => Layout::from_ll(canon(&reshape(&target.ll, &shape(p, src))?)),
                OpKind::Trans { order } => {
                    let mut inverse = vec![0; order.len()];
                    for (i, &d) in order.iter().enumerate() {
                        if let Some(x) = inverse.get_mut(d) {
                            *x = i;
                        }
                    }
                    Layout::from_ll(canon(&transpose(&target.ll, &inverse)?))
                }
                OpKind::Broadcast => {
                    Layout::from_ll(canon(&collapse_dims(&target.ll, &shape(p, src))?))
                }
                OpKind::ExpandDims { axis } => {
                    let want = canon(&drop_dim(&target.ll, *axis)?);
                    let slice = Encoding::Slice(Slice {
                        dim: *axis,
                        parent: Box::new(target.encoding.clone()),
                    });
                    match Layout::new(slice, &shape(p, src)) {
                        Ok(x) if x.ll == want => x,
                        _ => Layout::from_ll(want),
                    }
                }
                _ => break,
            };
            chain.push((src, back.clone()));
            let cost = if canon(&sl.ll) == canon(&back.ll) {
                0.0
            } else {
                weighted(
                    self.pricer
                        .price(&sl.ll, &back.ll, p.values[src].ty.elem_bits())?
                        .cycles,
                    p.def_depth(src),
                )
            };
            if cost < best.0 {
                best = (cost, chain.clone());
            }
            cur = src;
            target = back;
        }
        Ok(best)
    }

    /// Rewrites a hoisting chain of [`Self::bring`]: the top value is
    /// converted where its shape op uses it, the shape ops below produce
    /// the new layouts.
    pub(super) fn apply_hoist(&mut self, chain: &[(ValueId, Layout)]) {
        let Some((top, top_layout)) = chain.last() else {
            return;
        };
        self.made.insert((*top, top_layout.ll.clone()));
        for w in chain.windows(2) {
            let (below, ref l) = w[0];
            let (above, ref al) = w[1];
            if let Some(o) = self.p.def_op(below) {
                self.lay[below] = Some(l.clone());
                let _ = above;
                if self.p.ops[o].kind == OpKind::Elementwise {
                    // Every operand (the data one and the recomputed index
                    // arithmetic) in the result's layout.
                    self.want_all(o, al);
                } else {
                    self.want(o, 0, al);
                }
            }
        }
    }

    /// The index of the one operand of elementwise op `o` that carries a
    /// layout (every other tensor operand is index arithmetic, recomputed
    /// in any layout); `None` when there are several or none.
    fn single_data_operand(&self, o: OpId) -> Option<usize> {
        let op = &self.p.ops[o];
        let mut data = op
            .operands
            .iter()
            .enumerate()
            .filter(|&(_, &v)| self.p.is_tensor(v) && self.known(v).is_some())
            .map(|(i, _)| i);
        let first = data.next()?;
        data.next().is_none().then_some(first)
    }

    /// Whether dot `o` is chained to another dot: its result reaches
    /// another dot's A/B operand, or its own A/B operand comes from a dot.
    pub(super) fn chained_dot(&self, o: OpId) -> bool {
        let op = &self.p.ops[o];
        if op.results.first().is_some_and(|&r| self.chained(r)) {
            return true;
        }
        // Backwards from A and B through non-dot producers.
        let mut stack: Vec<ValueId> = op.operands.iter().take(2).copied().collect();
        let mut seen = HashSet::new();
        while let Some(v) = stack.pop() {
            if !seen.insert(v) || seen.len() > 256 {
                continue;
            }
            let Some(d) = self.p.def_op(v) else { continue };
            match self.p.ops[d].kind {
                OpKind::Dot | OpKind::DotScaled => return true,
                OpKind::Load | OpKind::For | OpKind::While | OpKind::Reduce { .. } => {}
                _ => stack.extend(self.p.ops[d].operands.iter().copied()),
            }
        }
        false
    }

    pub(super) fn chained(&self, r: ValueId) -> bool {
        let uses = &self.uses;
        let mut stack = vec![r];
        let mut seen = HashSet::new();
        while let Some(v) = stack.pop() {
            if !seen.insert(v) || seen.len() > 256 {
                continue;
            }
            for &(u, i) in &uses[v] {
                let op = &self.p.ops[u];
                match op.kind {
                    OpKind::Dot | OpKind::DotScaled if i < 2 => return true,
                    OpKind::Dot
                    | OpKind::DotScaled
                    | OpKind::Store
                    | OpKind::Yield
                    | OpKind::Reduce { .. } => {}
                    _ => stack.extend(op.results.iter().copied()),
                }
            }
        }
        false
    }
}
