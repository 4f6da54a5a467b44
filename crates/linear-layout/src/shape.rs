//! Shape operations: reorder, reshape, flatten, squeeze, resize, rename,
//! concatenate and restrict dims. None of them changes what a basis means;
//! they re-index inputs or outputs.

use crate::error::{check_pow2_with, LayoutError, Result};
use crate::layout::{low_mask, EvalCache, OutDim, Outs};
use crate::{DimName, LinearLayout};
use smallvec::SmallVec;

/// Whether `idx` (entries `< idx.len()`) holds no index twice: one bit per
/// index up to 64 dims, sorting beyond.
fn is_permutation(idx: &[usize]) -> bool {
    if idx.len() <= 64 {
        let mut seen = 0u64;
        idx.iter().all(|&i| {
            let fresh = seen >> i & 1 == 0;
            seen |= 1 << i;
            fresh
        })
    } else {
        let mut s = idx.to_vec();
        s.sort_unstable();
        s.dedup();
        s.len() == idx.len()
    }
}

/// Indices into `have` of the names of `new`, when `new` is a permutation
/// of `have`; otherwise the `what` mismatch error.
fn check_permutation(
    what: &'static str,
    have: &[DimName],
    new: &[DimName],
) -> Result<SmallVec<[usize; 8]>> {
    let idx: Option<SmallVec<[usize; 8]>> = new
        .iter()
        .map(|n| have.iter().position(|h| h == n))
        .collect();
    match idx {
        Some(idx) if new.len() == have.len() && is_permutation(&idx) => Ok(idx),
        _ => Err(LayoutError::DimMismatch {
            what,
            expected: have.to_vec(),
            found: new.to_vec(),
        }),
    }
}

impl LinearLayout {
    /// Reorders the input dims (`new_order` is a permutation of them).
    pub fn transpose_ins(&self, new_order: &[DimName]) -> Result<LinearLayout> {
        let have: SmallVec<[DimName; 8]> = self.in_dim_names().collect();
        check_permutation(
            "transpose_ins needs a permutation of the in dims",
            &have,
            new_order,
        )?;
        let ins = new_order
            .iter()
            .map(|&d| (d, self.packed_bases(d).to_vec()))
            .collect();
        LinearLayout::from_packed(
            ins,
            self.outs.iter().map(|o| (o.name, o.log2)).collect(),
            false,
        )
    }

    /// Reorders the output dims (and every basis's components with them).
    pub fn transpose_outs(&self, new_order: &[DimName]) -> Result<LinearLayout> {
        let have: SmallVec<[DimName; 8]> = self.out_dim_names().collect();
        let idx = check_permutation(
            "transpose_outs needs a permutation of the out dims",
            &have,
            new_order,
        )?;
        if idx.iter().enumerate().all(|(k, &i)| k == i) {
            return Ok(self.clone());
        }
        // The same out dims in the new order, packed from bit 0 up; every
        // column keeps its components (a permutation of valid out dims
        // stays valid, so the result is built without re-validation).
        let mut outs: Outs = SmallVec::with_capacity(idx.len());
        let mut shift = 0;
        for &i in &idx {
            outs.push(OutDim {
                name: self.outs[i].name,
                log2: self.outs[i].log2,
                shift,
            });
            shift += self.outs[i].log2;
        }
        let moves: SmallVec<[(u32, u64, u32); 4]> = idx
            .iter()
            .zip(&outs)
            .map(|(&i, o)| (self.outs[i].shift, low_mask(o.log2), o.shift))
            .collect();
        let bases = self
            .bases
            .iter()
            .map(|&c| {
                moves.iter().fold(0u64, |r, &(src, mask, dst)| {
                    r | (c.wrapping_shr(src) & mask).wrapping_shl(dst)
                })
            })
            .collect();
        Ok(LinearLayout {
            ins: self.ins.clone(),
            outs,
            bases,
            eval: EvalCache::default(),
        })
    }

    /// Re-splits the input bits (all bases in in-dim order) over new input
    /// dims `(name, size)` with the same total size; the first new dim gets
    /// the first bits.
    pub fn reshape_ins(&self, new_ins: &[(DimName, u64)]) -> Result<LinearLayout> {
        let mut logs = Vec::with_capacity(new_ins.len());
        for &(n, s) in new_ins {
            logs.push(check_pow2_with(s, || format!("size of in dim '{n}'"))?);
        }
        let total: u32 = logs.iter().sum();
        if total != self.total_in_dim_size_log2() {
            return Err(LayoutError::Invalid(format!(
                "reshape_ins: total input size 2^{total} differs from 2^{}",
                self.total_in_dim_size_log2()
            )));
        }
        let mut at = 0usize;
        let ins = new_ins
            .iter()
            .zip(&logs)
            .map(|(&(n, _), &l)| {
                let v = self.bases[at..at + l as usize].to_vec();
                at += l as usize;
                (n, v)
            })
            .collect();
        LinearLayout::from_packed(
            ins,
            self.outs.iter().map(|o| (o.name, o.log2)).collect(),
            false,
        )
    }

    /// Re-splits the output bits over new out dims `(name, size)` with the
    /// same total; the packed form (first dim lowest) is unchanged.
    pub fn reshape_outs(&self, new_outs: &[(DimName, u64)]) -> Result<LinearLayout> {
        let mut outs = Vec::with_capacity(new_outs.len());
        for &(n, s) in new_outs {
            outs.push((n, check_pow2_with(s, || format!("size of out dim '{n}'"))?));
        }
        let total: u32 = outs.iter().map(|o| o.1).sum();
        if total != self.total_out_dim_size_log2() {
            return Err(LayoutError::Invalid(format!(
                "reshape_outs: total output size 2^{total} differs from 2^{}",
                self.total_out_dim_size_log2()
            )));
        }
        let ins = self
            .ins
            .iter()
            .map(|d| (d.name, self.packed_bases(d.name).to_vec()))
            .collect();
        LinearLayout::from_packed(ins, outs, false)
    }

    /// All input dims merged into one named after the first (its bits in
    /// the old flat order); an error when that dim would exceed 63 bits.
    pub fn try_flatten_ins(&self) -> Result<LinearLayout> {
        match self.ins.first() {
            None => Ok(self.clone()),
            Some(d) => LinearLayout::from_packed(
                vec![(d.name, self.bases.to_vec())],
                self.outs.iter().map(|o| (o.name, o.log2)).collect(),
                false,
            ),
        }
    }

    /// [`Self::try_flatten_ins`]; panics only for more than 63 input bits.
    pub fn flatten_ins(&self) -> LinearLayout {
        self.try_flatten_ins()
            .expect("flatten_ins: more than 63 input bits")
    }

    /// All output dims merged into one named after the first (packed value,
    /// first dim lowest); an error when that dim would exceed 63 bits.
    pub fn try_flatten_outs(&self) -> Result<LinearLayout> {
        match self.outs.first() {
            None => Ok(self.clone()),
            Some(o) => LinearLayout::from_packed(
                self.ins
                    .iter()
                    .map(|d| (d.name, self.packed_bases(d.name).to_vec()))
                    .collect(),
                vec![(o.name, self.total_out_dim_size_log2())],
                false,
            ),
        }
    }

    /// [`Self::try_flatten_outs`]; panics only for more than 63 output bits.
    pub fn flatten_outs(&self) -> LinearLayout {
        self.try_flatten_outs()
            .expect("flatten_outs: more than 63 output bits")
    }

    /// Removes the size-1 input dims.
    pub fn squeeze_ins(&self) -> LinearLayout {
        let ins: Vec<(DimName, u64)> = self.in_dims().into_iter().filter(|d| d.1 > 1).collect();
        self.reshape_ins(&ins).expect("squeeze keeps the total")
    }

    /// Removes the size-1 output dims.
    pub fn squeeze_outs(&self) -> LinearLayout {
        let outs: Vec<(DimName, u64)> = self.out_dims().into_iter().filter(|d| d.1 > 1).collect();
        self.reshape_outs(&outs).expect("squeeze keeps the total")
    }

    /// Resizes input dim `d`: smaller drops the highest bases, larger appends
    /// zero bases.
    pub fn resize_in_dim(&self, d: DimName, new_size: u64) -> Result<LinearLayout> {
        let n = check_pow2_with(new_size, || format!("new size of in dim '{d}'"))? as usize;
        if !self.has_in_dim(d) {
            return Err(LayoutError::MissingDim {
                which: "input",
                name: d,
            });
        }
        let ins = self
            .ins
            .iter()
            .map(|x| {
                let mut v = self.packed_bases(x.name).to_vec();
                if x.name == d {
                    v.resize(n, 0);
                }
                (x.name, v)
            })
            .collect();
        LinearLayout::from_packed(
            ins,
            self.outs.iter().map(|o| (o.name, o.log2)).collect(),
            false,
        )
    }

    /// Shrinks output dim `d` to `new_size` (≤ current): components that do
    /// not fit are set to 0 whole (not masked).
    pub fn resize_out_dim(&self, d: DimName, new_size: u64) -> Result<LinearLayout> {
        let n = check_pow2_with(new_size, || format!("new size of out dim '{d}'"))?;
        let Some(o) = self.out_dim(d).copied() else {
            return Err(LayoutError::MissingDim {
                which: "output",
                name: d,
            });
        };
        if n > o.log2 {
            return Err(LayoutError::SizeMismatch {
                what: "resize_out_dim can only shrink",
                dim: d,
                expected: 1u64 << o.log2,
                found: new_size,
            });
        }
        let mut bases = self.all_bases();
        let k = self.out_dim_index(d).expect("present");
        for (_, bs) in &mut bases {
            for b in bs {
                if b[k] >> n != 0 {
                    b[k] = 0;
                }
            }
        }
        let mut outs = self.out_dims();
        outs[k].1 = new_size;
        LinearLayout::new(bases, outs, false)
    }

    /// Renames input dim `old` to `new`, keeping its position.
    pub fn rename_in_dim(&self, old: DimName, new: DimName) -> Result<LinearLayout> {
        self.with_renamed_dims(&[(old, new)], &[])
    }

    /// Renames output dim `old` to `new`, keeping its position.
    pub fn rename_out_dim(&self, old: DimName, new: DimName) -> Result<LinearLayout> {
        self.with_renamed_dims(&[], &[(old, new)])
    }

    /// Renames input and output dims simultaneously: `(old, new)` pairs,
    /// applied all at once so that swaps work; positions, sizes and bases
    /// are unchanged. Errors when an `old` dim is missing (inputs checked
    /// first) or the result would have duplicate names. The one home of
    /// renaming ([`crate::utils::rename_dims`] is Triton's name for it).
    pub(crate) fn with_renamed_dims(
        &self,
        in_renames: &[(DimName, DimName)],
        out_renames: &[(DimName, DimName)],
    ) -> Result<LinearLayout> {
        for &(old, _) in in_renames {
            if !self.has_in_dim(old) {
                return Err(LayoutError::MissingDim {
                    which: "input",
                    name: old,
                });
            }
        }
        for &(old, _) in out_renames {
            if !self.has_out_dim(old) {
                return Err(LayoutError::MissingDim {
                    which: "output",
                    name: old,
                });
            }
        }
        let map =
            |d: DimName, r: &[(DimName, DimName)]| r.iter().find(|x| x.0 == d).map_or(d, |x| x.1);
        let ins = self
            .ins
            .iter()
            .map(|x| (map(x.name, in_renames), self.packed_bases(x.name).to_vec()))
            .collect();
        let outs = self
            .outs
            .iter()
            .map(|o| (map(o.name, out_renames), o.log2))
            .collect();
        LinearLayout::from_packed(ins, outs, false)
    }

    /// `self(x) ⊕ other(y)` on the input dims of `self` followed by the
    /// (disjoint) input dims of `other`; both need the same out dims, in the
    /// same order, with the same sizes.
    pub fn concat_ins(&self, other: &LinearLayout) -> Result<LinearLayout> {
        if self.outs != other.outs {
            return Err(LayoutError::DimMismatch {
                what: "concat_ins needs the same out dims with the same sizes",
                expected: self.out_dim_names().collect(),
                found: other.out_dim_names().collect(),
            });
        }
        if let Some(d) = other.ins.iter().find(|d| self.has_in_dim(d.name)) {
            return Err(LayoutError::Invalid(format!(
                "concat_ins needs disjoint input dimensions; '{}' is in both",
                d.name
            )));
        }
        let ins = self
            .ins
            .iter()
            .map(|x| (x.name, self.packed_bases(x.name).to_vec()))
            .chain(
                other
                    .ins
                    .iter()
                    .map(|x| (x.name, other.packed_bases(x.name).to_vec())),
            )
            .collect();
        LinearLayout::from_packed(
            ins,
            self.outs.iter().map(|o| (o.name, o.log2)).collect(),
            false,
        )
    }

    /// Joins the out dims: each basis is `self`'s components followed by
    /// `other`'s. Both need the same in dims (same sizes) and disjoint outs.
    pub fn concat_outs(&self, other: &LinearLayout) -> Result<LinearLayout> {
        if self.in_dims() != other.in_dims() {
            return Err(LayoutError::DimMismatch {
                what: "concat_outs needs the same in dims with the same sizes",
                expected: self.in_dim_names().collect(),
                found: other.in_dim_names().collect(),
            });
        }
        if let Some(o) = other.outs.iter().find(|o| self.has_out_dim(o.name)) {
            return Err(LayoutError::Invalid(format!(
                "concat_outs needs disjoint output dimensions; '{}' is in both",
                o.name
            )));
        }
        let shift = self.total_out_dim_size_log2();
        let ins = self
            .ins
            .iter()
            .map(|x| {
                let v = self
                    .packed_bases(x.name)
                    .iter()
                    .zip(other.packed_bases(x.name))
                    .map(|(&a, &b)| a | b << shift)
                    .collect();
                (x.name, v)
            })
            .collect();
        let outs = self
            .outs
            .iter()
            .chain(&other.outs)
            .map(|o| (o.name, o.log2))
            .collect();
        LinearLayout::from_packed(ins, outs, false)
    }

    /// The restriction to the given input and output dims (each a subset;
    /// the layout's own dim order is kept). Out sizes are kept.
    pub fn sublayout(&self, ins: &[DimName], outs: &[DimName]) -> Result<LinearLayout> {
        for &d in ins {
            if !self.has_in_dim(d) {
                return Err(LayoutError::MissingDim {
                    which: "input",
                    name: d,
                });
            }
        }
        for &d in outs {
            if !self.has_out_dim(d) {
                return Err(LayoutError::MissingDim {
                    which: "output",
                    name: d,
                });
            }
        }
        let kept: Vec<_> = self
            .outs
            .iter()
            .filter(|o| outs.contains(&o.name))
            .copied()
            .collect();
        let repack = |c: u64| {
            let mut r = 0;
            let mut shift = 0;
            for o in &kept {
                r |= (c.wrapping_shr(o.shift) & low_mask(o.log2)).wrapping_shl(shift);
                shift += o.log2;
            }
            r
        };
        let new_ins = self
            .ins
            .iter()
            .filter(|d| ins.contains(&d.name))
            .map(|d| {
                (
                    d.name,
                    self.packed_bases(d.name)
                        .iter()
                        .map(|&c| repack(c))
                        .collect(),
                )
            })
            .collect();
        LinearLayout::from_packed(
            new_ins,
            kept.iter().map(|o| (o.name, o.log2)).collect(),
            false,
        )
    }

    /// Drops every all-zero basis of input dim `d` (shrinking it).
    pub fn remove_zero_bases_along_dim(&self, d: DimName) -> LinearLayout {
        let ins = self
            .ins
            .iter()
            .map(|x| {
                let v = self.packed_bases(x.name).iter().copied();
                let v: Vec<u64> = if x.name == d {
                    v.filter(|&c| c != 0).collect()
                } else {
                    v.collect()
                };
                (x.name, v)
            })
            .collect();
        LinearLayout::from_packed(
            ins,
            self.outs.iter().map(|o| (o.name, o.log2)).collect(),
            false,
        )
        .expect("removing bases keeps the invariants")
    }
}
