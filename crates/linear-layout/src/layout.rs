//! The [`LinearLayout`] type: construction, invariants, queries, evaluation
//! and printing. Algebra and shape operations live in sibling modules.

use crate::coords::{Coords, Spill, COORDS_INLINE};
use crate::error::{check_pow2, check_pow2_with, LayoutError, Result};
use crate::gf2::{self, EchelonBasis};
use crate::DimName;
use smallvec::SmallVec;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

/// A layout's packed columns, inline up to the usual size.
pub(crate) type Bases = SmallVec<[u64; 16]>;

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
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct LinearLayout {
    pub(crate) ins: SmallVec<[InDim; 4]>,
    pub(crate) outs: SmallVec<[OutDim; 4]>,
    pub(crate) bases: Bases,
    /// Byte tables for [`LinearLayout::apply`], built on its first call.
    pub(crate) eval: EvalCache,
}

/// Lazily built evaluation data of a layout (see [`Eval`]). A pure cache of
/// the layout's fields: ignored by equality and hashing, not copied by
/// `clone` (rebuilt on demand), and never stale since a layout's fields are
/// not mutated after construction.
#[derive(Default)]
pub(crate) struct EvalCache(OnceLock<Box<Eval>>);

/// Table sizes of [`LinearLayout::apply`]'s inlined fast path: in dim 0 up
/// to `2^10` values, in dims 1 to 3 up to `2^8` (typical: register, lane,
/// warp, block).
const FAST_DIM0: usize = 1 << 10;
const FAST_DIMS123: usize = 1 << 8;

/// Evaluation data of a layout for [`LinearLayout::apply`].
///
/// * Outputs are held in one `u64` in the *output format*: when the layout
///   is `lanes` (at most 4 out dims, each of at most `2^16` values), out dim
///   `k` in bits `16k..16k + 16` (*lanes*); otherwise the ordinary packed
///   output (first out dim in the low bits). XOR acts on each lane
///   separately (no carries), so the lane form of `F(x)` is the XOR of the
///   lane forms of the columns selected by `x`, and reading out dim `k` is
///   a constant shift and mask.
/// * Fast path (`lanes` layouts with exactly 4 in dims, in dim 0 of at most
///   `2^10` values and dims 1 to 3 of at most `2^8`): `dim0[v]` (resp.
///   `dims123[k - 1][v]`) is the image of in dim `k` at value `v mod
///   size_k` (XOR of the dim's columns at the set bits of `v` below the
///   dim's size; the table repeats with period `size_k`), so the output of
///   named inputs `v_0..v_3` in the layout's order is `XOR_k table_k[v_k mod
///   table size]`: bits at or above a dim's size are ignored without
///   a per-dim mask.
///   `in_names` are the 4 in dims' names when the layout qualifies, else
///   [`DimName::UNUSED`] (which no input has, so nothing takes the path).
/// * General path: `bytes[j][x]` = XOR of the columns of flat input bits
///   `8j + k` for the set bits `k` of the byte `x` (flat index: in dims
///   concatenated, first in the low bits), so `F(f) = XOR_j
///   bytes[j][(f >> 8j) & 0xff]`.
pub(crate) struct Eval {
    in_names: [DimName; 4],
    out_names: [DimName; 4],
    n_out: usize,
    lanes: bool,
    dim0: [u64; FAST_DIM0],
    dims123: [[u64; FAST_DIMS123]; 3],
    bytes: Vec<[u64; 256]>,
}

impl Eval {
    fn new(l: &LinearLayout) -> Self {
        let lanes = l.outs.len() <= 4 && l.outs.iter().all(|o| o.log2 <= 16);
        // A column in the output format.
        let lane = |c: u64| -> u64 {
            if !lanes {
                return c;
            }
            l.outs.iter().enumerate().fold(0u64, |acc, (k, o)| {
                let v = c.wrapping_shr(o.shift) & low_mask(o.log2);
                acc | v << (16 * k)
            })
        };
        // Doubling: T[2^k + x] = T[x] ^ column k.
        let fill = |t: &mut [u64], cols: &[u64]| {
            for (k, &c) in cols.iter().enumerate() {
                let (c, half) = (lane(c), 1usize << k);
                for x in 0..half {
                    t[half + x] = t[x] ^ c;
                }
            }
        };
        let mut bytes = vec![[0u64; 256]; l.bases.len().div_ceil(8)];
        for (t, cols) in bytes.iter_mut().zip(l.bases.chunks(8)) {
            fill(t, cols);
        }
        let mut e = Eval {
            in_names: [DimName::UNUSED; 4],
            out_names: [DimName::REGISTER; 4],
            n_out: l.outs.len().min(4),
            lanes,
            dim0: [0; FAST_DIM0],
            dims123: [[0; FAST_DIMS123]; 3],
            bytes,
        };
        for (k, o) in l.outs.iter().take(4).enumerate() {
            e.out_names[k] = o.name;
        }
        let fits =
            |k: usize, d: &InDim| 1usize << d.log2 <= if k == 0 { FAST_DIM0 } else { FAST_DIMS123 };
        if lanes && l.ins.len() == 4 && l.ins.iter().enumerate().all(|(k, d)| fits(k, d)) {
            for (k, d) in l.ins.iter().enumerate() {
                let cols = &l.bases[d.start as usize..(d.start + d.log2) as usize];
                let t: &mut [u64] = match k {
                    0 => &mut e.dim0,
                    _ => &mut e.dims123[k - 1],
                };
                fill(t, cols);
                // Repeat the first `2^log2` entries over the whole table.
                let size = 1usize << d.log2;
                for x in size..t.len() {
                    t[x] = t[x & (size - 1)];
                }
                e.in_names[k] = d.name;
            }
        }
        e
    }

    /// The output (output format) of a flat index, through the byte tables.
    fn flat(&self, flat: u64) -> u64 {
        let mut acc = 0;
        let mut f = flat;
        for t in &self.bytes {
            acc ^= t[(f & 0xff) as usize];
            f >>= 8;
        }
        acc
    }

    /// The fast path: the output (output format) of 4 inputs named exactly
    /// as the layout's in dims, in the same order; `None` otherwise (or when
    /// the layout does not qualify).
    #[inline]
    fn in_order(&self, ins: &[(DimName, u64)]) -> Option<u64> {
        let [a, b, c, d]: &[(DimName, u64); 4] = ins.try_into().ok()?;
        let n = &self.in_names;
        if (a.0 != n[0]) | (b.0 != n[1]) | (c.0 != n[2]) | (d.0 != n[3]) {
            return None;
        }
        // The tables repeat with each dim's size: reducing modulo the
        // table size drops exactly the bits to ignore.
        let [t1, t2, t3] = &self.dims123;
        Some(
            self.dim0[a.1 as usize & (FAST_DIM0 - 1)]
                ^ t1[b.1 as usize & (FAST_DIMS123 - 1)]
                ^ t2[c.1 as usize & (FAST_DIMS123 - 1)]
                ^ t3[d.1 as usize & (FAST_DIMS123 - 1)],
        )
    }

    /// The `len` named outputs of an output in the lane format (`lanes`
    /// layouts), or `spill` when it is `Some` (the others: see
    /// [`LinearLayout::apply`]).
    #[inline]
    fn coords(&self, out: u64, len: usize, spill: Spill) -> Coords {
        let values = [
            out & 0xffff,
            out >> 16 & 0xffff,
            out >> 32 & 0xffff,
            out >> 48,
        ];
        let buf = std::array::from_fn(|k| (self.out_names[k], values[k]));
        Coords::from_parts(buf, len, spill)
    }
}

impl Clone for EvalCache {
    fn clone(&self) -> Self {
        EvalCache::default()
    }
}

impl PartialEq for EvalCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for EvalCache {}

impl Hash for EvalCache {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

impl Default for LinearLayout {
    fn default() -> Self {
        Self::empty()
    }
}

fn check_unique(which: &'static str, names: impl Iterator<Item = DimName>) -> Result<()> {
    let mut seen: SmallVec<[DimName; 8]> = SmallVec::new();
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
        let outs: SmallVec<[OutDim; 4]> = outs
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
            bases.extend(b);
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

    // ----- evaluation ---------------------------------------------------

    /// Applies the layout to named inputs, which must name exactly the input
    /// dims (any order). Bits at or above a dim's size are ignored. Returns
    /// `(out dim, value)` in out-dim order.
    ///
    /// Evaluation uses tables built on the first call and cached in the
    /// layout (see `Eval`: 14 KiB plus 2 KiB per 8 input bits). A layout
    /// with exactly 4 in dims (the first of at most `2^10` values, the
    /// others of at most `2^8`) and at most 4 out dims of at most `2^16`
    /// values each, called with its 4 inputs in its own order, takes an
    /// inlined path: one table load per in dim, the outputs read from 16-bit
    /// lanes, the result built once in the caller's frame (no copy of the
    /// `Coords` through the `Result`). Everything else, errors included,
    /// goes through the general path (flat index, one table load per 8
    /// input bits; outputs that do not fit the lanes are built on the
    /// heap), which computes the same map.
    #[inline]
    pub fn apply(&self, ins: &[(DimName, u64)]) -> Result<Coords> {
        let e = self.eval();
        // Only scalars merge here (no `Coords` is copied): the result is
        // built once, below.
        let (out, len, spill) = match e.in_order(ins) {
            Some(out) => (out, e.n_out, None),
            None => self.output_general(ins)?,
        };
        Ok(e.coords(out, len, spill))
    }

    /// The output of any named inputs (any order, any number of dims):
    /// in [`Eval`]'s output format, the number of out dims, and for layouts
    /// that are not `lanes` also all `(out dim, value)` pairs on the heap.
    /// Errors when the inputs are not exactly the in dims.
    ///
    /// The heap pairs are deliberate: returning scalars keeps `apply`'s
    /// fast path building its `Coords` once. Returning a finished `Coords`
    /// from here instead (inline for those layouts too) measured the fast
    /// path at 12.6 ns instead of 6.3 ns (`floor apply`), for a saving only
    /// on layouts with an out dim above 2^16 values.
    #[inline(never)]
    fn output_general(&self, ins: &[(DimName, u64)]) -> Result<(u64, usize, Spill)> {
        let flat = self.flat_index(ins)?;
        let e = self.eval();
        let out = e.flat(flat);
        let spill = (!e.lanes).then(|| {
            Box::new(
                self.outs
                    .iter()
                    .map(|o| out_value(o, out))
                    .collect::<Vec<_>>(),
            )
        });
        Ok((out, self.outs.len(), spill))
    }

    /// The flat input index of named inputs (exactly the in dims, any
    /// order): dim `d`'s value, masked to its size, at bits `d.start..`.
    #[inline]
    fn flat_index(&self, ins: &[(DimName, u64)]) -> Result<u64> {
        // Fast path: the inputs named in the layout's own order.
        if ins.len() == self.ins.len() && ins.iter().zip(&self.ins).all(|(x, d)| x.0 == d.name) {
            let mut flat = 0u64;
            for (&(_, v), d) in ins.iter().zip(&self.ins) {
                flat |= in_bits(d, v);
            }
            return Ok(flat);
        }
        self.flat_index_any_order(ins)
    }

    #[cold]
    fn flat_index_any_order(&self, ins: &[(DimName, u64)]) -> Result<u64> {
        if ins.len() != self.ins.len() {
            return Err(LayoutError::DimMismatch {
                what: "apply needs exactly the input dims",
                expected: self.in_dim_names().collect(),
                found: ins.iter().map(|x| x.0).collect(),
            });
        }
        let mut flat = 0u64;
        let mut seen = 0u64;
        for &(name, v) in ins {
            let Some(i) = self.ins.iter().position(|x| x.name == name) else {
                return Err(LayoutError::MissingDim {
                    which: "input",
                    name,
                });
            };
            if seen >> i & 1 == 1 {
                return Err(LayoutError::DuplicateDim {
                    which: "input",
                    name,
                });
            }
            seen |= 1 << i;
            flat |= in_bits(&self.ins[i], v);
        }
        Ok(flat)
    }

    /// The cached evaluation data (see [`Eval`]), built on the first call.
    #[inline]
    fn eval(&self) -> &Eval {
        self.eval.0.get_or_init(|| Box::new(Eval::new(self)))
    }

    /// XOR of the columns of dim `d` selected by the low bits of `v`
    /// (branch-free: one masked XOR per bit of the dim).
    #[inline]
    fn apply_dim(&self, d: &InDim, v: u64) -> u64 {
        let cols = &self.bases[d.start as usize..(d.start + d.log2) as usize];
        let mut acc = 0;
        for (k, &c) in cols.iter().enumerate() {
            acc ^= c & 0u64.wrapping_sub((v >> k) & 1);
        }
        acc
    }

    /// Applies the layout to one value per input dim (input-dim order),
    /// returning the packed output (first out dim in the low bits).
    #[inline]
    pub fn apply_values(&self, values: &[u64]) -> u64 {
        self.ins
            .iter()
            .zip(values)
            .fold(0, |acc, (d, &v)| acc ^ self.apply_dim(d, v))
    }

    /// Applies the layout to a flat input index (input dims concatenated,
    /// the first dim in the low bits), returning the packed output.
    #[inline]
    pub fn apply_flat(&self, index: u64) -> u64 {
        let mut acc = 0;
        for (k, &c) in self.bases.iter().enumerate() {
            acc ^= c & 0u64.wrapping_sub((index >> k) & 1);
        }
        acc
    }

    /// The whole function table: entry `i` is `apply_flat(i)` (flat input
    /// index, first in dim in the low bits; packed output, first out dim in
    /// the low bits). The low 12 bits' table is built by doubling
    /// (`T[2^k + j] = T[j] ^ column k`); each further block of 4096 entries is
    /// that table XOR the image of the block's high bits, written in one
    /// sequential pass. Errors above 32 input bits or when the memory cannot
    /// be reserved.
    pub fn table(&self) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        self.table_into(&mut out)?;
        Ok(out)
    }

    /// [`Self::table`] into `out` (cleared first), reusing its memory: for
    /// repeated tables this avoids the page faults of a fresh allocation.
    pub fn table_into(&self, out: &mut Vec<u64>) -> Result<()> {
        out.clear();
        let n = self.bases.len() as u32;
        if n > 32 {
            return Err(LayoutError::Invalid(format!(
                "table: the layout has {n} input bits, a table of 2^{n} entries; the limit is 32 bits"
            )));
        }
        out.try_reserve_exact(1usize << n)
            .map_err(|_| LayoutError::Invalid(format!("table: cannot allocate 2^{n} entries")))?;
        // The table of the low (up to 12) bits, by doubling; it stays in L1.
        let lo = n.min(12);
        let double = |t: &mut Vec<u64>| {
            t.push(0);
            for &c in &self.bases[..lo as usize] {
                let half = t.len();
                t.extend_from_within(..half);
                for v in &mut t[half..] {
                    *v ^= c;
                }
            }
        };
        if lo == n {
            double(out);
            return Ok(());
        }
        let mut low = Vec::with_capacity(1 << lo);
        double(&mut low);
        // Then one sequential pass: block `h` is the low table XOR the image
        // of the high bits `h`.
        let high = &self.bases[lo as usize..];
        for h in 0..1u64 << (n - lo) {
            let hv = high.iter().enumerate().fold(0, |acc, (k, &c)| {
                acc ^ (c & 0u64.wrapping_sub((h >> k) & 1))
            });
            out.extend(low.iter().map(|&l| l ^ hv));
        }
        Ok(())
    }

    /// A precomputed evaluator for many `apply` calls on this layout (byte
    /// tables per input dim, see [`Evaluator`]).
    pub fn evaluator(&self) -> Evaluator {
        Evaluator::new(self)
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

/// Input dim `d`'s value `v` masked to the dim's size and moved to its
/// position `d.start..d.start + d.log2` in the flat index. (`d.start` may be
/// 64 only for a size-1 dim, whose masked value is 0.)
#[inline]
fn in_bits(d: &InDim, v: u64) -> u64 {
    (v & low_mask(d.log2)).wrapping_shl(d.start)
}

/// `(out dim, value)` pairs of a packed output: inline (no allocation) for
/// at most [`COORDS_INLINE`] out dims.
#[inline]
fn unpack_named(outs: &[OutDim], packed: u64) -> Coords {
    if outs.len() > COORDS_INLINE {
        return outs.iter().map(|o| out_value(o, packed)).collect();
    }
    let mut buf = [(DimName::REGISTER, 0u64); COORDS_INLINE];
    for (b, o) in buf.iter_mut().zip(outs) {
        *b = out_value(o, packed);
    }
    Coords::from_inline(buf, outs.len())
}

/// Out dim `o`'s value in a packed output. (`o.shift` may be 64 only for a
/// size-1 dim, whose mask is 0.)
#[inline]
fn out_value(o: &OutDim, packed: u64) -> (DimName, u64) {
    (o.name, packed.wrapping_shr(o.shift) & low_mask(o.log2))
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

impl fmt::Display for LinearLayout {
    /// Triton's `toString`, byte for byte: a leading newline, then one line
    /// per basis (` - in=1 -> (c0, c1)`, continuation lines `   in=2 -> ...`,
    /// components in out-dim order), ` - in is a size 1 dimension` for a dim
    /// without bases, and `where out dims are: [dim0 (size 4), ...]`. With no
    /// in dims at all it is `\n(empty layout)` or
    /// `\n(empty layout with out-dims [...])`. The alternate form `{:#}`
    /// omits the leading newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            writeln!(f)?;
        }
        let outs: Vec<String> = self
            .outs
            .iter()
            .map(|o| format!("{} (size {})", o.name, 1u64 << o.log2))
            .collect();
        let outs = format!("[{}]", outs.join(", "));
        if self.ins.is_empty() {
            return if self.outs.is_empty() {
                write!(f, "(empty layout)")
            } else {
                write!(f, "(empty layout with out-dims {outs})")
            };
        }
        for d in &self.ins {
            if d.log2 == 0 {
                writeln!(f, " - {} is a size 1 dimension", d.name)?;
                continue;
            }
            for i in 0..d.log2 {
                let comps: Vec<String> = self
                    .unpack(self.bases[(d.start + i) as usize])
                    .iter()
                    .map(|c| c.to_string())
                    .collect();
                let lead = if i == 0 { " - " } else { "   " };
                writeln!(
                    f,
                    "{lead}{}={} -> ({})",
                    d.name,
                    1u64 << i,
                    comps.join(", ")
                )?;
            }
        }
        write!(f, "where out dims are: {outs}")
    }
}

impl fmt::Debug for LinearLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LinearLayout(")?;
        fmt::Display::fmt(self, f)?;
        write!(f, ")")
    }
}

/// One input dim of an [`Evaluator`].
#[derive(Clone, Copy, Debug)]
struct EvDim {
    name: DimName,
    log2: u32,
    off: usize,
    mask: u64,
}

/// A layout compiled for fast evaluation: for every input dim, one lookup
/// table per 8-bit chunk of the dim (`T[x] = XOR of the columns of the set
/// bits of x`), so evaluating a dim of ≤ 8 bits is one load. Built by
/// [`LinearLayout::evaluator`]; its answers equal the layout's `apply`.
///
/// ```
/// use linear_layout::{DimName, LinearLayout};
/// let l = LinearLayout::identity_1d(32, DimName::LANE, DimName::dim(0))
///     * LinearLayout::identity_1d(4, DimName::WARP, DimName::dim(1));
/// let e = l.evaluator();
/// let x = [(DimName::WARP, 3), (DimName::LANE, 17)];
/// assert_eq!(e.apply(&x).unwrap(), l.apply(&x).unwrap());
/// assert_eq!(e.apply_values(&[17, 3]), l.apply_values(&[17, 3]));
/// ```
#[derive(Clone, Debug)]
pub struct Evaluator {
    /// Per in dim: name, log2 size, offset of its first table, and the
    /// mask of the dim's bits.
    dims: Vec<EvDim>,
    /// All tables back to back; dim `d`'s chunk `j` (bits `8j..8j+8`) starts
    /// at `offset + 256 j` (the last chunk may be shorter).
    tables: Vec<u64>,
    outs: Vec<OutDim>,
}

impl Evaluator {
    fn new(l: &LinearLayout) -> Self {
        let mut dims = Vec::with_capacity(l.ins.len());
        let mut tables = Vec::new();
        for d in &l.ins {
            dims.push(EvDim {
                name: d.name,
                log2: d.log2,
                off: tables.len(),
                mask: low_mask(d.log2),
            });
            let cols = &l.bases[d.start as usize..(d.start + d.log2) as usize];
            if cols.is_empty() {
                // A size-1 dim: a one-entry table (its value is always 0).
                tables.push(0);
            }
            for chunk in cols.chunks(8) {
                let start = tables.len();
                tables.push(0);
                for &c in chunk {
                    let half = tables.len() - start;
                    tables.extend_from_within(start..start + half);
                    for v in &mut tables[start + half..] {
                        *v ^= c;
                    }
                }
            }
        }
        Evaluator {
            dims,
            tables,
            outs: l.outs.to_vec(),
        }
    }

    #[inline]
    fn dim(&self, d: &EvDim, v: u64) -> u64 {
        if d.log2 <= 8 {
            return self.tables[d.off + (v & d.mask) as usize];
        }
        let mut acc = 0;
        let mut base = d.off;
        let mut left = d.log2;
        let mut v = v & d.mask;
        while left > 0 {
            let w = left.min(8);
            acc ^= self.tables[base + (v & low_mask(w)) as usize];
            base += 1 << w;
            v >>= 8;
            left -= w;
        }
        acc
    }

    /// Same as [`LinearLayout::apply_values`]: one value per in dim (in-dim
    /// order; missing trailing values count as 0), packed output.
    #[inline]
    pub fn apply_values(&self, values: &[u64]) -> u64 {
        self.dims
            .iter()
            .zip(values)
            .fold(0, |acc, (d, &v)| acc ^ self.dim(d, v))
    }

    /// Same as [`LinearLayout::apply`]: named inputs (exactly the in dims,
    /// any order) to `(out dim, value)` in out-dim order.
    pub fn apply(&self, ins: &[(DimName, u64)]) -> Result<Coords> {
        if ins.len() != self.dims.len() {
            return Err(LayoutError::DimMismatch {
                what: "apply needs exactly the input dims",
                expected: self.dims.iter().map(|d| d.name).collect(),
                found: ins.iter().map(|x| x.0).collect(),
            });
        }
        let mut packed = 0u64;
        // Fast path: the inputs named in the layout's own order.
        if ins.iter().zip(&self.dims).all(|(x, d)| x.0 == d.name) {
            for (&(_, v), d) in ins.iter().zip(&self.dims) {
                packed ^= self.dim(d, v);
            }
            return Ok(self.unpack_named(packed));
        }
        let mut seen = 0u64;
        for &(name, v) in ins {
            let Some(i) = self.dims.iter().position(|d| d.name == name) else {
                return Err(LayoutError::MissingDim {
                    which: "input",
                    name,
                });
            };
            if seen >> i & 1 == 1 {
                return Err(LayoutError::DuplicateDim {
                    which: "input",
                    name,
                });
            }
            seen |= 1 << i;
            packed ^= self.dim(&self.dims[i], v);
        }
        Ok(self.unpack_named(packed))
    }

    #[inline]
    fn unpack_named(&self, packed: u64) -> Coords {
        unpack_named(&self.outs, packed)
    }
}
