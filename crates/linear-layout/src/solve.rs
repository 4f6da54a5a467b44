//! Composition, factoring and inversion: the equations `X ∘ A = B` over GF(2).

use crate::error::{LayoutError, Result};
use crate::gf2::{bits, xor_columns, EchelonBasis};
use crate::layout::{EvalCache, InDim, OutDim};
use crate::{DimName, LinearLayout};

/// Moves the bits of a packed column of `from` into the out-dim packing of
/// `to` (out dims matched by name; every out dim of `from` must exist in
/// `to` and be no larger). Precomputed once per pair of layouts.
struct Repack {
    /// Packing already identical (the common case): no work.
    same: bool,
    /// `map[p]`: position in `to` of bit `p` of `from`.
    map: [u8; 64],
}

impl Repack {
    fn new(from: &LinearLayout, to: &LinearLayout) -> Self {
        let mut map = [0u8; 64];
        let mut same = true;
        for o in &from.outs {
            let t = to.out_dim(o.name).expect("out dim present in both");
            for k in 0..o.log2 {
                let (p, q) = (o.shift + k, t.shift + k);
                map[p as usize] = q as u8;
                same &= p == q;
            }
        }
        Repack { same, map }
    }

    #[inline]
    fn apply(&self, c: u64) -> u64 {
        if self.same {
            c
        } else {
            bits(c).fold(0, |r, p| r | 1u64 << self.map[p as usize])
        }
    }
}

fn same_dim_set(a: impl Iterator<Item = DimName>, b: impl Iterator<Item = DimName>) -> bool {
    let mut a: Vec<DimName> = a.collect();
    let mut b: Vec<DimName> = b.collect();
    a.sort();
    b.sort();
    a == b
}

impl LinearLayout {
    /// `self.compose(outer)` = `outer ∘ self` ("first `self`, then `outer`"):
    /// each basis of `self`, read as an input of `outer`, is mapped through
    /// `outer`. Requires `self`'s out-dim set to equal `outer`'s in-dim set
    /// and each out size of `self` ≤ the matching in size of `outer`.
    ///
    /// ```
    /// use linear_layout::{DimName, LinearLayout};
    /// let (x, y, z) = (DimName::new("x"), DimName::new("y"), DimName::new("z"));
    /// let shift = LinearLayout::strided_1d(4, 2, x, y); // x ↦ 2x
    /// let id = LinearLayout::identity_1d(8, y, z);
    /// let c = shift.compose(&id).unwrap();
    /// assert_eq!(c.apply(&[(x, 3)]).unwrap()[0], (z, 6));
    /// ```
    pub fn compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        if !same_dim_set(self.out_dim_names(), outer.in_dim_names()) {
            return Err(LayoutError::DimMismatch {
                what: "compose: out dims of the first layout must be the in dims of the second",
                expected: outer.in_dim_names().collect(),
                found: self.out_dim_names().collect(),
            });
        }
        for o in &self.outs {
            let inner = outer.in_dim_size_log2(o.name);
            if o.log2 > inner {
                return Err(LayoutError::SizeMismatch {
                    what: "compose: out size exceeds the outer layout's in size",
                    dim: o.name,
                    expected: 1u64 << inner,
                    found: 1u64 << o.log2,
                });
            }
        }
        // Bit p of a packed column of `self` (out dim o, bit k) is input bit
        // k of outer's in dim o: its image is that column of `outer`.
        let mut image = [0u64; 64];
        for o in &self.outs {
            let od = outer.in_dim(o.name).expect("checked");
            for k in 0..o.log2 {
                image[(o.shift + k) as usize] = outer.bases[(od.start + k) as usize];
            }
        }
        let bases = self.bases.iter().map(|&c| xor_columns(&image, c)).collect();
        // Same in dims as `self`, outer's out dims; every column is a XOR of
        // outer's columns, so it fits.
        Ok(LinearLayout {
            ins: self.ins.clone(),
            outs: outer.outs.clone(),
            bases,
            eval: EvalCache::default(),
        })
    }

    /// `self.invert_and_compose(outer)`: the layout `C` with
    /// `self(x) = outer(C(x))` for all `x`, i.e. `outer⁻¹ ∘ self`. For a
    /// conversion, `dst.invert_and_compose(src)` maps destination hardware
    /// coordinates to the source coordinates holding the same element.
    ///
    /// Triton 3.9's choices are kept (checked against Triton itself, see
    /// `tests/algebra_oracle.rs`): an input dim present in both layouts with
    /// equal bases (out sizes aside), whose output bits no other in dim of
    /// either layout touches, maps to itself (identity); the other dims are
    /// solved against `outer`'s other columns, taking the earliest
    /// independent columns (pivots) and setting free variables to 0. Should
    /// that reduced system not be solvable (Triton would fail an assertion),
    /// identity dims are released from the fastest (`register`) up until it
    /// is, so slower dims (`warp`, `block`) keep mapping to themselves.
    /// Requires
    /// equal out-dim sets (any order), each of `outer`'s out sizes ≥
    /// `self`'s, and `outer` covering `self`'s image (else
    /// [`LayoutError::NotCovered`]). `C` has `self`'s in dims and `outer`'s
    /// in dims (with their sizes) as out dims; it need not be surjective.
    pub fn invert_and_compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        check_outer_covers_outs(
            self,
            outer,
            || LayoutError::DimMismatch {
                what: "invert_and_compose: both layouts need the same out dims",
                expected: self.out_dim_names().collect(),
                found: outer.out_dim_names().collect(),
            },
            "invert_and_compose: outer out size must be >= this out size",
        )?;
        let repack = Repack::new(self, outer);
        // Identity dims (Triton 3.9's broadcast heuristic): in both layouts,
        // with equal bases (out sizes aside), and in each layout no other in
        // dim's bases touch an output bit that this dim's bases use.
        let mut identity: smallvec::SmallVec<[DimName; 4]> = smallvec::SmallVec::new();
        for d in &self.ins {
            if let Some(od) = outer.in_dim(d.name) {
                if od.log2 == d.log2
                    && self
                        .packed_bases(d.name)
                        .iter()
                        .zip(outer.packed_bases(d.name))
                        .all(|(&a, &b)| repack.apply(a) == b)
                    && self.untouched_by_other_dims(d.name)
                    && outer.untouched_by_other_dims(d.name)
                {
                    identity.push(d.name);
                }
            }
        }
        // Triton asserts when the identity dims took columns the other dims
        // need; we release identity dims from the fastest (`register`) up
        // until the rest is solvable, so the slower dims (`warp`, `block`)
        // keep mapping to themselves whenever possible.
        let bases = (0..=identity.len())
            .find_map(|k| self.solve_with_identity_dims(outer, &repack, &identity[k..]))
            .ok_or(LayoutError::NotCovered)?;
        // In dims of `self`; out dims = outer's in dims (a value of C is a
        // flat input of `outer`), so every column fits.
        Ok(LinearLayout {
            ins: self.ins.clone(),
            outs: outer
                .ins
                .iter()
                .map(|d| OutDim {
                    name: d.name,
                    log2: d.log2,
                    shift: d.start,
                })
                .collect(),
            bases: bases.into(),
            eval: EvalCache::default(),
        })
    }

    /// Whether no in dim other than `d` has a basis sharing an output bit
    /// with one of `d`'s bases (the OR masks are disjoint).
    fn untouched_by_other_dims(&self, d: DimName) -> bool {
        let mask = |f: &dyn Fn(DimName) -> bool| {
            self.ins
                .iter()
                .filter(|x| f(x.name))
                .flat_map(|x| self.packed_bases(x.name))
                .fold(0u64, |m, &c| m | c)
        };
        mask(&|n| n == d) & mask(&|n| n != d) == 0
    }

    /// The columns of `C` (flat, in `self`'s input-bit order) with the
    /// `identity` dims mapped to themselves and the others solved against
    /// `outer`'s other columns (earliest pivots, free variables 0); each
    /// column is a flat input of `outer`. `None` if not covered.
    fn solve_with_identity_dims(
        &self,
        outer: &LinearLayout,
        repack: &Repack,
        identity: &[DimName],
    ) -> Option<Vec<u64>> {
        let mut basis = EchelonBasis::new();
        let mut col_pos = [0u8; 64]; // outer flat bit of each inserted column
        let mut n = 0;
        for d in outer.ins.iter().filter(|d| !identity.contains(&d.name)) {
            for k in 0..d.log2 {
                let c = outer.bases[(d.start + k) as usize];
                // Only independent columns are inserted (≤ 64), keeping the
                // earliest ones: these are the pivots.
                if basis.insert_if_independent(c) {
                    col_pos[n] = (d.start + k) as u8;
                    n += 1;
                }
            }
        }
        let mut out = Vec::with_capacity(self.bases.len());
        for d in &self.ins {
            if identity.contains(&d.name) {
                let od = outer.in_dim(d.name).expect("identity dim");
                out.extend((0..d.log2).map(|k| 1u64 << (od.start + k)));
            } else {
                for &c in &self.bases[d.start as usize..(d.start + d.log2) as usize] {
                    let x = basis.solve(repack.apply(c))?;
                    out.push(bits(x).fold(0u64, |acc, j| acc | 1u64 << col_pos[j as usize]));
                }
            }
        }
        Some(out)
    }

    /// A right inverse of a surjective layout: `L⁺` with `L(L⁺(y)) = y` for
    /// every output `y`, choosing pivot (earliest) input bits where `L` is
    /// not injective (Triton: `identity(out dims).invertAndCompose(L)`). In
    /// dims = `self`'s out dims; out dims = `self`'s in dims. A layout that is
    /// not surjective gives [`LayoutError::NotCovered`].
    pub fn pseudoinvert(&self) -> Result<LinearLayout> {
        // The identity over the out dims: in dim `o` ↦ out dim `o`, so its
        // flat input bit p is packed output bit p.
        let identity = LinearLayout {
            ins: self
                .outs
                .iter()
                .map(|o| InDim {
                    name: o.name,
                    start: o.shift,
                    log2: o.log2,
                })
                .collect(),
            outs: self.outs.clone(),
            bases: (0..self.total_out_dim_size_log2())
                .map(|p| 1u64 << p)
                .collect(),
            eval: EvalCache::default(),
        };
        identity.invert_and_compose(self)
    }

    /// The inverse of a bijective layout.
    ///
    /// ```
    /// use linear_layout::{DimName, LinearLayout};
    /// let l = LinearLayout::new(
    ///     vec![(DimName::OFFSET, vec![vec![0, 1], vec![1, 1]])],
    ///     vec![(DimName::dim(0), 2), (DimName::dim(1), 2)], true).unwrap();
    /// let inv = l.invert().unwrap();
    /// assert_eq!(l.compose(&inv).unwrap().bases(DimName::OFFSET), vec![vec![1], vec![2]]);
    /// ```
    pub fn invert(&self) -> Result<LinearLayout> {
        if !self.is_invertible() {
            return Err(LayoutError::NotInvertible {
                reason: format!(
                    "{} input bits, {} output bits, rank {}",
                    self.total_in_dim_size_log2(),
                    self.total_out_dim_size_log2(),
                    self.rank()
                ),
            });
        }
        self.pseudoinvert()
    }
}

/// The shape precondition of solving `inner` against `outer` (both
/// [`LinearLayout::invert_and_compose`] and [`factor_through`]): the same
/// out-dim set, else `dims_error()` (each solver words it), and each of
/// `outer`'s out sizes at least `inner`'s, else
/// [`LayoutError::SizeMismatch`] with `size_what`.
fn check_outer_covers_outs(
    inner: &LinearLayout,
    outer: &LinearLayout,
    dims_error: impl FnOnce() -> LayoutError,
    size_what: &'static str,
) -> Result<()> {
    if !same_dim_set(inner.out_dim_names(), outer.out_dim_names()) {
        return Err(dims_error());
    }
    for o in &inner.outs {
        let ol = outer.out_dim_size_log2(o.name);
        if ol < o.log2 {
            return Err(LayoutError::SizeMismatch {
                what: size_what,
                dim: o.name,
                expected: 1u64 << o.log2,
                found: 1u64 << ol,
            });
        }
    }
    Ok(())
}

/// Solves `A(X(x)) = B(x)` for `X`, or `None` when `B`'s image is not in
/// `A`'s. Requires equal out-dim sets with each of `B`'s sizes ≤ `A`'s.
/// Free variables are 0 (pivot columns of `A` are used). `X` has `B`'s in
/// dims and `A`'s in dims (with sizes) as out dims; it is not required to be
/// surjective.
pub fn factor_through(a: &LinearLayout, b: &LinearLayout) -> Result<Option<LinearLayout>> {
    check_outer_covers_outs(
        b,
        a,
        || LayoutError::DimMismatch {
            what: "factor_through: both layouts need the same out dims",
            expected: a.out_dim_names().collect(),
            found: b.out_dim_names().collect(),
        },
        "factor_through: A's out size must be >= B's",
    )?;
    let repack = Repack::new(b, a);
    let mut basis = EchelonBasis::new();
    let mut col_pos = Vec::new();
    for (j, &c) in a.bases.iter().enumerate() {
        if basis.insert_if_independent(c) {
            col_pos.push(j as u32);
        }
    }
    let mut ins = Vec::with_capacity(b.ins.len());
    for d in &b.ins {
        let mut v = Vec::with_capacity(d.log2 as usize);
        for &c in b.packed_bases(d.name) {
            let Some(x) = basis.solve(repack.apply(c)) else {
                return Ok(None);
            };
            v.push(bits(x).fold(0u64, |acc, j| acc | 1u64 << col_pos[j as usize]));
        }
        ins.push((d.name, v));
    }
    let outs = a.ins.iter().map(|d| (d.name, d.log2)).collect();
    Ok(Some(LinearLayout::from_packed(ins, outs, false)?))
}
