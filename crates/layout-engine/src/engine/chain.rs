//! Chained dots: which dots feed another dot's operand (attention's
//! `Q·Kᵀ` → softmax → `P·V`), as [`DotChain`] for the anchors, and the
//! chains as groups of dots whose warp arrangements are chosen together
//! ([`super::search`]).

use super::{shape, Pass};
use crate::anchors::DotChain;
use crate::ir::{OpId, OpKind, Program, ValueId};
use std::collections::HashSet;

impl Pass<'_> {
    /// How dot `o` is chained to other dots ([`DotChain`]): the dots its
    /// result reaches as an A/B operand, the dots its A/B operands come
    /// from (backwards through non-dot producers, not into loops or
    /// reductions), and the last of them in program order.
    pub(super) fn dot_chain(&self, o: OpId) -> DotChain {
        let op = &self.p.ops[o];
        let forward = op
            .results
            .first()
            .map(|&r| chained_dots(self.p, &self.uses, r))
            .unwrap_or_default();
        let mut backward = Vec::new();
        let mut stack: Vec<ValueId> = op.operands.iter().take(2).copied().collect();
        let mut seen = HashSet::new();
        while let Some(v) = stack.pop() {
            if !seen.insert(v) || seen.len() > 256 {
                continue;
            }
            let Some(d) = self.p.def_op(v) else { continue };
            match self.p.ops[d].kind {
                OpKind::Dot | OpKind::DotScaled => backward.push(d),
                OpKind::Load | OpKind::For | OpKind::While | OpKind::Reduce { .. } => {}
                _ => stack.extend(self.p.ops[d].operands.iter().copied()),
            }
        }
        let last = forward
            .iter()
            .chain(&backward)
            .copied()
            .chain([o])
            .max_by_key(|&d| self.position[d])
            .unwrap_or(o);
        let s = self.p.ops[last]
            .results
            .first()
            .map(|&r| shape(self.p, r))
            .unwrap_or_default();
        let mn = |k: usize| s.len().checked_sub(k).map_or(1, |i| s[i]);
        DotChain {
            head: !forward.is_empty(),
            tail: !backward.is_empty(),
            last: [mn(2), mn(1)],
        }
    }
}

/// The dots whose A or B operand `r` reaches through non-dot ops (not
/// through stores, yields or reductions).
pub(super) fn chained_dots(p: &Program, uses: &[Vec<(OpId, usize)>], r: ValueId) -> Vec<OpId> {
    let mut found = Vec::new();
    let mut stack = vec![r];
    let mut seen = HashSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) || seen.len() > 256 {
            continue;
        }
        for &(u, i) in &uses[v] {
            let op = &p.ops[u];
            match op.kind {
                OpKind::Dot | OpKind::DotScaled if i < 2 => {
                    if !found.contains(&u) {
                        found.push(u);
                    }
                }
                OpKind::Dot
                | OpKind::DotScaled
                | OpKind::Store
                | OpKind::Yield
                | OpKind::Reduce { .. } => {}
                _ => stack.extend(op.results.iter().copied()),
            }
        }
    }
    found
}

/// What the anchors need of dot `o`: its result shape, reduction length
/// `K`, operand bits (A's) and whether it is an fp32 dot of IEEE precision
/// (the default, printed without an attribute); `None` for a dot without
/// a tensor result.
pub(super) fn dot_params(p: &Program, o: OpId) -> Option<(Vec<u64>, u64, u32, bool)> {
    let op = &p.ops[o];
    let &r = op.results.first()?;
    let &a = op.operands.first()?;
    let k = shape(p, a).last().copied().unwrap_or(1);
    let bits = p.values[a].ty.elem_bits();
    let ieee = bits == 32 && !op.text.contains("inputPrecision = tf32");
    Some((shape(p, r), k, bits, ieee))
}

/// The chains of `p`: groups of two or more `tt.dot`s joined by
/// [`chained_dots`] (a dot's result reaching another's A or B operand),
/// each in program order, the groups in the order of their first dot.
pub(super) fn chains(p: &Program, uses: &[Vec<(OpId, usize)>]) -> Vec<Vec<OpId>> {
    let dots: Vec<OpId> = p
        .walk()
        .into_iter()
        .filter(|&o| p.ops[o].kind == OpKind::Dot && !p.in_combine_region(o))
        .collect();
    let mut group: Vec<usize> = (0..dots.len()).collect();
    fn root(g: &mut [usize], mut i: usize) -> usize {
        while g[i] != i {
            g[i] = g[g[i]];
            i = g[i];
        }
        i
    }
    for (i, &d) in dots.iter().enumerate() {
        let Some(&r) = p.ops[d].results.first() else {
            continue;
        };
        for e in chained_dots(p, uses, r) {
            if let Some(j) = dots.iter().position(|&x| x == e) {
                let (a, b) = (root(&mut group, i), root(&mut group, j));
                group[a.max(b)] = a.min(b);
            }
        }
    }
    let mut out: Vec<Vec<OpId>> = Vec::new();
    let mut heads: Vec<usize> = Vec::new();
    for (i, &d) in dots.iter().enumerate() {
        let g = root(&mut group, i);
        match heads.iter().position(|&h| h == g) {
            Some(k) => out[k].push(d),
            None => {
                heads.push(g);
                out.push(vec![d]);
            }
        }
    }
    out.retain(|c| c.len() > 1);
    out
}
