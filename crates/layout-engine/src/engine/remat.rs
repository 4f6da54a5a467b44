//! Index arithmetic (and loads of fewer elements than threads) takes the
//! layout its uses want: free values are resolved last, from their uses
//! backwards through their producers (broadcast collapses, expand_dims
//! slices, trans and reshape invert, elementwise ops pass it on).

use super::{shape, Pass};
use crate::assignment::Layout;
use crate::error::Result;
use crate::ir::{Def, OpId, OpKind, ValueId};
use crate::shape_ops::{collapse_dims_canon, drop_dim_canon, reshape, split, transpose};
use hw_layouts::slice::Slice;
use hw_layouts::Encoding;
use std::borrow::Cow;
use std::rc::Rc;

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
            // The layout the first use (in op order) wants.
            let first = uses[v]
                .iter()
                .filter(|k| self.demand.contains_key(k))
                .min_by_key(|&&(u, i)| (self.position[u], i));
            let (l, mut wanted) = match first {
                Some(k) => {
                    let d = Rc::clone(&self.demand[k]);
                    (Layout::clone(&d), Some(d))
                }
                None => (self.default_layout(v)?, None),
            };
            // Backwards through the producer.
            let Some(o) = p.def_op(v) else {
                self.lay[v] = Some(l);
                continue;
            };
            let op = &p.ops[o];
            let back: Option<Cow<Layout>> = match &op.kind {
                OpKind::Elementwise | OpKind::Load => Some(Cow::Borrowed(&l)),
                OpKind::Broadcast => {
                    let s = shape(p, op.operands[0]);
                    Some(Cow::Owned(Layout::from_ll(collapse_dims_canon(&l.ll, &s)?)))
                }
                OpKind::ExpandDims { axis } => {
                    let slice = Encoding::Slice(Slice {
                        dim: *axis,
                        parent: Box::new((*l.encoding).clone()),
                    });
                    let want = drop_dim_canon(&l.ll, *axis)?;
                    Some(Cow::Owned(
                        match (&*l.encoding, Layout::new(slice, &shape(p, op.operands[0]))) {
                            (Encoding::Linear(_), _) => Layout::from_ll(want),
                            (_, Ok(x)) if x.ll == want => x,
                            _ => Layout::from_ll(want),
                        },
                    ))
                }
                OpKind::Trans { order } => {
                    let mut inv = vec![0; order.len()];
                    for (i, &x) in order.iter().enumerate() {
                        if x < inv.len() {
                            inv[x] = i;
                        }
                    }
                    Some(Cow::Owned(Layout::from_ll(transpose(&l.ll, &inv)?)))
                }
                OpKind::Reshape => Some(Cow::Owned(Layout::from_ll(reshape(
                    &l.ll,
                    &shape(p, op.operands[0]),
                )?))),
                OpKind::Join => split(&l.ll).ok().map(|h| Cow::Owned(Layout::from_ll(h))),
                _ => None,
            };
            if let Some(b) = back {
                // Passed back unchanged: shared with the use that wanted it.
                let mut shared = match b {
                    Cow::Borrowed(_) => wanted.take(),
                    Cow::Owned(_) => None,
                };
                for i in 0..op.operands.len() {
                    if matches!(op.kind, OpKind::Elementwise | OpKind::Join | OpKind::Load)
                        || i == 0
                    {
                        self.want_shared(o, i, &b, &mut shared);
                    }
                }
            }
            self.lay[v] = Some(l);
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
