//! Which attribute each linear map prints as: one per map (the most
//! specific family first), adjusted to what Triton infers for
//! `expand_dims`, `reduce` and `broadcast`; aliases named as Triton names
//! them.

use super::{Inserted, Printer};
use crate::assignment::Layout;
use crate::ir::{OpId, OpKind};
use hw_layouts::slice::Slice;
use hw_layouts::Encoding;

/// Lower is preferred when one linear map has several attributes.
pub(super) fn family_rank(e: &Encoding) -> u8 {
    match e {
        Encoding::NvidiaMma(_) | Encoding::AmdMfma(_) | Encoding::AmdWmma(_) => 0,
        Encoding::DotOperand(_) => 1,
        Encoding::Slice(_) => 2,
        Encoding::Blocked(_) => 3,
        Encoding::Linear(_) => 5,
        _ => 4,
    }
}

impl Printer<'_> {
    // LinearLayout's only interior mutability is a lazily built evaluator
    // that Hash and Eq ignore.
    #[allow(clippy::mutable_key_type)]
    pub(super) fn choose_canonical(&mut self) {
        // A dot's accumulator prints with the dot's own attribute: its
        // instruction shape (wgmma's N) is not part of the map, and another
        // attribute of the same map would lower the dot to other
        // instructions (Triton's pre-pipeline TTGIR keeps one per dot).
        // Measured on the H200 (2026-11-25, `bench/engine-gpu`, case 044):
        // flash attention's `P·V` printed with `Q·Kᵀ`'s `instrShape = [16,
        // 64, 16]` instead of its own `[16, 128, 16]` ran 0.86x Triton.
        let p = self.p;
        for o in p.walk() {
            let op = &p.ops[o];
            if !matches!(op.kind, OpKind::Dot | OpKind::DotScaled) || p.in_combine_region(o) {
                continue;
            }
            if let Some(l) = op.results.first().and_then(|&r| self.a.layout(r)) {
                if family_rank(&l.encoding) == 0 && !self.canon.contains_key(&l.ll) {
                    self.canon.insert(l.ll.clone(), (*l.encoding).clone());
                    self.pinned.insert(l.ll.clone());
                }
            }
        }
        for l in std::mem::take(&mut self.seen) {
            match self.canon.get(&l.ll) {
                Some(e) if family_rank(e) <= family_rank(&l.encoding) => {}
                _ => {
                    self.canon.insert(l.ll.clone(), (*l.encoding).clone());
                }
            }
        }
    }

    pub(super) fn canonical(&self, l: &Layout) -> Encoding {
        self.canon
            .get(&l.ll)
            .cloned()
            .unwrap_or_else(|| (*l.encoding).clone())
    }

    /// Prints `l`'s map as `e` when `e` denotes exactly that map (a dot
    /// accumulator's map keeps its dot's attribute).
    pub(super) fn prefer(&mut self, l: &Layout, e: Encoding, shape: &[u64]) -> bool {
        if self.canonical(l) == e || self.pinned.contains(&l.ll) {
            return false;
        }
        match Layout::new(e.clone(), shape) {
            Ok(x) if x.ll == l.ll => {
                self.canon.insert(l.ll.clone(), e);
                true
            }
            _ => false,
        }
    }

    /// Triton infers some result types from operand attributes (not maps):
    /// `expand_dims` takes a `#ttg.slice` of the result's attribute,
    /// `reduce` returns the slice of its operand's, `broadcast` keeps its
    /// operand's. Where the map allows it, the attributes printed are the
    /// ones Triton infers (a few rounds, each rule changing an attribute
    /// only to one of the same map).
    pub(super) fn agree_with_inference(&mut self) {
        let p = self.p;
        // (op, its first operand's layout, its tensor results' layouts):
        // the program's ops and the recomputed copies.
        let mut sites: Vec<(OpId, Layout, Vec<Layout>)> = Vec::new();
        for o in p.walk() {
            let op = &p.ops[o];
            if p.in_combine_region(o) || op.operands.is_empty() || !p.is_tensor(op.operands[0]) {
                continue;
            }
            let Some(lo) = self.operand(o, 0).1 else {
                continue;
            };
            let res: Vec<Layout> = op
                .results
                .iter()
                .filter_map(|&r| self.layout(r).cloned())
                .collect();
            sites.push((o, lo, res));
        }
        for items in self.after.values() {
            for it in items {
                if let Inserted::Recompute {
                    op,
                    layout,
                    operands,
                    ..
                } = it
                {
                    if let Some(Some(lo)) = operands.first().map(|x| x.1.clone()) {
                        sites.push((*op, lo, vec![(**layout).clone()]));
                    }
                }
            }
        }
        for _round in 0..4 {
            let mut changed = false;
            for (o, lo, res) in &sites {
                let op = &p.ops[*o];
                let v = op.operands[0];
                let vs = p.values[v].ty.tensor_shape().unwrap_or(&[]).to_vec();
                let Some(lr) = res.first() else { continue };
                let rs = crate::shape_ops::out_shape(&lr.ll);
                match op.kind {
                    OpKind::ExpandDims { axis } => {
                        let s = Encoding::Slice(Slice {
                            dim: axis,
                            parent: Box::new(self.canonical(lr)),
                        });
                        if self.prefer(lo, s, &vs) {
                            changed = true;
                        } else if let Encoding::Slice(s) = self.canonical(lo) {
                            if s.dim == axis {
                                changed |= self.prefer(lr, *s.parent, &rs);
                            }
                        }
                    }
                    OpKind::Reduce { axis } => {
                        let parent = self.canonical(lo);
                        for lr in res {
                            let rs = crate::shape_ops::out_shape(&lr.ll);
                            let s = Encoding::Slice(Slice {
                                dim: axis,
                                parent: Box::new(parent.clone()),
                            });
                            changed |= self.prefer(lr, s, &rs);
                        }
                    }
                    OpKind::Broadcast => {
                        let e = self.canonical(lr);
                        if !self.prefer(lo, e, &vs) {
                            let e = self.canonical(lo);
                            changed |= self.prefer(lr, e, &rs);
                        } else {
                            changed = true;
                        }
                    }
                    _ => {}
                }
            }
            if !changed {
                break;
            }
        }
    }

    pub(super) fn alias(&mut self, def: String, base: &str) -> String {
        if let Some((n, _)) = self.aliases.iter().find(|(_, d)| *d == def) {
            return n.clone();
        }
        let n = crate::text::next_alias(&self.aliases, base);
        self.aliases.push((n.clone(), def));
        n
    }

    /// An encoding as Triton prints it in a type: families by alias,
    /// slices and dot operands inline around their parent's alias.
    pub(super) fn enc_text(&mut self, e: &Encoding) -> String {
        // Memoised: the alias a text takes is fixed at its first use.
        if let Some((_, t)) = self.enc_texts.iter().find(|(x, _)| x == e) {
            return t.clone();
        }
        let t = self.enc_text_uncached(e);
        self.enc_texts.push((e.clone(), t.clone()));
        t
    }

    fn enc_text_uncached(&mut self, e: &Encoding) -> String {
        match e {
            Encoding::Slice(s) => {
                let inner = self.enc_text(&s.parent);
                e.to_mlir().replacen(&s.parent.to_mlir(), &inner, 1)
            }
            Encoding::DotOperand(d) => {
                let inner = self.enc_text(&d.parent);
                e.to_mlir().replacen(&d.parent.to_mlir(), &inner, 1)
            }
            _ => {
                let m = e.to_mlir();
                let base = match e {
                    Encoding::Blocked(_) => "blocked",
                    Encoding::NvidiaMma(_) | Encoding::AmdMfma(_) | Encoding::AmdWmma(_) => "mma",
                    Encoding::Linear(_) => "linear",
                    _ => "layout",
                };
                self.alias(m, base)
            }
        }
    }

    /// The printed encoding of a layout: its own attribute (the caller
    /// gives the value's spelling, [`Printer::spelled_as`]).
    pub(super) fn layout_text(&mut self, l: &Layout) -> String {
        let e = l.encoding.clone();
        self.enc_text(&e)
    }
}
