//! Evaluating a layout: [`LinearLayout::apply`] and its relatives
//! (`apply_values`, `apply_flat`, `table`), the cached tables behind them,
//! and the standalone [`Evaluator`]. The map is the one stated in the crate
//! docs: the image of an input is the XOR of the bases (columns) of its set
//! bits; these functions only make computing it fast.

use crate::coords::{Coords, Spill, COORDS_INLINE};
use crate::error::{LayoutError, Result};
use crate::layout::{low_mask, InDim, OutDim};
use crate::{DimName, LinearLayout};
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

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

impl LinearLayout {
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
    /// path at 12.6 ns instead of 6.3 ns (`floor apply`; 2026-11-21, the
    /// 2-vCPU development VM, `cargo bench -p linear-layout --bench algebra
    /// -- apply`), for a saving only on layouts with an out dim above 2^16
    /// values.
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
        let mut flat = 0u64;
        for_each_named_input(
            ins,
            self.ins.len(),
            || self.in_dim_names().collect(),
            |name| self.ins.iter().position(|x| x.name == name),
            |i, v| flat |= in_bits(&self.ins[i], v),
        )?;
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
        // `masked_xor`'s loop written out: calling it here (even
        // `#[inline(always)]`) made `apply` 3× slower, 9.0 against 3.0 ns
        // (`apply (array literal)`; 2026-11-25, this 2-core machine, `cargo
        // bench -p linear-layout --bench algebra -- apply`).
        let cols = &self.bases[d.start as usize..(d.start + d.log2) as usize];
        let mut acc = 0;
        for (k, &c) in cols.iter().enumerate() {
            acc ^= c & 0u64.wrapping_sub((v >> k) & 1);
        }
        acc
    }

    /// The packed image (first out dim in the low bits) of input dim `d`
    /// at value `v`, every other input dim 0: the XOR of `d`'s columns
    /// selected by the low bits of `v` (bits at or above the dim's size
    /// ignored, as in [`LinearLayout::apply_values`]); 0 when `d` is not an
    /// input dim.
    ///
    /// ```
    /// use linear_layout::{DimName, LinearLayout};
    /// let l = LinearLayout::identity_1d(8, DimName::REGISTER, DimName::dim(0))
    ///     * LinearLayout::identity_1d(4, DimName::LANE, DimName::dim(0));
    /// assert_eq!(l.apply_in_dim(DimName::LANE, 3), 3 << 3);
    /// assert_eq!(l.apply_in_dim(DimName::REGISTER, 8 + 5), 5);
    /// assert_eq!(l.apply_in_dim(DimName::WARP, 1), 0);
    /// ```
    #[inline]
    pub fn apply_in_dim(&self, d: DimName, v: u64) -> u64 {
        self.in_dim(d).map_or(0, |x| self.apply_dim(x, v))
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
        masked_xor(&self.bases, index)
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
            let hv = masked_xor(high, h);
            out.extend(low.iter().map(|&l| l ^ hv));
        }
        Ok(())
    }

    /// A precomputed evaluator for many `apply` calls on this layout (byte
    /// tables per input dim, see [`Evaluator`]).
    pub fn evaluator(&self) -> Evaluator {
        Evaluator::new(self)
    }
}

/// Named inputs in any order, matched to a layout's in dims: calls
/// `visit(position, value)` for each input, where `position(name)` is the
/// index of its dim among the layout's `n_dims` in dims (at most 64).
/// Errors, in this order, when the count differs from `n_dims` (naming
/// `expected()`), when a name is not an in dim, or when one repeats; the one
/// home of that check for `apply`'s general path and [`Evaluator::apply`].
fn for_each_named_input(
    ins: &[(DimName, u64)],
    n_dims: usize,
    expected: impl FnOnce() -> Vec<DimName>,
    position: impl Fn(DimName) -> Option<usize>,
    mut visit: impl FnMut(usize, u64),
) -> Result<()> {
    if ins.len() != n_dims {
        return Err(LayoutError::DimMismatch {
            what: "apply needs exactly the input dims",
            expected: expected(),
            found: ins.iter().map(|x| x.0).collect(),
        });
    }
    let mut seen = 0u64;
    for &(name, v) in ins {
        let Some(i) = position(name) else {
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
        visit(i, v);
    }
    Ok(())
}

/// [`crate::gf2::xor_columns`] without branches, for the evaluation hot
/// path: the XOR of `cols[k]` over the bits `k` of `v`, each column masked
/// by its bit (bits of `v` at or above `cols.len()` pick nothing).
#[inline]
fn masked_xor(cols: &[u64], v: u64) -> u64 {
    let mut acc = 0;
    for (k, &c) in cols.iter().enumerate() {
        acc ^= c & 0u64.wrapping_sub((v >> k) & 1);
    }
    acc
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
        for_each_named_input(
            ins,
            self.dims.len(),
            || self.dims.iter().map(|d| d.name).collect(),
            |name| self.dims.iter().position(|d| d.name == name),
            |i, v| packed ^= self.dim(&self.dims[i], v),
        )?;
        Ok(self.unpack_named(packed))
    }

    #[inline]
    fn unpack_named(&self, packed: u64) -> Coords {
        unpack_named(&self.outs, packed)
    }
}
