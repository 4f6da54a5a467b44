//! # Choosing the nearest replica of a broadcast source
//!
//! When the source layout is not injective (a broadcast: several hardware
//! indices hold the same element), a conversion may read each element from
//! any of its replicas. Triton's `invert_and_compose` takes the pivot
//! solution (free variables zero); only for the block level does it pick the
//! replica in the reader's own CTA (`invertAndComposeBlockLocal`). Here the
//! choice is made at every level, slowest first: the replica in the same
//! block, then the same warp, then the same lane, whenever one exists.
//!
//! ## The math
//! Let `C₀: dst hw → src hw` be any conversion map (`src ∘ C₀ = dst`) and
//! `K = ker src`. Every conversion map is `C = C₀ ⊕ M` with `M` linear into
//! `K`. For a level `L` (block, warp, lane) with projection `π_L`, already
//! fixed slower levels `F`, and `K_L = {k ∈ K : π_F k = 0}` (replicas that
//! keep the slower levels), the level error `e(x) = π_L C(x) ⊕ π_L x` can be
//! cancelled exactly when `e(x) ∈ V = π_L K_L`. Reducing `e` modulo `V`
//! against a fixed echelon basis is linear, so
//! `C(x) ⊕= lift(e(x) ⊕ reduce_V(e(x)))` (on each basis vector of `x`) keeps
//! `C` linear, keeps `src ∘ C = dst`, leaves slower levels alone, and zeroes
//! the level error of every `x` for which a same-level replica exists.
//!
//! The result is Triton's conversion map whenever the source is injective
//! (then `K = 0`).

use crate::conversion::conversion_layout;
use crate::error::Result;
use linear_layout::{gf2, DimName, LinearLayout};

/// Bit positions of in dim `d` in the flat (packed) index of `l`'s in dims
/// (first in dim lowest), as a mask; 0 when absent.
fn in_mask(l: &LinearLayout, d: DimName) -> u64 {
    let mut shift = 0;
    for (name, size) in l.in_dims() {
        let n = size.trailing_zeros();
        if name == d {
            return ((1u64 << n) - 1) << shift;
        }
        shift += n;
    }
    0
}

/// For destination flat bit `j`: its own bit of a level (masks `md` in the
/// destination's flat index, `ms` in the source's), placed at the source's
/// position of the same level bit; 0 when `j` is not a bit of the level.
fn own_bits(j: usize, md: u64, ms: u64) -> u64 {
    if md >> j & 1 == 0 {
        return 0;
    }
    let k = (md & ((1u64 << j) - 1)).count_ones();
    1u64 << (ms.trailing_zeros() + k)
}

/// For every element of `layout`'s tile (packed coordinate, first out dim
/// lowest), the flat hardware index (register bits lowest, then lane,
/// warp, block) of its first holder, the lowest index that holds it;
/// `u64::MAX` for an element no index holds. One table of the tile's size:
/// the caller bounds the tile.
///
/// ```
/// use layout_codegen::replica::first_holders;
/// use linear_layout::{DimName, LinearLayout};
/// // Two warps hold the same two elements (a broadcast over warp bit 0).
/// let l = LinearLayout::new(
///     vec![(DimName::REGISTER, vec![vec![1]]), (DimName::WARP, vec![vec![0]])],
///     vec![(DimName::dim(0), 2)],
///     false,
/// )
/// .unwrap();
/// assert_eq!(first_holders(&l)?, vec![0, 1]);
/// # Ok::<(), layout_codegen::CodegenError>(())
/// ```
pub fn first_holders(layout: &LinearLayout) -> Result<Vec<u64>> {
    let table = layout.table()?;
    let mut first = vec![u64::MAX; layout.total_out_dim_size() as usize];
    for (f, &e) in table.iter().enumerate().rev() {
        if let Some(slot) = first.get_mut(e as usize) {
            *slot = f as u64;
        }
    }
    Ok(first)
}

/// `dst hw → src hw` (`src ∘ C = dst`) choosing, for every destination
/// index, the replica of its element in the same block, else warp, else
/// lane, when the source holds one there (module doc). Equal to
/// [`conversion_layout`] when `src` is injective.
///
/// ```
/// use layout_codegen::replica::local_conversion_layout;
/// use linear_layout::{DimName, LinearLayout};
/// let d = |r: Vec<Vec<u64>>, w: Vec<Vec<u64>>| {
///     LinearLayout::new(
///         vec![(DimName::REGISTER, r), (DimName::LANE, vec![]), (DimName::WARP, w)],
///         vec![(DimName::dim(0), 4)],
///         false,
///     )
///     .unwrap()
/// };
/// // Source: both warps hold all 4 elements; destination: warp w holds 2w, 2w+1.
/// let src = d(vec![vec![1], vec![2]], vec![vec![0]]);
/// let dst = d(vec![vec![1]], vec![vec![2]]);
/// let c = local_conversion_layout(&src, &dst).unwrap();
/// // Warp 1 reads its own copy: warp 1 → warp 1 (and register 1 of the source).
/// let out = c.apply(&[(DimName::REGISTER, 0), (DimName::LANE, 0), (DimName::WARP, 1)]).unwrap();
/// assert_eq!(out.iter().find(|x| x.0 == DimName::WARP).unwrap().1, 1);
/// ```
pub fn local_conversion_layout(src: &LinearLayout, dst: &LinearLayout) -> Result<LinearLayout> {
    let comp = conversion_layout(src, dst)?;
    // The packed output of `comp` is the source's flat index when its out
    // dims are the source's in dims in order (what invert_and_compose
    // gives); otherwise keep Triton's map.
    if comp.out_dims() != src.in_dims() || comp.in_dims() != dst.in_dims() {
        return Ok(comp);
    }
    let kernel = gf2::nullspace(src.columns());
    if kernel.is_empty() {
        return Ok(comp);
    }
    let mut cols: Vec<u64> = comp.columns().to_vec();
    let mut fixed = 0u64;
    for level in [DimName::BLOCK, DimName::WARP, DimName::LANE] {
        let (ms, md) = (in_mask(src, level), in_mask(dst, level));
        if ms == 0 || md == 0 || ms.count_ones() != md.count_ones() {
            fixed |= ms;
            continue;
        }
        // K_L: kernel combinations with no component on fixed levels.
        let on_fixed: Vec<u64> = kernel.iter().map(|k| k & fixed).collect();
        let k_l: Vec<u64> = gf2::nullspace(&on_fixed)
            .into_iter()
            .map(|combo| gf2::xor_columns(&kernel, combo))
            .collect();
        let v: Vec<u64> = k_l.iter().map(|k| k & ms).collect();
        let basis = gf2::EchelonBasis::from_columns(&v);
        for (j, col) in cols.iter_mut().enumerate() {
            let e = (*col & ms) ^ own_bits(j, md, ms);
            let (_, combo) = basis.reduce(e);
            *col ^= gf2::xor_columns(&k_l, combo);
        }
        fixed |= ms;
    }
    let mut shift = 0;
    let ins = dst
        .in_dims()
        .into_iter()
        .map(|(d, size)| {
            let n = size.trailing_zeros() as usize;
            let part = cols[shift..shift + n].to_vec();
            shift += n;
            (d, part)
        })
        .collect();
    let outs = src
        .in_dims()
        .into_iter()
        .map(|(d, size)| (d, size.trailing_zeros()))
        .collect();
    Ok(LinearLayout::from_packed(ins, outs, false)?)
}

/// Whether, under [`local_conversion_layout`], every destination index
/// reads an element of its own block, warp and (when `same_lane`) lane:
/// the conversion needs no shared memory (and, with `same_lane`, no
/// shuffle), though the source register may still depend on the warp or
/// lane (`C_rw`, `C_rl`).
pub fn reads_own(src: &LinearLayout, dst: &LinearLayout, same_lane: bool) -> Result<bool> {
    let c = local_conversion_layout(src, dst)?;
    let mut levels = vec![DimName::BLOCK, DimName::WARP];
    if same_lane {
        levels.push(DimName::LANE);
    }
    for level in levels {
        let (ms, md) = (in_mask(src, level), in_mask(dst, level));
        if ms.count_ones() != md.count_ones() {
            return Ok(false);
        }
        for (j, &col) in c.columns().iter().enumerate() {
            if col & ms != own_bits(j, md, ms) {
                return Ok(false);
            }
        }
    }
    Ok(true)
}
