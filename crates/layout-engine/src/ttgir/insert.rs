//! What the printer inserts: a `ttg.convert_layout` per conversion and,
//! for a use that sees index arithmetic in another layout, the value's
//! producers recomputed in that layout (each operand in the backward map
//! of its producer).

use super::{unsupported, Inserted, Printer, RECOMPUTED_PREFIX};
use crate::assignment::{conversions, Layout};
use crate::error::Result;
use crate::ir::{OpId, OpKind, ValueId};
use crate::shape_ops::{canon, collapse_dims, drop_dim, reshape, split, transpose};
use hw_layouts::slice::Slice;
use hw_layouts::Encoding;

impl Printer<'_> {
    /// Conversions and recomputed producers, before any text is printed.
    // LinearLayout's only interior mutability is a lazily built evaluator
    // that Hash and Eq ignore.
    #[allow(clippy::mutable_key_type)]
    pub(super) fn plan(&mut self) -> Result<()> {
        let p = self.p;
        for l in self.a.layouts.iter().flatten() {
            self.seen.push(l.clone());
        }
        // Each op's place in program order and each value's uses: a
        // conversion's first reader is found among its value's uses
        // (scanning the whole program for each conversion took time
        // quadratic in the program's size).
        let mut place = vec![usize::MAX; p.ops.len()];
        for (k, o) in p.walk().into_iter().enumerate() {
            place[o] = k;
        }
        let uses = p.uses();
        for c in conversions(p, self.a)? {
            let name = self.fresh("%cvt");
            self.convert_names.push(name.clone());
            self.seen.push(c.dst.clone());
            let item = Inserted::Convert {
                name: name.clone(),
                value: c.value,
                src: Box::new(c.src),
                dst: Box::new(c.dst.clone()),
            };
            if c.at_use {
                // Only this op's operands that see `dst` read it.
                for (i, &v) in p.ops[c.op].operands.iter().enumerate() {
                    if v == c.value
                        && self
                            .a
                            .uses
                            .get(&(c.op, i))
                            .is_some_and(|u| u.ll == c.dst.ll)
                    {
                        self.renamed_use.insert((c.op, i), name.clone());
                    }
                }
                self.before.entry(c.op).or_default().push(item);
            } else {
                self.renamed.insert((c.value, c.dst.ll.clone()), name);
                match self.first_reader(&place, &uses, c.value, &c.dst.ll) {
                    Some(o) => self.before.entry(o).or_default().push(item),
                    None => self.after.entry(c.value).or_default().push(item),
                }
            }
            self.counts.0 += 1;
        }
        for (o, i) in self.a.rematerialised() {
            let v = p.ops[o].operands[i];
            if let Some(l) = self.a.uses.get(&(o, i)).cloned() {
                self.recompute(v, &l, 0)?;
            }
        }
        for l in self.a.uses.values() {
            self.seen.push(l.clone());
        }
        self.plan_shared_operands();
        Ok(())
    }

    /// The op before which a conversion of `v` into `dst` is printed: the
    /// op of `v`'s block that is or holds the first use (in program order)
    /// seeing `dst`, so that the conversion runs as late as its readers
    /// allow (as Triton's passes place it: loads of one loop iteration are
    /// all issued before the conversions of their values, and the
    /// conversions of a dot's operands sit right before the dot); `None`
    /// when no use sees `dst` (the conversion is then printed right after
    /// `v`'s definition). `place` is each op's index in program order
    /// ([`crate::ir::Program::walk`]; `usize::MAX` for an op outside it),
    /// `uses` every value's uses ([`crate::ir::Program::uses`]).
    fn first_reader(
        &self,
        place: &[usize],
        uses: &[Vec<(OpId, usize)>],
        v: ValueId,
        dst: &linear_layout::LinearLayout,
    ) -> Option<OpId> {
        let p = self.p;
        let block = match p.values[v].def {
            crate::ir::Def::Result { op, .. } => p.ops[op].parent,
            crate::ir::Def::RegionArg { op, .. } => Some(op),
            crate::ir::Def::FuncArg(_) => None,
        };
        let (first, _) = uses[v]
            .iter()
            .copied()
            .filter(|&(o, i)| {
                place[o] != usize::MAX
                    && self.a.uses.get(&(o, i)).is_some_and(|l| &l.ll == dst)
                    && !self.renamed_use.contains_key(&(o, i))
            })
            .min_by_key(|&(o, _)| place[o])?;
        let mut o = first;
        while p.ops[o].parent != block {
            o = p.ops[o].parent?;
        }
        Some(o)
    }

    /// Where each wgmma operand read from shared memory is allocated
    /// ([`Inserted::LocalAlloc`]): after the definition of its value when
    /// the dot reads the value in its own layout (else at the dot, by
    /// [`Printer::warp_group_dot`]); an operand that is `tt.trans` (order
    /// `[1, 0]`) of a value read in its own layout is that value allocated
    /// and viewed transposed (`ttg.memdesc_trans` into a `transposed = true`
    /// NVMMA layout), as Triton's pre-pipeline TTGIR reads `Kᵀ`, instead of
    /// a register transpose written across the swizzled rows.
    fn plan_shared_operands(&mut self) {
        let p = self.p;
        let own_use = |a: &crate::assignment::Assignment, o: OpId, i: usize| {
            let v = p.ops[o].operands[i];
            match (a.uses.get(&(o, i)), a.layout(v)) {
                (Some(u), Some(l)) => u.ll == l.ll,
                (None, Some(_)) => true,
                _ => false,
            }
        };
        // One allocation per value, and one transposed view of it, shared
        // by every dot that reads them.
        let mut allocs: std::collections::HashMap<ValueId, (String, String)> =
            std::collections::HashMap::new();
        let mut views: std::collections::HashMap<ValueId, (String, String)> =
            std::collections::HashMap::new();
        let mut keys: Vec<(OpId, usize)> = self.a.shared_operands.iter().copied().collect();
        keys.sort_unstable();
        for (o, i) in keys {
            if i >= 2 || !own_use(self.a, o, i) {
                continue;
            }
            let v = p.ops[o].operands[i];
            let trans_of = p.def_op(v).and_then(|t| {
                let op = &p.ops[t];
                let rank2 = p.values[v].ty.tensor_shape().is_some_and(|s| s.len() == 2);
                match &op.kind {
                    OpKind::Trans { order }
                        if *order == [1, 0] && rank2 && own_use(self.a, t, 0) =>
                    {
                        Some(op.operands[0])
                    }
                    _ => None,
                }
            });
            let value = trans_of.unwrap_or(v);
            let alloc = match allocs.get(&value) {
                Some(a) => a.clone(),
                None => {
                    let name = self.fresh("%smem");
                    let regs = self.layout(value).cloned();
                    let memdesc = self.memdesc_of(value, regs.as_ref(), false);
                    self.after
                        .entry(value)
                        .or_default()
                        .push(Inserted::LocalAlloc {
                            name: name.clone(),
                            value,
                            memdesc: memdesc.clone(),
                        });
                    self.counts.2 += 1;
                    allocs.insert(value, (name.clone(), memdesc.clone()));
                    (name, memdesc)
                }
            };
            let r = if trans_of.is_none() {
                alloc
            } else if let Some(view) = views.get(&value) {
                view.clone()
            } else {
                let name = self.fresh("%smemT");
                let regs = self.layout(value).cloned();
                let to = self.memdesc_of(value, regs.as_ref(), true);
                self.after
                    .entry(value)
                    .or_default()
                    .push(Inserted::MemdescTrans {
                        name: name.clone(),
                        of: alloc.0.clone(),
                        from: alloc.1.clone(),
                        to: to.clone(),
                    });
                views.insert(value, (name.clone(), to.clone()));
                (name, to)
            };
            self.smem_refs.insert((o, i), r);
        }
    }

    /// The name of `v` recomputed in `l` (or `v` itself when it has `l`).
    pub(super) fn recompute(&mut self, v: ValueId, l: &Layout, depth: usize) -> Result<String> {
        let p = self.p;
        if self.layout(v).is_some_and(|x| x.ll == l.ll) || !p.is_tensor(v) {
            return Ok(p.values[v].name.clone());
        }
        if let Some(n) = self.renamed.get(&(v, l.ll.clone())) {
            return Ok(n.clone());
        }
        if depth > p.ops.len() {
            return Err(unsupported(format!(
                "recomputing {}: cycle",
                p.values[v].name
            )));
        }
        let o = p.def_op(v).ok_or_else(|| {
            unsupported(format!(
                "{} is recomputed in another layout but has no defining op",
                p.values[v].name
            ))
        })?;
        let op = &p.ops[o];
        if op.results.len() != 1 || !op.regions.is_empty() {
            return Err(unsupported(format!(
                "line {}: cannot recompute {} in another layout",
                op.line, op.name
            )));
        }
        let mut operands = Vec::new();
        for (j, &w) in op.operands.iter().enumerate() {
            if !p.is_tensor(w) {
                operands.push((p.values[w].name.clone(), None));
                continue;
            }
            let lw = self.backward(o, j, l)?;
            let n = self.recompute(w, &lw, depth + 1)?;
            operands.push((n, Some(lw)));
        }
        let name = self.fresh(RECOMPUTED_PREFIX);
        self.renamed.insert((v, l.ll.clone()), name.clone());
        self.seen.push(l.clone());
        for lw in operands.iter().filter_map(|x| x.1.clone()) {
            self.seen.push(lw);
        }
        self.after.entry(v).or_default().push(Inserted::Recompute {
            name: name.clone(),
            op: o,
            layout: Box::new(l.clone()),
            operands,
        });
        self.counts.1 += 1;
        Ok(name)
    }

    /// The layout operand `j` of `o` has when `o`'s result has `l`.
    pub(super) fn backward(&self, o: OpId, j: usize, l: &Layout) -> Result<Layout> {
        let p = self.p;
        let op = &p.ops[o];
        let w = op.operands[j];
        let ws: Vec<u64> = p.values[w].ty.tensor_shape().unwrap_or(&[]).to_vec();
        let linear = matches!(*l.encoding, Encoding::Linear(_));
        Ok(match &op.kind {
            OpKind::Broadcast => {
                let want = collapse_dims(&l.ll, &ws)?;
                match (!linear).then(|| Layout::new((*l.encoding).clone(), &ws)) {
                    Some(Ok(x)) if canon(&x.ll) == canon(&want) => x,
                    _ => Layout::from_ll(want),
                }
            }
            OpKind::ExpandDims { axis } => {
                let want = drop_dim(&l.ll, *axis)?;
                let slice = Encoding::Slice(Slice {
                    dim: *axis,
                    parent: Box::new((*l.encoding).clone()),
                });
                match (!linear).then(|| Layout::new(slice, &ws)) {
                    Some(Ok(x)) if canon(&x.ll) == canon(&want) => x,
                    _ => Layout::from_ll(want),
                }
            }
            OpKind::Trans { order } => {
                let mut inv = vec![0; order.len()];
                for (k, &d) in order.iter().enumerate() {
                    if d < inv.len() {
                        inv[d] = k;
                    }
                }
                Layout::from_ll(transpose(&l.ll, &inv)?)
            }
            OpKind::Reshape => Layout::from_ll(reshape(&l.ll, &ws)?),
            OpKind::Join => Layout::from_ll(split(&l.ll)?),
            _ => l.clone(),
        })
    }
}
