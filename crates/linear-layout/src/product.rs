//! The product of layouts (Triton's `operator*`) and `supremum`.

use crate::error::{LayoutError, Result};
use crate::layout::{low_mask, Bases, EvalCache, InDim, OutDim, Outs};
use crate::{DimName, LinearLayout};
use smallvec::SmallVec;
use std::ops::{Mul, MulAssign};

/// A short list of dim names (layouts rarely have more than 8 dims).
type Names = SmallVec<[DimName; 8]>;

/// The shortest order-preserving merge of `x` and `y` in which both appear
/// as subsequences; at a tie the element of `x` comes first. Fails when the
/// two lists order their common elements differently.
///
/// ```
/// use linear_layout::{supremum, DimName};
/// let [a, b, c] = ["a", "b", "c"].map(DimName::new);
/// assert_eq!(supremum(&[a, b], &[b, c]).unwrap(), vec![a, b, c]);
/// assert_eq!(supremum(&[a, b], &[a, c]).unwrap(), vec![a, b, c]);
/// assert!(supremum(&[a, b], &[b, a]).is_err());
/// ```
pub fn supremum(x: &[DimName], y: &[DimName]) -> Result<Vec<DimName>> {
    let err = || LayoutError::NoSupremum {
        first: x.to_vec(),
        second: y.to_vec(),
    };
    let mut out = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        if x[i] == y[j] {
            out.push(x[i]);
            i += 1;
            j += 1;
        } else if !y[j..].contains(&x[i]) {
            // x[i] is not in the rest of y: it can go now.
            out.push(x[i]);
            i += 1;
        } else if !x[i..].contains(&y[j]) {
            out.push(y[j]);
            j += 1;
        } else {
            // Both are common elements appearing in a different order.
            return Err(err());
        }
    }
    out.extend_from_slice(&x[i..]);
    out.extend_from_slice(&y[j..]);
    // Common elements that were already consumed must not reappear.
    let mut seen = std::collections::HashSet::new();
    for d in &out {
        if !seen.insert(*d) {
            return Err(err());
        }
    }
    Ok(out)
}

/// The dim order of a product, computed exactly as Triton's `supremum`
/// implementation does: like [`supremum`], but where the two lists order
/// common elements differently the first list's order wins instead of an
/// error (Triton's "does not exist" branches are unreachable for lists
/// without repeats; its MFMA operand layouts rely on this).
///
/// ```
/// use linear_layout::{product_dim_order, DimName};
/// let [a, b, c] = ["a", "b", "c"].map(DimName::new);
/// assert_eq!(product_dim_order(&[a, b], &[b, a]), vec![a, b]);
/// assert_eq!(product_dim_order(&[a, b], &[b, c]), vec![a, b, c]);
/// ```
pub fn product_dim_order(x: &[DimName], y: &[DimName]) -> Vec<DimName> {
    product_order(x, y).into_vec()
}

/// [`product_dim_order`] without a heap allocation for up to 8 dims.
fn product_order(x: &[DimName], y: &[DimName]) -> Names {
    let pos = |l: &[DimName], d: DimName| l.iter().position(|&e| e == d);
    let mut out = Names::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    loop {
        while i < x.len() && out.contains(&x[i]) {
            i += 1;
        }
        while j < y.len() && out.contains(&y[j]) {
            j += 1;
        }
        if i >= x.len() && j >= y.len() {
            return out;
        }
        if i < x.len() && j < y.len() && x[i] == y[j] {
            out.push(x[i]);
            i += 1;
            j += 1;
            continue;
        }
        // Where the other list still has this element ahead (∞ if not).
        let cand_x = (i < x.len())
            .then(|| pos(y, x[i]).filter(|&p| p >= j))
            .flatten();
        let cand_y = (j < y.len())
            .then(|| pos(x, y[j]).filter(|&p| p >= i))
            .flatten();
        if i < x.len() && cand_x.is_none() {
            out.push(x[i]);
            i += 1;
        } else if j < y.len() && cand_y.is_none() {
            out.push(y[j]);
            j += 1;
        } else if cand_x.unwrap_or(usize::MAX) <= cand_y.unwrap_or(usize::MAX) {
            out.push(x[i]);
            i += 1;
        } else {
            out.push(y[j]);
            j += 1;
        }
    }
}

impl LinearLayout {
    /// The product `self * outer`: input dims and output dims are the
    /// supremum of both orders ([`product_dim_order`], Triton's merge); for a shared input dim `self`'s bases are the
    /// low bits and `outer`'s are appended; for a shared output dim `outer`'s
    /// components are shifted above `self`'s size (log2 sizes add).
    pub fn try_mul(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        self.try_mul_fast(outer)
            .map_or_else(|| self.try_mul_checked(outer), Ok)
    }

    /// [`Self::try_mul`] built directly (no intermediate vectors, no
    /// re-validation: the result's columns fit its out dims by
    /// construction); `None` when a word-size limit would be exceeded, so
    /// that [`Self::try_mul_checked`] reports the error.
    fn try_mul_fast(&self, outer: &LinearLayout) -> Option<LinearLayout> {
        if outer.ins.len() == 1 && outer.outs.len() == 1 {
            return self.try_mul_1d(outer);
        }
        let a_in: Names = self.in_dim_names().collect();
        let b_in: Names = outer.in_dim_names().collect();
        let a_out: Names = self.out_dim_names().collect();
        let b_out: Names = outer.out_dim_names().collect();
        let in_order = product_order(&a_in, &b_in);
        let out_order = product_order(&a_out, &b_out);
        let mut outs: Outs = SmallVec::with_capacity(out_order.len());
        let mut shift = 0u32;
        for &o in &out_order {
            let log2 = self.out_dim_size_log2(o) + outer.out_dim_size_log2(o);
            if log2 > 63 {
                return None;
            }
            outs.push(OutDim {
                name: o,
                log2,
                shift,
            });
            shift += log2;
        }
        if shift > 64 {
            return None;
        }
        // Per out dim of a factor: (source shift, mask, destination shift).
        // Inner components stay at the bottom of each result dim, outer ones
        // sit above inner's size.
        let moves = |l: &LinearLayout, is_outer: bool| -> SmallVec<[(u32, u64, u32); 4]> {
            l.outs
                .iter()
                .map(|od| {
                    let r = outs.iter().find(|r| r.name == od.name).expect("merged");
                    let extra = if is_outer {
                        self.out_dim_size_log2(od.name)
                    } else {
                        0
                    };
                    (od.shift, low_mask(od.log2), r.shift + extra)
                })
                .collect()
        };
        let (inner_moves, outer_moves) = (moves(self, false), moves(outer, true));
        let repack = |mv: &[(u32, u64, u32)], c: u64| -> u64 {
            mv.iter().fold(0, |r, &(src, mask, dst)| {
                r | ((c >> src) & mask).wrapping_shl(dst)
            })
        };
        let mut ins: SmallVec<[InDim; 4]> = SmallVec::with_capacity(in_order.len());
        let mut bases: Bases = SmallVec::new();
        for &d in &in_order {
            let start = bases.len() as u32;
            let (a, b) = (self.packed_bases(d), outer.packed_bases(d));
            if a.len() + b.len() > 63 {
                return None;
            }
            bases.extend(a.iter().map(|&c| repack(&inner_moves, c)));
            bases.extend(b.iter().map(|&c| repack(&outer_moves, c)));
            ins.push(InDim {
                name: d,
                start,
                log2: bases.len() as u32 - start,
            });
        }
        fast_product_parts(ins, outs, bases)
    }

    /// [`Self::try_mul_fast`] when `outer` has one in dim `d` and one out
    /// dim `o` (the common `layout * identity_1d(..)`): the merged orders
    /// are `self`'s with `d` (resp. `o`) appended when new, so `o` widens in
    /// place (the dims above it move up by its new bits) and `outer`'s
    /// columns, shifted above `self`'s part of `o`, follow `self`'s columns
    /// of `d`.
    fn try_mul_1d(&self, outer: &LinearLayout) -> Option<LinearLayout> {
        let (d, o) = (outer.ins[0], outer.outs[0]);
        let self_bits: u32 = self.outs.iter().map(|x| x.log2).sum();
        let mut outs = self.outs.clone();
        // Bit position and width of `self`'s part of `o` in the result;
        // `above`: the first bit moved up by `o.log2`.
        let (o_shift, o_inner, above) = match outs.iter().position(|x| x.name == o.name) {
            Some(k) => {
                let (shift, inner) = (outs[k].shift, outs[k].log2);
                outs[k].log2 += o.log2;
                for x in &mut outs[k + 1..] {
                    x.shift += o.log2;
                }
                (shift, inner, shift + inner)
            }
            None => {
                outs.push(OutDim {
                    name: o.name,
                    log2: o.log2,
                    shift: self_bits,
                });
                (self_bits, 0, self_bits)
            }
        };
        if outs.iter().any(|x| x.log2 > 63) || self_bits + o.log2 > 64 {
            return None;
        }
        let widen = |c: u64| -> u64 {
            if above >= 64 {
                c
            } else {
                (c & low_mask(above)) | ((c >> above) << above).wrapping_shl(o.log2)
            }
        };
        let outer_cols = outer
            .bases
            .iter()
            .map(|&c| c.wrapping_shl(o_shift + o_inner));
        let mut ins = self.ins.clone();
        let mut bases = Bases::with_capacity(self.bases.len() + outer.bases.len());
        match ins.iter().position(|x| x.name == d.name) {
            Some(p) => {
                let end = (ins[p].start + ins[p].log2) as usize;
                if ins[p].log2 + d.log2 > 63 {
                    return None;
                }
                ins[p].log2 += d.log2;
                for x in &mut ins[p + 1..] {
                    x.start += d.log2;
                }
                bases.extend(self.bases[..end].iter().map(|&c| widen(c)));
                bases.extend(outer_cols);
                bases.extend(self.bases[end..].iter().map(|&c| widen(c)));
            }
            None => {
                ins.push(InDim {
                    name: d.name,
                    start: self.bases.len() as u32,
                    log2: d.log2,
                });
                bases.extend(self.bases.iter().map(|&c| widen(c)));
                bases.extend(outer_cols);
            }
        }
        fast_product_parts(ins, outs, bases)
    }

    /// [`Self::try_mul`] through [`LinearLayout::from_packed`], with its
    /// checks and error messages.
    fn try_mul_checked(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        let a_in: Vec<DimName> = self.in_dim_names().collect();
        let b_in: Vec<DimName> = outer.in_dim_names().collect();
        let a_out: Vec<DimName> = self.out_dim_names().collect();
        let b_out: Vec<DimName> = outer.out_dim_names().collect();
        let ins = product_dim_order(&a_in, &b_in);
        let outs = product_dim_order(&a_out, &b_out);
        let out_dims: Vec<(DimName, u32)> = outs
            .iter()
            .map(|&o| (o, self.out_dim_size_log2(o) + outer.out_dim_size_log2(o)))
            .collect();
        let out_bits: u32 = out_dims.iter().map(|o| o.1).sum();
        if out_bits > 64 {
            return Err(LayoutError::TooManyBits {
                which: "output",
                bits: out_bits,
            });
        }
        // Re-pack a column of `l` into the result: inner components stay at
        // the bottom of each result dim, outer ones sit above inner's size.
        let repack = |l: &LinearLayout, c: u64, is_outer: bool| -> u64 {
            let mut r = 0u64;
            let mut shift = 0u32;
            for &(o, log2) in &out_dims {
                if let Some(od) = l.out_dim(o) {
                    let v = c.wrapping_shr(od.shift) & low_mask(od.log2);
                    let extra = if is_outer {
                        self.out_dim_size_log2(o)
                    } else {
                        0
                    };
                    r |= v << (shift + extra);
                }
                shift += log2;
            }
            r
        };
        let in_bases: Vec<(DimName, Vec<u64>)> = ins
            .iter()
            .map(|&d| {
                let mut v: Vec<u64> = self
                    .packed_bases(d)
                    .iter()
                    .map(|&c| repack(self, c, false))
                    .collect();
                v.extend(
                    outer
                        .packed_bases(d)
                        .iter()
                        .map(|&c| repack(outer, c, true)),
                );
                (d, v)
            })
            .collect();
        LinearLayout::from_packed(in_bases, out_dims, false)
    }
}

impl Mul for &LinearLayout {
    type Output = LinearLayout;
    /// [`LinearLayout::try_mul`]; panics when no supremum exists or the
    /// result exceeds 64 bits.
    fn mul(self, rhs: &LinearLayout) -> LinearLayout {
        self.try_mul(rhs).expect("layout product")
    }
}

impl Mul for LinearLayout {
    type Output = LinearLayout;
    fn mul(self, rhs: LinearLayout) -> LinearLayout {
        &self * &rhs
    }
}

impl MulAssign<&LinearLayout> for LinearLayout {
    fn mul_assign(&mut self, rhs: &LinearLayout) {
        *self = &*self * rhs;
    }
}

/// The layout the fast products built, or `None` (the checked path then
/// answers) when its input bits exceed the 64 a flat input index holds.
fn fast_product_parts(ins: SmallVec<[InDim; 4]>, outs: Outs, bases: Bases) -> Option<LinearLayout> {
    if bases.len() > 64 {
        return None;
    }
    Some(LinearLayout {
        ins,
        outs,
        bases,
        eval: EvalCache::default(),
    })
}

impl MulAssign for LinearLayout {
    fn mul_assign(&mut self, rhs: LinearLayout) {
        *self = &*self * &rhs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::Rng;
    use proptest::test_runner::{RngAlgorithm, TestRng};

    /// A number in `0..n` from proptest's fixed-seed generator (so a
    /// failure reproduces).
    fn below(r: &mut TestRng, n: u64) -> u64 {
        r.next_u64() % n
    }

    /// A random layout over some of `names` (in and out dims drawn from the
    /// same pool, so products share dims in various orders).
    fn random_layout(r: &mut TestRng, max_ins: u64, max_outs: u64) -> LinearLayout {
        let pool = [
            DimName::REGISTER,
            DimName::LANE,
            DimName::dim(0),
            DimName::dim(1),
        ];
        let pick = |r: &mut TestRng, k: u64| {
            let mut v: Vec<DimName> = Vec::new();
            while (v.len() as u64) < k {
                let d = pool[below(r, 4) as usize];
                if !v.contains(&d) {
                    v.push(d);
                }
            }
            v
        };
        let k = below(r, max_outs) + 1;
        let outs: Vec<(DimName, u32)> = pick(r, k)
            .into_iter()
            .map(|d| (d, below(r, 4) as u32))
            .collect();
        let out_bits: u32 = outs.iter().map(|o| o.1).sum();
        let k = below(r, max_ins) + 1;
        let ins = pick(r, k)
            .into_iter()
            .map(|d| {
                let n = below(r, 4);
                (
                    d,
                    (0..n).map(|_| r.next_u64() & low_mask(out_bits)).collect(),
                )
            })
            .collect();
        LinearLayout::from_packed(ins, outs, false).unwrap()
    }

    /// The direct products (`try_mul_fast`, with its one-dim case) equal
    /// the product through `from_packed` (`try_mul_checked`, the original
    /// construction) on random layouts, including one-in-dim one-out-dim
    /// right factors that widen a dim of the left one or add a new one.
    #[test]
    fn fast_product_equals_checked_product() {
        let mut r = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
        let mut one_dim = 0;
        for _ in 0..3000 {
            let a = random_layout(&mut r, 3, 3);
            let b = if below(&mut r, 2) == 0 {
                random_layout(&mut r, 1, 1)
            } else {
                random_layout(&mut r, 3, 3)
            };
            one_dim += usize::from(b.ins.len() == 1 && b.outs.len() == 1);
            let want = a.try_mul_checked(&b).unwrap();
            let got = a.try_mul_fast(&b).expect("small layouts fit");
            assert_eq!(got, want, "a = {a:?}, b = {b:?}");
            assert_eq!(got.out_dims(), want.out_dims());
        }
        assert!(one_dim > 1000);
    }

    /// Past the word-size limits the fast path declines and `try_mul`
    /// reports the checked path's error.
    #[test]
    fn oversized_products_are_errors() {
        let (r, d0) = (DimName::REGISTER, DimName::dim(0));
        let big = LinearLayout::identity_1d(1 << 40, r, d0);
        let e = big.try_mul(&big).unwrap_err();
        assert!(matches!(e, LayoutError::TooManyBits { .. }), "{e}");
        let wide = LinearLayout::zeros_1d(1 << 40, r, d0, 1);
        let e = wide.try_mul(&wide).unwrap_err();
        assert!(matches!(e, LayoutError::TooManyBits { .. }), "{e}");
    }
}
