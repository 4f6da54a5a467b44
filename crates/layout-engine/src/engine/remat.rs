//! Index arithmetic (and loads of fewer elements than threads) takes the
//! layout its uses want: free values are resolved last, from their uses
//! backwards through their producers (broadcast collapses, expand_dims
//! slices, trans and reshape invert, elementwise ops pass it on).

use super::{shape, Pass};
use crate::assignment::Layout;
use crate::error::Result;
use crate::ir::{Def, OpId, OpKind, ValueId};
use crate::shape_ops::{canon, collapse_dims, drop_dim, reshape, split, transpose};
use hw_layouts::slice::Slice;
use hw_layouts::Encoding;

impl Pass<'_> {
    /// Layouts of free values from their uses, last use first.
    pub(super) fn resolve_free(&mut self, order: &[OpId]) -> Result<()> {
        // The uses are read while `self` is changed: taken out and put back.
        let uses = std::mem::take(&mut self.uses);
        let out = self.resolve_free_with(order, &uses);
        self.uses = uses;
        out
    }

    fn resolve_free_with(&mut self, order: &[OpId], uses: &[Vec<(OpId, usize)>]) -> Result<()> {
        let p = self.p;
        // Free values in reverse definition order: users are resolved first.
        let mut free_vals: Vec<ValueId> = (0..p.values.len()).filter(|&v| self.free[v]).collect();
        free_vals.sort_by_key(|&v| std::cmp::Reverse(self.def_position(v)));
        let _ = order;
        for v in free_vals {
            let mut us: Vec<(OpId, usize)> = uses[v].clone();
            us.sort_by_key(|&(u, i)| (self.position[u], i));
            let l = us.iter().find_map(|k| self.demand.get(k).cloned());
            let l = match l {
                Some(l) => l,
                None => self.default_layout(v)?,
            };
            self.lay[v] = Some(l.clone());
            // Backwards through the producer.
            let Some(o) = p.def_op(v) else { continue };
            let op = &p.ops[o];
            let back: Option<Layout> = match &op.kind {
                OpKind::Elementwise => Some(l.clone()),
                OpKind::Broadcast => {
                    let s = shape(p, op.operands[0]);
                    Some(Layout::from_ll(canon(&collapse_dims(&l.ll, &s)?)))
                }
                OpKind::ExpandDims { axis } => {
                    let slice = Encoding::Slice(Slice {
                        dim: *axis,
                        parent: Box::new(l.encoding.clone()),
                    });
                    let want = canon(&drop_dim(&l.ll, *axis)?);
                    Some(
                        match (&l.encoding, Layout::new(slice, &shape(p, op.operands[0]))) {
                            (Encoding::Linear(_), _) => Layout::from_ll(want),
                            (_, Ok(x)) if x.ll == want => x,
                            _ => Layout::from_ll(want),
                        },
                    )
                }
                OpKind::Trans { order } => {
                    let mut inv = vec![0; order.len()];
                    for (i, &x) in order.iter().enumerate() {
                        if x < inv.len() {
                            inv[x] = i;
                        }
                    }
                    Some(Layout::from_ll(transpose(&l.ll, &inv)?))
                }
                OpKind::Reshape => {
                    Some(Layout::from_ll(reshape(&l.ll, &shape(p, op.operands[0]))?))
                }
                OpKind::Join => split(&l.ll).ok().map(Layout::from_ll),
                OpKind::Load => Some(l.clone()),
                _ => None,
            };
            if let Some(b) = back {
                for i in 0..op.operands.len() {
                    if matches!(op.kind, OpKind::Elementwise | OpKind::Join | OpKind::Load)
                        || i == 0
                    {
                        self.want(o, i, &b);
                    }
                }
            }
        }
        Ok(())
    }

    pub(super) fn def_position(&self, v: ValueId) -> usize {
        match self.p.values[v].def {
            Def::Result { op, .. } => self.position[op] * 2 + 1,
            Def::RegionArg { op, .. } => self.position[op] * 2 + 1,
            Def::FuncArg(_) => 0,
        }
    }
}
