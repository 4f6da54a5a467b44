//! CuTe's layout algebra on the linear subset, computed over GF(2).
//!
//! Every layout here is read as the 1-D linear map **flat index → offset**
//! (CuTe's column-major flat index; [`super::index_to_offset`]): column `i`
//! is the offset of index bit `i`. Each operation is computed on those
//! columns with linear-layout algebra, and the result printed back as CuTe
//! text grouped by the modes CuTe's result has (composition keeps `B`'s
//! top-level modes; logical divide and product have two, the tile and the
//! rest; complement and the inverses are coalesced 1-D layouts). Results
//! are equal to CuTe's as functions of the flat index; the grouping of bits
//! into sub-modes is the coalesced one.
//!
//! | CuTe | here, over GF(2) |
//! |---|---|
//! | `composition(A, B)(i) = A(B(i))` | `index_B → offset_B = index_A → offset_A`, with `A`'s last mode extended past its size as CuTe extends it |
//! | `complement(A, M)` | the offset bits below `max(cosize A, M)` that `A` does not reach, ascending |
//! | `logical_divide(A, B)` | `composition(A, (B, complement(B, size A)))` |
//! | `logical_product(A, B)` | `(A, composition(complement(A, size A · cosize B), B))` |
//! | `right_inverse(A)` | offset bit `j ↦` the index bit whose column is `2^j`, for `j = 0, 1, ...` while one exists |
//! | `left_inverse(A)` | the inverse of the bijection `(A, complement(A))` |
//!
//! `right_inverse` follows CUTLASS's C++ (`layout.hpp`), which skips
//! stride-0 modes; pycute's port stops at them and returns `1:0`. Left
//! inverse is defined for injective layouts; with stride-0 modes this gives
//! the quasi-inverse that picks broadcast coordinate 0.

use super::error::{CuteError, Result};
use super::from_linear::from_columns;
use super::layout::{IntTuple, Layout};
use super::to_linear::{columns_layout, index_dim, mode_columns, MAX_BITS};
use linear_layout::DimName;

/// A layout's flat-index columns (checked linear).
pub fn columns(a: &Layout) -> Result<Vec<u64>> {
    Ok(mode_columns(a)?.concat())
}

/// A layout from flat-index columns, grouped into top-level modes of
/// `splits[k]` bits each (the last mode takes the rest; one mode prints
/// bare).
fn layout_of(cols: &[u64], splits: &[usize]) -> Result<Layout> {
    let mut modes = vec![];
    let mut at = 0;
    for &n in splits {
        let n = n.min(cols.len() - at);
        modes.push(cols[at..at + n].to_vec());
        at += n;
    }
    if at < cols.len() || modes.is_empty() {
        modes.push(cols[at..].to_vec());
    }
    let names: Vec<String> = (0..modes.len()).map(|k| format!("mode {k}")).collect();
    let c = from_columns(&modes, &names, false)?;
    debug_assert!(c.swizzle.is_none());
    Ok(c.layout)
}

fn bits(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// `A`'s columns continued to `n` bits as CuTe continues its last mode past
/// the layout's size (the last column doubled; a layout of size 1 continues
/// with stride 0).
fn extend(a: &[u64], n: usize) -> Result<Vec<u64>> {
    let mut cols = a.to_vec();
    while cols.len() < n {
        let last = cols.last().copied().unwrap_or(0);
        let Some(next) = last.checked_mul(2).filter(|&x| bits(x) <= MAX_BITS) else {
            return Err(CuteError::TooLarge {
                what: "offset of the extended last mode",
                value: last.saturating_mul(2),
                limit: (1 << MAX_BITS) - 1,
            });
        };
        cols.push(next);
    }
    Ok(cols)
}

/// Columns of `A ∘ B`, computed as the linear-layout composition; then
/// checked linear: each result column's XOR equals CuTe's integer sum of
/// the `A` offsets it adds, and the result columns share no bit.
fn compose_columns(a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
    let nb = bits(b.iter().fold(0, |x, &c| x | c)) as usize;
    let a = extend(a, nb)?;
    // index_B → offset_B, the latter renamed to A's input `index`.
    let fb = columns_layout(b)?.rename_out_dim(DimName::OFFSET, index_dim())?;
    let fa = columns_layout(&a)?;
    let r: Vec<u64> = fb
        .compose(&fa)?
        .bases(index_dim())
        .into_iter()
        .map(|c| c[0])
        .collect();
    let mut used = 0u64;
    for (i, (&rc, &bc)) in r.iter().zip(b).enumerate() {
        let sum: u64 = (0..a.len())
            .filter(|&k| bc >> k & 1 == 1)
            .map(|k| a[k])
            .fold(0u64, u64::saturating_add);
        if sum != rc || rc & used != 0 {
            return Err(CuteError::Unsupported(format!(
                "the composition is not linear over GF(2): B's index bit {i} reaches A's index {bc}, where A's offsets add to {sum}, overlapping the other bits' offsets"
            )));
        }
        used |= rc;
    }
    Ok(r)
}

/// `composition(A, B)`: the layout `i ↦ A(B(i))`, with `B`'s top-level modes.
///
/// ```
/// use hw_layouts::cute::{algebra, parse_layout};
/// let a = parse_layout("(4,8):(8,1)").unwrap();
/// // B(i, j) = i + 8 j is A's coordinate (i, 2 j), so A(B(i, j)) = 8 i + 2 j.
/// let b = parse_layout("(4,2):(1,8)").unwrap();
/// assert_eq!(algebra::composition(&a, &b).unwrap().to_string(), "(4,2):(8,2)");
/// ```
pub fn composition(a: &Layout, b: &Layout) -> Result<Layout> {
    let bm = mode_columns(b)?;
    let r = compose_columns(&columns(a)?, &bm.concat())?;
    let splits: Vec<usize> = bm.iter().map(Vec::len).collect();
    layout_of(&r, &splits)
}

/// Columns of `complement(A, M)` for `M = 2^m_bits`.
fn complement_columns(a: &Layout, a_cols: &[u64], m_bits: u32) -> Result<Vec<u64>> {
    let paths = a.shape.leaf_paths();
    for (k, &c) in a_cols.iter().enumerate() {
        if c != 0 && !c.is_power_of_two() {
            let (mode, (s, d)) = leaf_of(a, k, &paths);
            return Err(CuteError::Unsupported(format!(
                "complement needs power-of-two strides: mode {mode} (shape {s}, stride {d}) does not fill whole offset bits"
            )));
        }
    }
    let image = a_cols.iter().fold(0u64, |x, &c| x | c);
    let top = bits(image).max(m_bits);
    Ok((0..top)
        .filter(|&j| image >> j & 1 == 0)
        .map(|j| 1u64 << j)
        .collect())
}

/// The flat mode (path, (shape, stride)) holding flat-index bit `k`.
fn leaf_of(a: &Layout, k: usize, paths: &[String]) -> (String, (i64, i64)) {
    let mut at = 0;
    for (i, &(s, d)) in a.flat_modes().iter().enumerate() {
        if s > 1 {
            at += s.trailing_zeros() as usize;
        }
        if k < at {
            return (paths[i].clone(), (s, d));
        }
    }
    ("?".into(), (0, 0))
}

/// `complement(A, M)`: the layout that, after `A`, enumerates the offsets
/// below `max(cosize A, M)` that `A` does not reach, in increasing order.
/// `M` must keep every extent a power of two (`M` itself a power of two,
/// or at most `A`'s reach).
///
/// ```
/// use hw_layouts::cute::{algebra, parse_layout};
/// let a = parse_layout("(2,2):(1,8)").unwrap();
/// assert_eq!(algebra::complement(&a, 32).unwrap().to_string(), "(4,2):(2,16)");
/// ```
pub fn complement(a: &Layout, cosize: u64) -> Result<Layout> {
    let ac = columns(a)?;
    let reach = 1u64 << bits(ac.iter().fold(0, |x, &c| x | c));
    let last = cosize.div_ceil(reach).max(1);
    if !last.is_power_of_two() {
        return Err(CuteError::ShapeNotPowerOfTwo {
            mode: "last (the complement's top mode)".into(),
            shape: last as i64,
            padded: last.next_power_of_two(),
        });
    }
    let m_bits = bits(reach) - 1 + last.trailing_zeros();
    if m_bits > MAX_BITS {
        return Err(CuteError::TooLarge {
            what: "complement cosize bits",
            value: m_bits as u64,
            limit: MAX_BITS as u64,
        });
    }
    layout_of(&complement_columns(a, &ac, m_bits)?, &[])
}

/// `logical_divide(A, B) = composition(A, (B, complement(B, size A)))`: two
/// modes, the tile `B` and the rest.
///
/// ```
/// use hw_layouts::cute::{algebra, parse_layout};
/// let a = parse_layout("16:1").unwrap();
/// let b = parse_layout("4:2").unwrap();
/// // Tile: every other element, 4 of them; rest: the odd start, then blocks of 8.
/// assert_eq!(algebra::logical_divide(&a, &b).unwrap().to_string(), "(4,(2,2)):(2,(1,8))");
/// ```
pub fn logical_divide(a: &Layout, b: &Layout) -> Result<Layout> {
    let bc = columns(b)?;
    let size_a = columns(a)?.len() as u32;
    let comp = complement_columns(b, &bc, size_a)?;
    let tiler: Vec<u64> = bc.iter().chain(&comp).copied().collect();
    let r = compose_columns(&columns(a)?, &tiler)?;
    layout_of(&r, &[bc.len()])
}

/// `logical_product(A, B) = (A, composition(complement(A, size A · cosize
/// B), B))`: two modes, `A` and `B`'s repetition of it.
///
/// ```
/// use hw_layouts::cute::{algebra, parse_layout};
/// let a = parse_layout("(2,2):(4,1)").unwrap();
/// let b = parse_layout("4:1").unwrap();
/// assert_eq!(algebra::logical_product(&a, &b).unwrap().to_string(), "((2,2),(2,2)):((4,1),(2,8))");
/// ```
pub fn logical_product(a: &Layout, b: &Layout) -> Result<Layout> {
    let ac = columns(a)?;
    let bc = columns(b)?;
    // cosize B rounded up to a power of two: CuTe's complement then has a
    // longer last mode, which composition with B never reaches further.
    let cos_b_bits = bits(bc.iter().fold(0, |x, &c| x | c));
    let m_bits = ac.len() as u32 + cos_b_bits;
    if m_bits > MAX_BITS {
        return Err(CuteError::TooLarge {
            what: "logical product cosize bits",
            value: m_bits as u64,
            limit: MAX_BITS as u64,
        });
    }
    let comp = complement_columns(a, &ac, m_bits)?;
    let rep = compose_columns(&comp, &bc)?;
    let (sa, sb) = (mode_tuple_of(&ac)?, mode_tuple_of(&rep)?);
    Ok(Layout {
        shape: IntTuple::Tuple(vec![sa.shape, sb.shape]),
        stride: IntTuple::Tuple(vec![sa.stride, sb.stride]),
    })
}

fn mode_tuple_of(cols: &[u64]) -> Result<Layout> {
    layout_of(cols, &[])
}

/// `right_inverse(A)`: the largest `R` with `A(R(j)) = j` for all `j <
/// size R`: offset bit `j` maps to the index bit whose column is `2^j`,
/// while one exists. Stride-0 modes are skipped (CUTLASS's C++).
///
/// ```
/// use hw_layouts::cute::{algebra, parse_layout};
/// let a = parse_layout("(4,8):(8,1)").unwrap();
/// assert_eq!(algebra::right_inverse(&a).unwrap().to_string(), "(8,4):(4,1)");
/// ```
pub fn right_inverse(a: &Layout) -> Result<Layout> {
    let ac = columns(a)?;
    let mut r = vec![];
    while let Some(k) = ac.iter().position(|&c| c == 1u64 << r.len()) {
        r.push(1u64 << k);
    }
    layout_of(&r, &[])
}

/// `left_inverse(A)`: `L` with `L(A(i)) = i` for every `i < size A`, for an
/// injective `A`: the inverse of the bijection `(A, complement(A))` onto
/// `0..cosize`.
///
/// ```
/// use hw_layouts::cute::{algebra, parse_layout};
/// let a = parse_layout("(2,4):(4,1)").unwrap();
/// assert_eq!(algebra::left_inverse(&a).unwrap().to_string(), "(4,2):(2,1)");
/// ```
pub fn left_inverse(a: &Layout) -> Result<Layout> {
    let ac = columns(a)?;
    let image = ac.iter().fold(0u64, |x, &c| x | c);
    let comp = complement_columns(a, &ac, bits(image))?;
    let full: Vec<u64> = ac.iter().chain(&comp).copied().collect();
    // Drop broadcast bits (a quasi-inverse picks their coordinate 0), then
    // invert the bijection index → offset over GF(2).
    let keep: Vec<usize> = (0..full.len()).filter(|&k| full[k] != 0).collect();
    let f = columns_layout(&keep.iter().map(|&k| full[k]).collect::<Vec<_>>())?;
    let inv = f.invert()?;
    let r: Vec<u64> = inv
        .bases(DimName::OFFSET)
        .into_iter()
        .map(|c| {
            // c[0] is a kept-index value; spread it back to A's index bits.
            (0..keep.len())
                .filter(|&i| c[0] >> i & 1 == 1)
                .fold(0u64, |x, i| x | 1u64 << keep[i])
        })
        .collect();
    layout_of(&r, &[])
}
