//! Linear layout → CuTe.
//!
//! A linear map coordinate → offset has a `Shape:Stride` form exactly when
//! its columns (the offsets of the coordinate bits) share no bit: then each
//! run of columns `c, 2c, 4c, ...` is one mode `(2^run):(c)` and zero columns
//! are stride-0 modes. When columns share bits, the map may still be
//! `Swizzle<B,M,S> o Shape:Stride`: the swizzle is linear and its own
//! inverse, so we look for one that makes the columns disjoint.

use super::error::{CuteError, Result};
use super::layout::{CuteLayout, IntTuple, Layout, Swizzle};
use linear_layout::{DimName, LinearLayout};

/// The modes of one top-level mode from its columns (low bit first).
fn group(cols: &[u64]) -> Vec<(i64, i64)> {
    let mut modes: Vec<(i64, i64)> = vec![];
    let mut prev: Option<u64> = None;
    for &c in cols {
        let extends = match prev {
            Some(p) => (p == 0 && c == 0) || (p != 0 && p.checked_mul(2) == Some(c)),
            None => false,
        };
        match (extends, modes.last_mut()) {
            (true, Some(last)) => last.0 *= 2,
            _ => modes.push((2, c as i64)),
        }
        prev = Some(c);
    }
    modes
}

fn mode_tuple(cols: &[u64]) -> (IntTuple, IntTuple) {
    let ms = group(cols);
    match ms.as_slice() {
        [] => (IntTuple::Int(1), IntTuple::Int(0)),
        [(s, d)] => (IntTuple::Int(*s), IntTuple::Int(*d)),
        _ => (
            IntTuple::Tuple(ms.iter().map(|m| IntTuple::Int(m.0)).collect()),
            IntTuple::Tuple(ms.iter().map(|m| IntTuple::Int(m.1)).collect()),
        ),
    }
}

/// The first two columns `(mode, bit)` that share an offset bit.
fn first_overlap(modes: &[Vec<u64>]) -> Option<((usize, usize), (usize, usize))> {
    let flat: Vec<((usize, usize), u64)> = modes
        .iter()
        .enumerate()
        .flat_map(|(k, cs)| cs.iter().enumerate().map(move |(i, &c)| ((k, i), c)))
        .filter(|x| x.1 != 0)
        .collect();
    for (a, x) in flat.iter().enumerate() {
        for y in &flat[..a] {
            if x.1 & y.1 != 0 {
                return Some((y.0, x.0));
            }
        }
    }
    None
}

/// A layout with the given columns (one list per top-level mode), plain if
/// they are disjoint, else with the swizzle that makes them so.
///
/// `names[k]` names mode `k` in errors; a single mode prints bare (`8:1`)
/// unless `tuple` is set. Swizzle preference, among those that work: one
/// whose bits all lie inside the offset range, then the most bits `B`, then
/// the smallest `M`, then the smallest `|S|` (positive first).
pub fn from_columns(modes: &[Vec<u64>], names: &[String], tuple: bool) -> Result<CuteLayout> {
    let swizzle = if disjoint(modes.iter().flatten().copied()) {
        None
    } else {
        Some(find_swizzle(modes).ok_or_else(|| {
            let ((ka, ia), (kb, ib)) = first_overlap(modes).expect("overlap");
            let (a, b) = (modes[ka][ia], modes[kb][ib]);
            CuteError::NotExpressible(format!(
                "basis {ia} of {} is offset {a} ({a:#b}) and basis {ib} of {} is offset {b} ({b:#b}): they share bits {:#b}, so they XOR rather than add, and no Swizzle<B,M,S> separates them",
                names[ka], names[kb], a & b
            ))
        })?)
    };
    let cols: Vec<Vec<u64>> = modes
        .iter()
        .map(|cs| {
            cs.iter()
                .map(|&c| swizzle.map_or(c, |s| s.apply(c)))
                .collect()
        })
        .collect();
    let (shape, stride) = if cols.len() == 1 && !tuple {
        mode_tuple(&cols[0])
    } else {
        let (s, d): (Vec<_>, Vec<_>) = cols.iter().map(|c| mode_tuple(c)).unzip();
        (IntTuple::Tuple(s), IntTuple::Tuple(d))
    };
    Ok(CuteLayout {
        swizzle,
        offset: 0,
        layout: Layout::new(shape, stride)?,
    })
}

/// Whether the non-zero columns share no bit.
fn disjoint(cols: impl Iterator<Item = u64>) -> bool {
    let mut used = 0u64;
    for c in cols {
        if c & used != 0 {
            return false;
        }
        used |= c;
    }
    true
}

fn find_swizzle(modes: &[Vec<u64>]) -> Option<Swizzle> {
    let all = modes.iter().flatten().fold(0u64, |a, &c| a | c);
    let n = (64 - all.leading_zeros()) as i64;
    // (outside the range, -B, M, |S|, S < 0): smaller is preferred.
    type Key = (bool, i64, i64, i64, bool);
    let mut best: Option<(Key, Swizzle)> = None;
    for b in 1..=n {
        for m in 0..n {
            for abs_s in b..n {
                for s in [abs_s, -abs_s] {
                    let Ok(sw) = Swizzle::new(b, m, s) else {
                        continue;
                    };
                    // A swizzle that moves no bit of these columns changes nothing.
                    if sw.yyy_mask() & all == 0
                        || !disjoint(modes.iter().flatten().map(|&c| sw.apply(c)))
                    {
                        continue;
                    }
                    let inside = (sw.yyy_mask() | sw.zzz_mask()) >> n == 0;
                    let key = (!inside, -b, m, abs_s, s < 0);
                    if best.as_ref().is_none_or(|(k, _)| key < *k) {
                        best = Some((key, sw));
                    }
                }
            }
        }
    }
    best.map(|x| x.1)
}

fn single_out_columns(l: &LinearLayout, d: DimName) -> Vec<u64> {
    l.bases(d).into_iter().map(|b| b[0]).collect()
}

/// A shared layout (offset → `dim0, dim1, ...`) as the CuTe layout
/// coordinate → offset, its inverse. Top-level mode `k` is `dimk`. Offset
/// bits with a zero basis (padding: the allocation is larger than the
/// tensor) are offsets CuTe never reaches; padding above the highest
/// reached offset has no CuTe form (CuTe has no allocation size) and is
/// dropped. The other offset bits must map one-to-one onto the coordinates.
///
/// ```
/// use hw_layouts::{cute, Encoding};
/// // Triton's 128-byte NVMMA swizzle of a 8x64 fp16 tile is CuTe's
/// // Swizzle<3,3,3> over the row-major (8,64):(64,1) (in elements).
/// let enc = Encoding::parse("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>").unwrap();
/// let l = enc.to_linear_layout(&[8, 64]).unwrap();
/// assert_eq!(cute::from_shared_linear(&l).unwrap().to_string(),
///            "Swizzle<3,3,3> o (8,64):(64,1)");
/// ```
pub fn from_shared_linear(l: &LinearLayout) -> Result<CuteLayout> {
    if l.has_in_dim(DimName::BLOCK) && l.in_dim_size(DimName::BLOCK) > 1 {
        return Err(CuteError::NotExpressible(
            "the layout has block (CTA) bases; CuTe's Shape:Stride describes one CTA's allocation"
                .into(),
        ));
    }
    let l = if l.has_in_dim(DimName::BLOCK) {
        l.sublayout(&[DimName::OFFSET], &l.out_dim_names().collect::<Vec<_>>())?
    } else {
        l.clone()
    };
    // Offset bits with a zero basis are padding (Triton's way of an
    // allocation larger than the tensor): CuTe never reaches them. The
    // other offset bits must be a bijection onto the coordinates.
    let offset_cols: Vec<u64> = l.packed_bases(DimName::OFFSET).to_vec();
    let used: Vec<usize> = (0..offset_cols.len())
        .filter(|&j| offset_cols[j] != 0)
        .collect();
    let dims: Vec<DimName> = l.out_dim_names().collect();
    let compact = LinearLayout::new(
        vec![(
            DimName::OFFSET,
            used.iter().map(|&j| l.basis(DimName::OFFSET, j)).collect(),
        )],
        l.out_dims(),
        false,
    )?;
    if !compact.is_invertible() {
        return Err(CuteError::NotExpressible(format!(
            "the shared layout's non-zero offset bases are not a bijection (rank {} of {} non-zero offset bits onto {} coordinate bits)",
            compact.rank(),
            used.len(),
            l.total_out_dim_size_log2()
        )));
    }
    let inv = compact.invert()?.transpose_ins(&dims)?;
    // Back from the compacted offset bits to the real ones.
    let spread = |x: u64| -> u64 {
        (0..used.len())
            .filter(|&i| x >> i & 1 == 1)
            .fold(0, |a, i| a | 1u64 << used[i])
    };
    let cols: Vec<Vec<u64>> = dims
        .iter()
        .map(|&d| {
            single_out_columns(&inv, d)
                .into_iter()
                .map(spread)
                .collect()
        })
        .collect();
    let names: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    from_columns(&cols, &names, true)
}

/// A distributed layout (`register, lane, warp[, block]` → `dim0, ...`) as a
/// CuTe thread-value layout `(thr, val) → tile index`, the tile index
/// column-major (`dim0` fastest). Thread bits are lane bits then warp bits;
/// value bits are register bits. The inverse of
/// [`super::tv_to_distributed`]. XORed bases have no TV form and are
/// reported.
pub fn to_tv(l: &LinearLayout) -> Result<CuteLayout> {
    if l.has_in_dim(DimName::BLOCK) && l.in_dim_size(DimName::BLOCK) > 1 {
        return Err(CuteError::NotExpressible(
            "the layout has block (CTA) bases; a CuTe TV layout describes one CTA".into(),
        ));
    }
    for d in l.in_dim_names() {
        if ![
            DimName::REGISTER,
            DimName::LANE,
            DimName::WARP,
            DimName::BLOCK,
        ]
        .contains(&d)
        {
            return Err(CuteError::NotExpressible(format!(
                "in dim '{d}' is not register, lane, warp or block"
            )));
        }
    }
    let flat = |b: &[u64]| -> u64 {
        let mut shift = 0;
        let mut x = 0;
        for ((_, size), &c) in l.out_dims().iter().zip(b) {
            x |= c << shift;
            shift += size.trailing_zeros();
        }
        x
    };
    let cols_of = |d: DimName| -> Vec<u64> {
        if l.has_in_dim(d) {
            l.bases(d).iter().map(|b| flat(b)).collect()
        } else {
            vec![]
        }
    };
    let mut thr = cols_of(DimName::LANE);
    thr.extend(cols_of(DimName::WARP));
    let val = cols_of(DimName::REGISTER);
    let modes = vec![thr, val];
    if let Some(((ka, ia), (kb, ib))) = first_overlap(&modes) {
        let name = |k: usize, i: usize| -> String {
            let lanes = l.in_dim_size_log2(DimName::LANE) as usize;
            match (k, i) {
                (1, i) => format!("register basis {i}"),
                (_, i) if i < lanes => format!("lane basis {i}"),
                (_, i) => format!("warp basis {}", i - lanes),
            }
        };
        let (a, b) = (modes[ka][ia], modes[kb][ib]);
        return Err(CuteError::NotExpressible(format!(
            "{} (tile index {a}) and {} (tile index {b}) share bits {:#b}: they XOR, and a thread-value layout adds",
            name(ka, ia),
            name(kb, ib),
            a & b
        )));
    }
    from_columns(&modes, &["thr".into(), "val".into()], true)
}

/// Any layout with one output dim as CuTe: each in dim is a top-level mode,
/// the output its offset (a 1-D layout prints bare: `8:1`).
pub fn from_offset_map(l: &LinearLayout) -> Result<CuteLayout> {
    if l.num_out_dims() != 1 {
        return Err(CuteError::NotExpressible(format!(
            "a coordinate → offset map has one output, found {}",
            l.num_out_dims()
        )));
    }
    let dims: Vec<DimName> = l.in_dim_names().collect();
    let cols: Vec<Vec<u64>> = dims.iter().map(|&d| single_out_columns(l, d)).collect();
    let names: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    from_columns(&cols, &names, false)
}
