//! The [`LinearLayout`] type: construction, invariants and queries.
//! Printing (Triton's `toString`) lives in `print.rs`; evaluation
//! (`apply`, tables, [`crate::Evaluator`]) in `eval.rs`; algebra and shape
//! operations in sibling modules.

use crate::error::{check_pow2, check_pow2_with, LayoutError, Result};
pub(crate) use crate::eval::EvalCache;
use crate::gf2::{self, EchelonBasis};
use crate::DimName;
use smallvec::SmallVec;
use std::hash::Hash;

/// A layout's packed columns, inline up to the usual size.
pub(crate) type Bases = SmallVec<[u64; 16]>;

/// A layout's out dims, inline up to 12: Triton's sort and top-k reshape
/// a tile into 11 dims of size 2, and a layout that spills here is
/// allocated on every clone (with 4 inline, cloning was a tenth of the
/// engine's time on the sample's sort kernel; 2026-11-25, `cargo bench -p
/// layout-engine --bench engine`).
pub(crate) type Outs = SmallVec<[OutDim; 12]>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct InDim {
    pub name: DimName,
    /// Index of the first basis of this dim in `LinearLayout::bases`.
    pub start: u32,
    /// log2 of the size = number of bases.
    pub log2: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct OutDim {
    pub name: DimName,
    pub log2: u32,
    /// Bit position of this dim's lowest bit in a packed column.
    pub shift: u32,
}

/// A linear map over GF(2) from named input dims to named output dims.
///
/// Basis `i` of input dim `d` is the image of the input with `d = 2^i` and
/// every other input 0; the image of any input is the XOR of the bases of its
/// set bits. Dims are ordered minor to major. Internally every basis is one
/// `u64` column holding all output bits, the first out dim in the low bits.
///
/// ```
/// use linear_layout::{DimName, LinearLayout};
/// let (r, o) = (DimName::REGISTER, DimName::dim(0));
/// // identity(4) * zeros(2): bases [1, 2, 0] → x ↦ x mod 4 on x in 0..8.
/// let lo = LinearLayout::identity_1d(4, r, o) * LinearLayout::zeros_1d(2, r, o, 1);
/// for x in 0..8 {
///     assert_eq!(lo.apply(&[(r, x)]).unwrap()[0], (o, x % 4));
/// }
/// // zeros(4) * identity(2): bases [0, 0, 1] → x ↦ x / 4.
/// let hi = LinearLayout::zeros_1d(4, r, o, 1) * LinearLayout::identity_1d(2, r, o);
/// for x in 0..8 {
///     assert_eq!(hi.apply(&[(r, x)]).unwrap()[0], (o, x / 4));
/// }
/// ```
#[derive(PartialEq, Eq, Hash)]
pub struct LinearLayout {
    pub(crate) ins: SmallVec<[InDim; 4]>,
    pub(crate) outs: Outs,
    pub(crate) bases: Bases,
    /// Byte tables for [`LinearLayout::apply`], built on its first call.
    pub(crate) eval: EvalCache,
}

/// Copies the dims and columns as slices (`SmallVec::from_slice`, one
/// `memcpy` each); the derived `Clone` extends element by element, about
/// 2 000 instructions a clone of an 11-dim layout, a sixteenth of the
/// engine's instructions on the sample's sort kernel (callgrind,
/// 2026-11-29, `crates/layout-engine/examples/engine_record.rs`). The
/// evaluation tables are not copied (see `EvalCache`).
impl Clone for LinearLayout {
    fn clone(&self) -> Self {
        LinearLayout {
            ins: SmallVec::from_slice(&self.ins),
            outs: SmallVec::from_slice(&self.outs),
            bases: SmallVec::from_slice(&self.bases),
            eval: self.eval.clone(),
        }
    }
}

impl Default for LinearLayout {
    fn default() -> Self {
        Self::empty()
    }
}

/// The most input dims, and the most output dims, of a layout: 64, as many
/// as it has bits at most, so that only dims of size 1 could pass it. A
/// tensor of rank 20 000 (a JSON object of bases of 20 000 components, or
/// `--shape 1x1x...x32`) took seconds in the per-dim work, quadratic in
/// the rank.
pub const MAX_DIMS: usize = 64;

fn check_unique(which: &'static str, names: impl Iterator<Item = DimName>) -> Result<()> {
    let mut seen: SmallVec<[DimName; 16]> = SmallVec::new();
    for n in names {
        if seen.contains(&n) {
            return Err(LayoutError::DuplicateDim { which, name: n });
        }
        seen.push(n);
    }
    Ok(())
}

impl LinearLayout {
    // ----- construction -------------------------------------------------

    /// The layout with no dims: maps the single point to the single point.
    /// It is the neutral element of the product.
    pub fn empty() -> Self {
        LinearLayout {
            ins: SmallVec::new(),
            outs: SmallVec::new(),
            bases: SmallVec::new(),
            eval: EvalCache::default(),
        }
    }

    /// Builds a layout from packed columns, checking the word-size limits,
    /// duplicate names and that every column fits the out dims. Surjectivity
    /// is checked only when `require_surjective`.
    pub fn from_packed(
        ins: Vec<(DimName, Vec<u64>)>,
        outs: Vec<(DimName, u32)>,
        require_surjective: bool,
    ) -> Result<Self> {
        for (which, dims) in [("input", ins.len()), ("output", outs.len())] {
            if dims > MAX_DIMS {
                return Err(LayoutError::TooManyDims {
                    which,
                    dims,
                    limit: MAX_DIMS,
                });
            }
        }
        check_unique("input", ins.iter().map(|(n, _)| *n))?;
        check_unique("output", outs.iter().map(|(n, _)| *n))?;
        // One dim's size must fit a u64 (at most 2^63).
        let widest_in = ins.iter().map(|(_, b)| b.len()).max().unwrap_or(0);
        let widest_out = outs.iter().map(|o| o.1).max().unwrap_or(0);
        if widest_in > 63 || widest_out > 63 {
            return Err(LayoutError::TooManyBits {
                which: "single dim (limit 63)",
                bits: widest_in.max(widest_out as usize) as u32,
            });
        }
        let out_bits: u32 = outs.iter().map(|o| o.1).sum();
        if out_bits > 64 {
            return Err(LayoutError::TooManyBits {
                which: "output",
                bits: out_bits,
            });
        }
        let in_bits: usize = ins.iter().map(|(_, b)| b.len()).sum();
        if in_bits > 64 {
            return Err(LayoutError::TooManyBits {
                which: "input",
                bits: in_bits as u32,
            });
        }
        let mut shift = 0;
        let outs: Outs = outs
            .into_iter()
            .map(|(name, log2)| {
                let o = OutDim { name, log2, shift };
                shift += log2;
                o
            })
            .collect();
        let mask = low_mask(out_bits);
        let mut in_dims = SmallVec::with_capacity(ins.len());
        let mut bases = SmallVec::with_capacity(in_bits);
        for (name, b) in ins {
            in_dims.push(InDim {
                name,
                start: bases.len() as u32,
                log2: b.len() as u32,
            });
            for (i, &c) in b.iter().enumerate() {
                if c & !mask != 0 {
                    return Err(LayoutError::Invalid(format!(
                        "basis {i} of in dim '{name}' has bits beyond the {out_bits} output bits"
                    )));
                }
            }
            bases.extend_from_slice(&b);
        }
        let l = LinearLayout {
            ins: in_dims,
            outs,
            bases,
            eval: EvalCache::default(),
        };
        if require_surjective && !l.is_surjective() {
            return Err(LayoutError::NotSurjective {
                rank: l.rank(),
                out_bits,
            });
        }
        Ok(l)
    }

    /// A layout with one in dim (its columns `cols`) and one out dim of
    /// `out_log2` bits; the caller guarantees the `from_packed` invariants
    /// (at most 63 columns, each below `2^out_log2`, `out_log2 ≤ 63`).
    fn one_dim(
        in_dim: DimName,
        out_dim: DimName,
        out_log2: u32,
        cols: impl Iterator<Item = u64>,
    ) -> Self {
        let bases: Bases = cols.collect();
        let mut ins = SmallVec::new();
        ins.push(InDim {
            name: in_dim,
            start: 0,
            log2: bases.len() as u32,
        });
        let mut outs = SmallVec::new();
        outs.push(OutDim {
            name: out_dim,
            log2: out_log2,
            shift: 0,
        });
        LinearLayout {
            ins,
            outs,
            bases,
            eval: EvalCache::default(),
        }
    }

    /// Builds a layout from bases with explicit out dims `(name, size)`.
    /// `bases[k] = (in_dim, list of bases)`, each basis one component per out
    /// dim in `out_dims` order. Checks Triton's invariants: power-of-two out
    /// sizes, components in range, and surjectivity if `require_surjective`.
    ///
    /// ```
    /// use linear_layout::{DimName, LinearLayout};
    /// let l = LinearLayout::new(
    ///     vec![(DimName::LANE, vec![vec![1], vec![2]])],
    ///     vec![(DimName::dim(0), 4)],
    ///     true,
    /// ).unwrap();
    /// assert_eq!(l, LinearLayout::identity_1d(4, DimName::LANE, DimName::dim(0)));
    /// ```
    pub fn new(
        bases: Vec<(DimName, Vec<Vec<u64>>)>,
        out_dims: Vec<(DimName, u64)>,
        require_surjective: bool,
    ) -> Result<Self> {
        let mut outs = Vec::with_capacity(out_dims.len());
        for &(name, size) in &out_dims {
            outs.push((
                name,
                check_pow2_with(size, || format!("size of out dim '{name}'"))?,
            ));
        }
        let packed = pack_bases(&bases, &outs)?;
        Self::from_packed(packed, outs, require_surjective)
    }

    /// Builds a surjective layout from bases, inferring each out size as the
    /// smallest power of two strictly greater than the largest component.
    ///
    /// ```
    /// use linear_layout::{DimName, LinearLayout};
    /// // Linearity: with L(1,0) = (1,1), L(0,1) = (0,1), L(0,2) = (0,2),
    /// // L(1,3) = L(1,0) ^ L(0,1) ^ L(0,2) = (1^0^0, 1^1^2) = (1, 2).
    /// let (x, y) = (DimName::new("x"), DimName::new("y"));
    /// let l = LinearLayout::with_inferred_out_sizes(
    ///     vec![(x, vec![vec![1, 1]]), (y, vec![vec![0, 1], vec![0, 2]])],
    ///     vec![DimName::dim(0), DimName::dim(1)],
    /// ).unwrap();
    /// // Sizes inferred: dim0 max 1 → 2, dim1 max 2 → 4.
    /// assert_eq!(l.out_dims(), vec![(DimName::dim(0), 2), (DimName::dim(1), 4)]);
    /// let out = l.apply(&[(x, 1), (y, 3)]).unwrap();
    /// assert_eq!(out.iter().map(|c| c.1).collect::<Vec<_>>(), vec![1, 2]);
    /// ```
    pub fn with_inferred_out_sizes(
        bases: Vec<(DimName, Vec<Vec<u64>>)>,
        out_names: Vec<DimName>,
    ) -> Result<Self> {
        let mut sizes = vec![1u64; out_names.len()];
        for (_, bs) in &bases {
            for b in bs {
                for (k, &c) in b.iter().enumerate() {
                    if k < sizes.len() {
                        let need = c.checked_add(1).and_then(u64::checked_next_power_of_two);
                        let Some(need) = need else {
                            return Err(LayoutError::TooManyBits {
                                which: "output",
                                bits: 65,
                            });
                        };
                        sizes[k] = sizes[k].max(if c == 0 { 1 } else { need });
                    }
                }
            }
        }
        let outs = out_names.into_iter().zip(sizes).collect();
        Self::new(bases, outs, true)
    }

    /// `strided_1d(size, stride)`: basis `i` is `stride * 2^i`, out size
    /// `stride * size`. Size 0 gives the empty layout.
    pub fn try_strided_1d(
        size: u64,
        stride: u64,
        in_dim: DimName,
        out_dim: DimName,
    ) -> Result<Self> {
        if size == 0 {
            return Ok(Self::empty());
        }
        let n = check_pow2("strided_1d size", size)?;
        let s = check_pow2("strided_1d stride", stride)?;
        if n + s > 63 {
            return Err(LayoutError::TooManyBits {
                which: "output",
                bits: n + s,
            });
        }
        // One in dim and one out dim, each column a single bit below
        // `n + s ≤ 63`: valid by construction (what `from_packed` checks).
        Ok(Self::one_dim(
            in_dim,
            out_dim,
            n + s,
            (0..n).map(|i| 1u64 << (i + s)),
        ))
    }

    /// Panicking form of [`Self::try_strided_1d`], for sizes known valid.
    pub fn strided_1d(size: u64, stride: u64, in_dim: DimName, out_dim: DimName) -> Self {
        Self::try_strided_1d(size, stride, in_dim, out_dim).expect("strided_1d")
    }

    /// `identity_1d(size)`: input `x` maps to output `x`, out size `size`.
    pub fn try_identity_1d(size: u64, in_dim: DimName, out_dim: DimName) -> Result<Self> {
        Self::try_strided_1d(size, 1, in_dim, out_dim)
    }

    /// Panicking form of [`Self::try_identity_1d`].
    ///
    /// ```
    /// use linear_layout::{DimName, LinearLayout};
    /// let l = LinearLayout::identity_1d(8, DimName::LANE, DimName::dim(0));
    /// assert_eq!(l.apply(&[(DimName::LANE, 5)]).unwrap()[0].1, 5);
    /// ```
    pub fn identity_1d(size: u64, in_dim: DimName, out_dim: DimName) -> Self {
        Self::try_identity_1d(size, in_dim, out_dim).expect("identity_1d")
    }

    /// `zeros_1d(size)`: every input maps to 0; out dim of size `out_size`.
    pub fn try_zeros_1d(
        size: u64,
        in_dim: DimName,
        out_dim: DimName,
        out_size: u64,
    ) -> Result<Self> {
        if size == 0 {
            return Ok(Self::empty());
        }
        let n = check_pow2("zeros_1d size", size)?;
        let o = check_pow2("zeros_1d out size", out_size)?;
        // `n, o ≤ 63` (powers of two in a u64): valid by construction.
        Ok(Self::one_dim(in_dim, out_dim, o, (0..n).map(|_| 0)))
    }

    /// Panicking form of [`Self::try_zeros_1d`].
    pub fn zeros_1d(size: u64, in_dim: DimName, out_dim: DimName, out_size: u64) -> Self {
        Self::try_zeros_1d(size, in_dim, out_dim, out_size).expect("zeros_1d")
    }

    // ----- dims ---------------------------------------------------------

    /// Input dim names, minor to major.
    pub fn in_dim_names(&self) -> impl Iterator<Item = DimName> + '_ {
        self.ins.iter().map(|d| d.name)
    }

    /// Output dim names, minor to major.
    pub fn out_dim_names(&self) -> impl Iterator<Item = DimName> + '_ {
        self.outs.iter().map(|d| d.name)
    }

    /// `(name, size)` of every input dim.
    pub fn in_dims(&self) -> Vec<(DimName, u64)> {
        self.ins.iter().map(|d| (d.name, 1u64 << d.log2)).collect()
    }

    /// `(name, size)` of every output dim.
    pub fn out_dims(&self) -> Vec<(DimName, u64)> {
        self.outs.iter().map(|d| (d.name, 1u64 << d.log2)).collect()
    }

    /// Number of input dims.
    pub fn num_in_dims(&self) -> usize {
        self.ins.len()
    }

    /// Number of output dims.
    pub fn num_out_dims(&self) -> usize {
        self.outs.len()
    }

    /// Position of an input dim.
    pub fn in_dim_index(&self, d: DimName) -> Option<usize> {
        self.ins.iter().position(|x| x.name == d)
    }

    /// Position of an output dim.
    pub fn out_dim_index(&self, d: DimName) -> Option<usize> {
        self.outs.iter().position(|x| x.name == d)
    }

    /// Whether `d` is an input dim.
    pub fn has_in_dim(&self, d: DimName) -> bool {
        self.in_dim_index(d).is_some()
    }

    /// Whether `d` is an output dim.
    pub fn has_out_dim(&self, d: DimName) -> bool {
        self.out_dim_index(d).is_some()
    }

    pub(crate) fn in_dim(&self, d: DimName) -> Option<&InDim> {
        self.ins.iter().find(|x| x.name == d)
    }

    pub(crate) fn out_dim(&self, d: DimName) -> Option<&OutDim> {
        self.outs.iter().find(|x| x.name == d)
    }

    /// log2 of the size of input dim `d` (0 when `d` is not an input dim).
    pub fn in_dim_size_log2(&self, d: DimName) -> u32 {
        self.in_dim(d).map_or(0, |x| x.log2)
    }

    /// Size of input dim `d` (1 when `d` is not an input dim).
    pub fn in_dim_size(&self, d: DimName) -> u64 {
        1u64 << self.in_dim_size_log2(d)
    }

    /// log2 of the size of output dim `d` (0 when `d` is not an output dim).
    pub fn out_dim_size_log2(&self, d: DimName) -> u32 {
        self.out_dim(d).map_or(0, |x| x.log2)
    }

    /// Size of output dim `d` (1 when `d` is not an output dim).
    pub fn out_dim_size(&self, d: DimName) -> u64 {
        1u64 << self.out_dim_size_log2(d)
    }

    /// Σ log2 of the input sizes = number of input bits.
    pub fn total_in_dim_size_log2(&self) -> u32 {
        self.bases.len() as u32
    }

    /// Σ log2 of the output sizes = number of output bits.
    pub fn total_out_dim_size_log2(&self) -> u32 {
        self.outs.iter().map(|o| o.log2).sum()
    }

    /// Product of the input sizes (saturating at `u64::MAX` for 64 bits).
    pub fn total_in_dim_size(&self) -> u64 {
        1u64.checked_shl(self.total_in_dim_size_log2())
            .unwrap_or(u64::MAX)
    }

    /// Product of the output sizes (saturating at `u64::MAX` for 64 bits).
    pub fn total_out_dim_size(&self) -> u64 {
        1u64.checked_shl(self.total_out_dim_size_log2())
            .unwrap_or(u64::MAX)
    }

    // ----- bases --------------------------------------------------------

    /// All columns, packed (first out dim in the low bits), in input-bit
    /// order (input dims in order, bit 0 first).
    pub fn columns(&self) -> &[u64] {
        &self.bases
    }

    /// The packed columns of input dim `d` (empty if `d` is absent).
    pub fn packed_bases(&self, d: DimName) -> &[u64] {
        match self.in_dim(d) {
            Some(x) => &self.bases[x.start as usize..(x.start + x.log2) as usize],
            None => &[],
        }
    }

    /// Splits a packed output into one value per out dim (out-dim order).
    pub fn unpack(&self, packed: u64) -> SmallVec<[u64; 4]> {
        self.outs
            .iter()
            .map(|o| packed.wrapping_shr(o.shift) & low_mask(o.log2))
            .collect()
    }

    /// Packs one value per out dim (out-dim order; bits above a dim's size
    /// are dropped) into the packed form.
    pub fn pack(&self, values: &[u64]) -> u64 {
        self.outs.iter().zip(values).fold(0, |acc, (o, &v)| {
            acc | (v & low_mask(o.log2)).wrapping_shl(o.shift)
        })
    }

    /// The bases of input dim `d`, one component per out dim.
    pub fn bases(&self, d: DimName) -> Vec<Vec<u64>> {
        self.packed_bases(d)
            .iter()
            .map(|&c| self.unpack(c).to_vec())
            .collect()
    }

    /// All bases, per input dim in order.
    pub fn all_bases(&self) -> Vec<(DimName, Vec<Vec<u64>>)> {
        self.ins
            .iter()
            .map(|d| (d.name, self.bases(d.name)))
            .collect()
    }

    /// Basis `i` of input dim `d` (image of `d = 2^i`), one component per
    /// out dim. Panics when `d` is not an in dim or `i` ≥ its log2 size
    /// (Triton asserts too); [`Self::bases`] never panics.
    pub fn basis(&self, d: DimName, i: usize) -> Vec<u64> {
        self.unpack(self.packed_bases(d)[i]).to_vec()
    }

    /// Component of basis `i` of input dim `d` along out dim `out`. Panics
    /// when a dim is missing or `i` is out of range, like [`Self::basis`].
    pub fn basis_component(&self, d: DimName, i: usize, out: DimName) -> u64 {
        let o = self.out_dim(out).expect("out dim");
        self.packed_bases(d)[i].wrapping_shr(o.shift) & low_mask(o.log2)
    }

    // ----- rank and its consequences -----------------------------------

    /// GF(2) rank of the whole matrix.
    pub fn rank(&self) -> u32 {
        gf2::rank(&self.bases)
    }

    /// Every output value is reached: rank = number of output bits.
    pub fn is_surjective(&self) -> bool {
        self.rank() == self.total_out_dim_size_log2()
    }

    /// No two inputs collide: rank = number of input bits.
    pub fn is_injective(&self) -> bool {
        self.rank() == self.total_in_dim_size_log2()
    }

    /// Surjective and as many inputs as outputs (a bijection).
    pub fn is_invertible(&self) -> bool {
        self.total_in_dim_size_log2() == self.total_out_dim_size_log2() && self.is_surjective()
    }

    /// Per input dim, the mask of *free* bits: bit `i` of dim `d` is free
    /// when its column depends on earlier columns (global input-bit order),
    /// i.e. flipping it lands on an element a lower input already reaches.
    /// Zero bases are always free.
    ///
    /// ```
    /// use linear_layout::{DimName, LinearLayout};
    /// let (a, b) = (DimName::new("in1"), DimName::new("in2"));
    /// let l = LinearLayout::new(
    ///     vec![(a, vec![vec![1, 1], vec![2, 2], vec![0, 0]]),
    ///          (b, vec![vec![1, 0], vec![0, 1], vec![2, 0]])],
    ///     vec![(DimName::dim(0), 4), (DimName::dim(1), 4)], false).unwrap();
    /// assert_eq!(l.free_variable_masks(), vec![(a, 0b100), (b, 0b10)]);
    /// ```
    pub fn free_variable_masks(&self) -> Vec<(DimName, u64)> {
        let mut basis = EchelonBasis::new();
        self.ins
            .iter()
            .map(|d| {
                let mut mask = 0;
                for i in 0..d.log2 {
                    let c = self.bases[(d.start + i) as usize];
                    if basis.contains(c) {
                        mask |= 1u64 << i;
                    } else {
                        basis.insert(c);
                    }
                }
                (d.name, mask)
            })
            .collect()
    }

    /// How many consecutive values of the first input dim map to consecutive
    /// values of the first output dim (Triton's `getNumConsecutiveInOut`):
    /// the largest `2^k` such that the layout is
    /// `identity_1d(2^k, in0, out0) * C` for some `C`.
    pub fn num_consecutive_in_out(&self) -> u64 {
        if self.ins.is_empty() || self.outs.is_empty() {
            return 1;
        }
        let in0 = self.ins[0].name;
        let out0 = self.outs[0].name;
        let limit = self.ins[0].log2.min(self.outs[0].log2);
        let mut k = 0;
        while k < limit {
            let id = LinearLayout::identity_1d(1 << (k + 1), in0, out0);
            if crate::divide_left(self, &id).is_none() {
                break;
            }
            k += 1;
        }
        1 << k
    }

    /// Whether every basis of the input dims `ins` is 0 in the output dims
    /// `outs` (missing dims are ignored).
    pub fn sublayout_is_zero(&self, ins: &[DimName], outs: &[DimName]) -> bool {
        let mask = self.out_mask(outs);
        ins.iter()
            .all(|&d| self.packed_bases(d).iter().all(|&c| c & mask == 0))
    }

    /// Packed mask of the bits of the given out dims.
    pub fn out_mask(&self, outs: &[DimName]) -> u64 {
        outs.iter()
            .filter_map(|&o| self.out_dim(o))
            .fold(0, |m, o| m | low_mask(o.log2).wrapping_shl(o.shift))
    }

    /// Whether the square sublayout on `dims` is the identity (Triton's
    /// `squareSublayoutIsIdentity`): every dim of `dims` is an input and an
    /// output dim with equal sizes, and after restricting to `dims` (the
    /// layout's own dim order kept) and flattening inputs and outputs, basis
    /// `k` is `2^k`. Empty `dims` → true; a missing dim → false.
    pub fn square_sublayout_is_identity(&self, dims: &[DimName]) -> bool {
        if dims.is_empty() {
            return true;
        }
        let Ok(sub) = self.sublayout(dims, dims) else {
            return false;
        };
        for &d in dims {
            if self.in_dim_size_log2(d) != self.out_dim_size_log2(d) {
                return false;
            }
        }
        sub.bases.iter().enumerate().all(|(k, &c)| c == 1u64 << k)
    }

    /// Whether the layout is `L' × identity(dims)`: each of `dims` is both an
    /// input and an output dim, the square sublayout on them is the identity,
    /// other inputs never touch them and they never touch other outputs.
    pub fn is_trivial_over(&self, dims: &[DimName]) -> Result<bool> {
        for &d in dims {
            if !self.has_in_dim(d) {
                return Err(LayoutError::MissingDim {
                    which: "input",
                    name: d,
                });
            }
            if !self.has_out_dim(d) {
                return Err(LayoutError::MissingDim {
                    which: "output",
                    name: d,
                });
            }
        }
        let others_in: Vec<DimName> = self.in_dim_names().filter(|d| !dims.contains(d)).collect();
        let others_out: Vec<DimName> = self.out_dim_names().filter(|d| !dims.contains(d)).collect();
        // Sizes and identity on the square part, with dims in layout order.
        let ordered: Vec<DimName> = self.in_dim_names().filter(|d| dims.contains(d)).collect();
        Ok(self.square_sublayout_is_identity(&ordered)
            && self.sublayout_is_zero(&others_in, dims)
            && self.sublayout_is_zero(dims, &others_out))
    }

    /// Whether `dim` is an input and output dim, the `dim → dim` sublayout is
    /// the identity and no other input touches output `dim` (`dim` may still
    /// touch other outputs).
    pub fn is_identity_on_out_dim(&self, dim: DimName) -> bool {
        if !self.has_in_dim(dim) || !self.has_out_dim(dim) {
            return false;
        }
        let others: Vec<DimName> = self.in_dim_names().filter(|&d| d != dim).collect();
        self.square_sublayout_is_identity(&[dim]) && self.sublayout_is_zero(&others, &[dim])
    }

    // ----- equality -----------------------------------------------------

    /// Equal dims (names and order, both sides) and bases, out sizes aside.
    pub fn equal_ignoring_out_dim_sizes(&self, other: &LinearLayout) -> bool {
        self.ins.len() == other.ins.len()
            && self.outs.len() == other.outs.len()
            && self
                .ins
                .iter()
                .zip(&other.ins)
                .all(|(a, b)| a.name == b.name && a.log2 == b.log2)
            && self
                .outs
                .iter()
                .zip(&other.outs)
                .all(|(a, b)| a.name == b.name)
            && self
                .ins
                .iter()
                .all(|d| self.bases(d.name) == other.bases(d.name))
    }
}

/// `2^n - 1`, valid for `n` up to 64.
#[inline]
pub(crate) fn low_mask(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Checks per-component ranges and packs unpacked bases.
fn pack_bases(
    bases: &[(DimName, Vec<Vec<u64>>)],
    outs: &[(DimName, u32)],
) -> Result<Vec<(DimName, Vec<u64>)>> {
    let mut shifts = Vec::with_capacity(outs.len());
    let mut s = 0u32;
    for o in outs {
        shifts.push(s);
        s += o.1;
    }
    if s > 64 {
        return Err(LayoutError::TooManyBits {
            which: "output",
            bits: s,
        });
    }
    bases
        .iter()
        .map(|(name, bs)| {
            let packed = bs
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    if b.len() != outs.len() {
                        return Err(LayoutError::BasisLength {
                            in_dim: *name,
                            index: i,
                            expected: outs.len(),
                            found: b.len(),
                        });
                    }
                    let mut c = 0u64;
                    for (k, &v) in b.iter().enumerate() {
                        let (out_dim, log2) = outs[k];
                        if log2 < 64 && v >> log2 != 0 {
                            return Err(LayoutError::ComponentOutOfRange {
                                in_dim: *name,
                                index: i,
                                out_dim,
                                value: v,
                                size: 1u64 << log2,
                            });
                        }
                        if v != 0 {
                            // v < 2^log2 and shift + log2 <= 64: no overflow.
                            c |= v << shifts[k];
                        }
                    }
                    Ok(c)
                })
                .collect::<Result<Vec<u64>>>()?;
            Ok((*name, packed))
        })
        .collect()
}
