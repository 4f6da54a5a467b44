//! CuTe → linear layout.
//!
//! A CuTe layout is linear over GF(2) exactly when every coordinate bit's
//! offset (`stride · 2^i` for bit `i` of a power-of-two mode) shares no bit
//! with any other coordinate bit's offset: then adding offsets never
//! carries, `+` is `^`, and `L(x) = ⊕ L(bit)`. Power-of-two strides in
//! non-overlapping ranges are the common case; a shape-2 mode may have any
//! non-negative stride whose bits are free. Anything else is rejected with
//! the mode and stride that carry.

use super::error::{CuteError, Result};
use super::layout::{CuteLayout, IntTuple, Layout};
use linear_layout::{DimName, LinearLayout};

/// Most coordinate bits (and offset bits) a layout may have.
pub const MAX_BITS: u32 = 40;

/// The name of the flat (column-major) coordinate index of a 1-D view.
pub fn index_dim() -> DimName {
    DimName::new("index")
}

/// The offset of each coordinate bit, grouped by top-level mode (mode 0
/// first, low bit first within a mode; sub-modes column-major), after
/// checking linearity. A swizzle is not applied here.
///
/// Errors: a non-power-of-two extent ([`CuteError::ShapeNotPowerOfTwo`]),
/// a negative stride, two bits whose offsets overlap ([`CuteError::Carry`]),
/// more than [`MAX_BITS`] bits.
pub fn mode_columns(layout: &Layout) -> Result<Vec<Vec<u64>>> {
    let paths = layout.shape.leaf_paths();
    let top_of = |p: &str| -> usize {
        match &layout.shape {
            IntTuple::Int(_) => 0,
            IntTuple::Tuple(_) => p
                .split('.')
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0),
        }
    };
    let n_top = layout.shape.modes().len();
    let mut out: Vec<Vec<u64>> = vec![vec![]; n_top];
    // (offset, mode path) of every non-zero column so far.
    let mut seen: Vec<(u64, usize)> = vec![];
    let mut used = 0u64;
    let flat = layout.flat_modes();
    let mut total_bits = 0u32;
    for (leaf, (&(s, d), path)) in flat.iter().zip(&paths).enumerate() {
        if s < 1 || !(s as u64).is_power_of_two() {
            return Err(CuteError::ShapeNotPowerOfTwo {
                mode: path.clone(),
                shape: s,
                padded: (s.max(1) as u64).next_power_of_two(),
            });
        }
        if s == 1 {
            continue;
        }
        if d < 0 {
            return Err(CuteError::NegativeStride {
                mode: path.clone(),
                stride: d,
            });
        }
        let k = s.trailing_zeros();
        total_bits += k;
        if total_bits > MAX_BITS {
            return Err(CuteError::TooLarge {
                what: "number of coordinate bits",
                value: total_bits as u64,
                limit: MAX_BITS as u64,
            });
        }
        let d = d as u64;
        for i in 0..k {
            let col = if d == 0 { 0 } else { d << i };
            if d != 0 && (col >> i != d || 64 - col.leading_zeros() > MAX_BITS) {
                return Err(CuteError::TooLarge {
                    what: "offset",
                    value: d.saturating_mul(1u64 << i),
                    limit: (1u64 << MAX_BITS) - 1,
                });
            }
            if col & used != 0 {
                let &(other, other_leaf) = seen
                    .iter()
                    .find(|(o, _)| o & col != 0)
                    .expect("an earlier column owns the shared bit");
                return Err(CuteError::Carry {
                    mode: path.clone(),
                    shape: s,
                    stride: d as i64,
                    offset: col,
                    other_mode: paths[other_leaf].clone(),
                    other_offset: other,
                });
            }
            if col != 0 {
                used |= col;
                seen.push((col, leaf));
            }
            out[top_of(path)].push(col);
        }
    }
    Ok(out)
}

/// [`mode_columns`] with the swizzle applied (a swizzle is linear, so it
/// maps each column); errors on a non-zero offset (affine).
pub fn swizzled_columns(c: &CuteLayout) -> Result<Vec<Vec<u64>>> {
    if c.offset != 0 {
        return Err(CuteError::NonZeroOffset(c.offset));
    }
    let mut cols = mode_columns(&c.layout)?;
    if let Some(sw) = c.swizzle {
        for col in cols.iter_mut().flatten() {
            *col = sw.apply(*col);
        }
    }
    Ok(cols)
}

fn bits_of(cols: &[Vec<u64>]) -> u32 {
    let all = cols.iter().flatten().fold(0u64, |a, &c| a | c);
    64 - all.leading_zeros()
}

/// The layout as the linear map **coordinate → offset**: in dims `dim0,
/// dim1, ...` (top-level mode `k` is `dimk`, its coordinate's low bits are
/// its first sub-mode), out dim `offset` (`2^n` for the smallest `n`
/// covering every offset).
///
/// ```
/// use hw_layouts::cute::{parse, coordinate_to_offset};
/// use linear_layout::DimName;
/// let l = coordinate_to_offset(&parse("(4,8):(8,1)").unwrap()).unwrap();
/// let at = |i, j| l.apply(&[(DimName::dim(0), i), (DimName::dim(1), j)]).unwrap()[0].1;
/// assert_eq!(at(3, 5), 3 * 8 + 5);
/// ```
pub fn coordinate_to_offset(c: &CuteLayout) -> Result<LinearLayout> {
    let cols = swizzled_columns(c)?;
    let bits = bits_of(&cols);
    let bases = cols
        .iter()
        .enumerate()
        .map(|(k, cs)| (DimName::dim(k), cs.iter().map(|&x| vec![x]).collect()))
        .collect();
    Ok(LinearLayout::new(
        bases,
        vec![(DimName::OFFSET, 1u64 << bits)],
        false,
    )?)
}

/// The layout as a 1-D linear map **flat index → offset**: in dim `index`
/// (CuTe's column-major flat index, size = the layout's size), out dim
/// `offset`. Used by the algebra.
pub fn index_to_offset(c: &CuteLayout) -> Result<LinearLayout> {
    let cols: Vec<u64> = swizzled_columns(c)?.concat();
    columns_layout(&cols)
}

/// A 1-D layout `index → offset` from its columns (bit `i` of the index
/// maps to `cols[i]`), the offset just wide enough.
pub fn columns_layout(cols: &[u64]) -> Result<LinearLayout> {
    let bits = bits_of(&[cols.to_vec()]);
    Ok(LinearLayout::new(
        vec![(index_dim(), cols.iter().map(|&x| vec![x]).collect())],
        vec![(DimName::OFFSET, 1u64 << bits)],
        false,
    )?)
}

/// The layout read with the **shared-memory convention**: the inverse map
/// offset → tensor coordinate, in dims `offset` and out dims `dim0, ...`
/// (top-level mode `k` is `dimk`), as `#ttg.shared_linear` holds it.
///
/// Requires each coordinate at its own offset: a stride-0 (broadcast) bit
/// is an error naming it. Offset bits never reached (a layout with holes,
/// `cosize > size`, whose reached offsets are whole bits) are padding and
/// get zero bases, as Triton writes an allocation larger than the tensor.
///
/// ```
/// use hw_layouts::cute::{parse, to_shared_linear};
/// use linear_layout::DimName;
/// // Row-major 4x8: offset bits 0-2 walk dim1, bits 3-4 walk dim0.
/// let l = to_shared_linear(&parse("(4,8):(8,1)").unwrap()).unwrap();
/// assert_eq!(l.bases(DimName::OFFSET),
///            vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0]]);
/// ```
pub fn to_shared_linear(c: &CuteLayout) -> Result<LinearLayout> {
    let fwd = coordinate_to_offset(c)?;
    for (k, bs) in fwd.all_bases().iter().enumerate() {
        if let Some(i) = bs.1.iter().position(|b| b[0] == 0) {
            return Err(CuteError::Unsupported(format!(
                "bit {i} of mode {k} has offset 0 (stride 0, a broadcast): a shared layout holds each element at exactly one offset"
            )));
        }
    }
    let bits = fwd.total_out_dim_size_log2();
    let span = fwd
        .all_bases()
        .iter()
        .flat_map(|b| b.1.clone())
        .fold(0, |a, b| a | b[0]);
    if fwd.rank() != span.count_ones() {
        let hole = (!span).trailing_zeros();
        return Err(CuteError::Unsupported(format!(
            "the offsets reached are not whole offset bits (rank {} within bits {span:#b}; offset {} is never reached alone): a shared layout pads whole offset bits",
            fwd.rank(),
            1u64 << hole.min(63)
        )));
    }
    // Offset bits never reached are padding: zero bases, as Triton writes
    // an allocation larger than the tensor. The reached bits form a
    // bijection onto the coordinates; invert it on those bits.
    let used: Vec<u32> = (0..bits).filter(|&j| span >> j & 1 == 1).collect();
    let squeeze = |x: u64| -> u64 {
        used.iter()
            .enumerate()
            .fold(0, |a, (i, &j)| a | (x >> j & 1) << i)
    };
    let compact = LinearLayout::new(
        fwd.all_bases()
            .into_iter()
            .map(|(d, bs)| (d, bs.into_iter().map(|b| vec![squeeze(b[0])]).collect()))
            .collect(),
        vec![(DimName::OFFSET, 1u64 << used.len())],
        false,
    )?;
    let inv = compact.invert()?;
    let mut bases = inv.bases(DimName::OFFSET).into_iter();
    let rank = inv.num_out_dims();
    let offset: Vec<Vec<u64>> = (0..bits)
        .map(|j| {
            if span >> j & 1 == 1 {
                bases.next().expect("one basis per reached bit")
            } else {
                vec![0; rank]
            }
        })
        .collect();
    Ok(LinearLayout::new(
        vec![(DimName::OFFSET, offset)],
        inv.out_dims(),
        false,
    )?)
}

/// A thread-value layout `(thr, val) → tile index` as a distributed layout
/// `(register, lane, warp) → (dim0, dim1, ...)` of a tile of shape `tile`.
///
/// Conventions: the layout has two top-level modes, thread then value;
/// thread bits 0-4 are `lane`, the rest `warp`; value bits are `register`.
/// The tile index is CuTe's column-major index of the tile, so its low
/// `log2 tile[0]` bits are `dim0`, the next `dim1`, ...
///
/// ```
/// use hw_layouts::cute::{parse, tv_to_distributed};
/// use linear_layout::DimName;
/// // CUTLASS's SM80 16x8 accumulator: thread t, value v → m + 16 n.
/// let c = parse("((4,8),(2,2)):((32,1),(16,8))").unwrap();
/// let l = tv_to_distributed(&c, &[16, 8]).unwrap();
/// // Lane 5 = (t%4 = 1, t/4 = 1), value 3: m = 1 + 8, n = 2 + 1.
/// let o = l.apply(&[(DimName::REGISTER, 3), (DimName::LANE, 5), (DimName::WARP, 0)]).unwrap();
/// assert_eq!((o[0].1, o[1].1), (9, 3));
/// ```
pub fn tv_to_distributed(c: &CuteLayout, tile: &[u64]) -> Result<LinearLayout> {
    if c.swizzle.is_some() {
        return Err(CuteError::Unsupported(
            "a thread-value layout has no swizzle".into(),
        ));
    }
    crate::check_shape(tile).map_err(|e| CuteError::Unsupported(format!("tile shape: {e}")))?;
    let cols = swizzled_columns(c)?;
    if cols.len() != 2 {
        return Err(CuteError::Unsupported(format!(
            "a thread-value layout has two top-level modes (thread, value), found {} in {}",
            cols.len(),
            c.layout
        )));
    }
    let tile_bits: u32 = tile.iter().map(|t| t.trailing_zeros()).sum();
    if let Some(&bad) = cols.iter().flatten().find(|&&x| x >> tile_bits != 0) {
        return Err(CuteError::Unsupported(format!(
            "tile index {bad} is outside the {} tile (size {})",
            tile.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join("x"),
            1u64 << tile_bits
        )));
    }
    let split = |x: u64| -> Vec<u64> {
        let mut shift = 0;
        tile.iter()
            .map(|&t| {
                let v = (x >> shift) & (t - 1);
                shift += t.trailing_zeros();
                v
            })
            .collect()
    };
    let thr = &cols[0];
    let lanes = thr.len().min(5);
    let bases = vec![
        (
            DimName::REGISTER,
            cols[1].iter().map(|&x| split(x)).collect(),
        ),
        (
            DimName::LANE,
            thr[..lanes].iter().map(|&x| split(x)).collect(),
        ),
        (
            DimName::WARP,
            thr[lanes..].iter().map(|&x| split(x)).collect(),
        ),
    ];
    let outs = tile
        .iter()
        .enumerate()
        .map(|(k, &t)| (DimName::dim(k), t))
        .collect();
    Ok(LinearLayout::new(bases, outs, false)?)
}

/// A non-power-of-two layout padded as Triton pads a tensor: every extent
/// rounded up to a power of two, strides recomputed for the padded buffer,
/// and the original extents kept as the mask.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Padded {
    /// The layout over the padded extents.
    pub layout: Layout,
    /// The original extents, flattened: coordinate `c` of flat mode `i` is
    /// real iff `c < extents[i]`.
    pub extents: Vec<i64>,
}

impl Padded {
    /// Whether flat index `index` of the padded layout is a real element.
    pub fn is_valid(&self, index: i64) -> bool {
        let modes = self.layout.flat_modes();
        let mut rest = index;
        for (&(s, _), &e) in modes.iter().zip(&self.extents) {
            if rest % s >= e {
                return false;
            }
            rest /= s;
        }
        rest == 0
    }
}

/// Pads every extent of a compact layout (its non-broadcast modes, sorted by
/// stride, tile the offsets without gaps: column-major, row-major or any
/// order of them) to the next power of two and recomputes the strides in
/// the same order over the padded extents; stride-0 modes stay 0.
///
/// ```
/// use hw_layouts::cute::{parse_layout, pad_to_power_of_two};
/// let p = pad_to_power_of_two(&parse_layout("(6,10):(10,1)").unwrap()).unwrap();
/// assert_eq!(p.layout.to_string(), "(8,16):(16,1)");
/// assert_eq!(p.extents, vec![6, 10]);
/// assert!(p.is_valid(5 + 8 * 9) && !p.is_valid(6));
/// ```
pub fn pad_to_power_of_two(layout: &Layout) -> Result<Padded> {
    let modes = layout.flat_modes();
    let mut order: Vec<usize> = (0..modes.len()).filter(|&i| modes[i].1 != 0).collect();
    order.sort_by_key(|&i| modes[i].1);
    let mut expect = 1i64;
    let mut padded_stride = 1i64;
    let mut new_stride = vec![0i64; modes.len()];
    let paths = layout.shape.leaf_paths();
    for &i in &order {
        let (s, d) = modes[i];
        if s < 1 || d != expect {
            return Err(CuteError::Unsupported(format!(
                "pad_to_power_of_two needs a compact layout: mode {} has stride {d}, expected {expect}",
                paths[i]
            )));
        }
        new_stride[i] = padded_stride;
        expect = expect.saturating_mul(s);
        padded_stride = padded_stride.saturating_mul((s as u64).next_power_of_two() as i64);
    }
    if padded_stride > 1 << MAX_BITS {
        return Err(CuteError::TooLarge {
            what: "padded size",
            value: padded_stride as u64,
            limit: 1 << MAX_BITS,
        });
    }
    let mut k = 0;
    let rebuild = |t: &IntTuple, f: &mut dyn FnMut() -> i64| -> IntTuple {
        fn go(t: &IntTuple, f: &mut dyn FnMut() -> i64) -> IntTuple {
            match t {
                IntTuple::Int(_) => IntTuple::Int(f()),
                IntTuple::Tuple(ts) => IntTuple::Tuple(ts.iter().map(|x| go(x, f)).collect()),
            }
        }
        go(t, f)
    };
    let shape = rebuild(&layout.shape, &mut || {
        let s = modes[k].0;
        k += 1;
        (s.max(1) as u64).next_power_of_two() as i64
    });
    let mut k = 0;
    let stride = rebuild(&layout.stride, &mut || {
        let d = new_stride[k];
        k += 1;
        d
    });
    Ok(Padded {
        layout: Layout::new(shape, stride)?,
        extents: modes.iter().map(|m| m.0).collect(),
    })
}
