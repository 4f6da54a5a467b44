//! The search for a conversion's shared layout: every candidate this crate
//! knows, scored by exact wavefronts ([`crate::wavefront`]) of the accesses
//! an emitter makes (vectors of [`crate::vectorize::vector_groups`], one
//! replica of a broadcast source stored).
//!
//! Candidates, in this order:
//! * the paper's construction ([`crate::swizzle::paper_swizzle_candidates`]);
//! * for rank-2 tiles, the XOR swizzle family of CuTe's `Swizzle<B, M, S>`
//!   on a row- or column-major tile ([`xor_swizzle_tile`]);
//! * Triton's optimal swizzle ([`crate::swizzle::optimal_swizzling`]).
//!
//! The order decides among equally good layouts; this one reproduces the
//! shared layouts of the programs that ran on the H200 (`layout-cuda`'s GPU
//! suite regenerates byte-identical with it; Triton's swizzle first changed
//! 14 of them to other layouts of equal wavefronts and instructions).
//!
//! The best is the one with the fewest wavefronts (store + load over all
//! warps), then the fewest shared-memory instructions per thread, then the
//! first in the order above. [`layout_access_wavefronts`] counts one side
//! (a distributed layout into a shared layout with a given vector width).

use crate::error::{check_bitwidth, CodegenError, Result};
use crate::swizzle::{optimal_swizzling, paper_swizzle_candidates};
use crate::vectorize::vector_groups;
use crate::wavefront::phases_of;
use linear_layout::gf2::xor_columns;
use linear_layout::{DimName, LinearLayout};
use serde::Serialize;

/// The tile layout `offset → (dim0, dim1)` of CuTe's `Swizzle<b, m, s>` over
/// a row-major (`row_major`: dim1 fastest) or column-major 2-D tile:
/// logical offset `o` (tile order) is stored at physical offset
/// `p = o ⊕ (((o >> (m + s)) mod 2^b) << m)`. As a linear layout, the basis
/// of physical bit `i` is the tile coordinate of logical bit `i`, XORed with
/// that of bit `i − s` when `m + s ≤ i < m + s + b` (the low `m` bits, a
/// vector, stay contiguous).
///
/// ```
/// use layout_codegen::swizzle_search::xor_swizzle_tile;
/// // 8 x 8 row-major, Swizzle<3, 0, 3>: row r's element c sits at column c ^ r.
/// let l = xor_swizzle_tile(&[8, 8], true, 3, 0, 3).unwrap();
/// assert_eq!(l.apply_flat(8 * 5 + 2), 5 | (2 ^ 5) << 3);
/// ```
pub fn xor_swizzle_tile(
    shape: &[u64],
    row_major: bool,
    b: u32,
    m: u32,
    s: u32,
) -> Result<LinearLayout> {
    let [s0, s1] = shape else {
        return Err(CodegenError::Invalid(format!(
            "the XOR swizzle family is for 2-D tiles, not shape {shape:?}"
        )));
    };
    if !s0.is_power_of_two() || !s1.is_power_of_two() {
        return Err(CodegenError::Invalid(format!(
            "tile shape {shape:?} is not a power of two"
        )));
    }
    let (l0, l1) = (s0.trailing_zeros(), s1.trailing_zeros());
    if b > s || m + s + b > l0 + l1 {
        return Err(CodegenError::Invalid(format!(
            "Swizzle<{b}, {m}, {s}> does not fit a tile of {} offset bits (needs b ≤ s)",
            l0 + l1
        )));
    }
    let coord = |i: u32| -> [u64; 2] {
        match (row_major, i < if row_major { l1 } else { l0 }) {
            (true, true) => [0, 1 << i],
            (true, false) => [1 << (i - l1), 0],
            (false, true) => [1 << i, 0],
            (false, false) => [0, 1 << (i - l0)],
        }
    };
    let bases = (0..l0 + l1)
        .map(|i| {
            let mut c = coord(i);
            if i >= m + s && i < m + s + b {
                let e = coord(i - s);
                c = [c[0] ^ e[0], c[1] ^ e[1]];
            }
            c.to_vec()
        })
        .collect();
    Ok(LinearLayout::new(
        vec![(DimName::OFFSET, bases)],
        vec![(DimName::dim(0), *s0), (DimName::dim(1), *s1)],
        true,
    )?)
}

/// The XOR swizzle family searched for a 2-D tile of `bits`-bit elements,
/// in search order: row-major then column-major tiles, vectors of `2^m`
/// elements up to 16 bytes, `b ≤ 5` XORed bits, shifts `max(b, 1) ≤ s ≤ 8`
/// (`b = 0`, the unswizzled tile, once, with `s = 1`), every
/// [`xor_swizzle_tile`] that fits the tile.
///
/// ```
/// use layout_codegen::swizzle_search::xor_swizzle_family;
/// let family = xor_swizzle_family(&[64, 64], 16).unwrap();
/// assert!(family.iter().all(|l| l.is_invertible()));
/// // 30, 28, 25 and 21 (b, s) pairs for m = 0..3, in each tile order.
/// assert_eq!(family.len(), 2 * (30 + 28 + 25 + 21));
/// ```
pub fn xor_swizzle_family(shape: &[u64], bits: u32) -> Result<Vec<LinearLayout>> {
    check_bitwidth(bits)?;
    let n: u32 = shape.iter().map(|s| s.trailing_zeros()).sum();
    let max_m = (128 / bits).trailing_zeros();
    let mut out = Vec::new();
    for row_major in [true, false] {
        for m in 0..=max_m {
            for b in 0..=5u32 {
                for s in b.max(1)..=8 {
                    if m + s + b > n || (b == 0 && s > 1) {
                        continue;
                    }
                    out.push(xor_swizzle_tile(shape, row_major, b, m, s)?);
                }
            }
        }
    }
    Ok(out)
}

/// Wavefronts and instructions of converting `src → dst` through `shared`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SharedCost {
    /// Store wavefronts over all warps (one replica of a broadcast source).
    pub store_wavefronts: u64,
    /// Load wavefronts over all warps.
    pub load_wavefronts: u64,
    /// Shared-memory instructions per thread (stores + loads).
    pub instructions: u64,
}

impl SharedCost {
    /// Store plus load wavefronts.
    pub fn wavefronts(&self) -> u64 {
        self.store_wavefronts + self.load_wavefronts
    }
}

fn free_mask(l: &LinearLayout, d: DimName) -> u64 {
    l.free_variable_masks()
        .into_iter()
        .find(|x| x.0 == d)
        .map_or(0, |x| x.1)
}

/// Wavefronts of one side: `side` (`register, lane, warp[, block] → tensor`,
/// one CTA) accessing the shared layout whose inverse is `shared_inv`
/// (`tensor → offset`) with the
/// widest vectors of [`vector_groups`]; with `one_replica`, registers,
/// lanes and warps with a free (broadcast) bit set do not access.
fn side_cost(
    side: &LinearLayout,
    shared_inv: &LinearLayout,
    bits: u32,
    banks: u64,
    one_replica: bool,
) -> Result<(u64, u64)> {
    let m = side.compose(shared_inv)?;
    let get = |d: DimName| m.packed_bases(d).to_vec();
    let (reg, lane, warp) = (
        get(DimName::REGISTER),
        get(DimName::LANE),
        get(DimName::WARP),
    );
    let mask = |d| if one_replica { free_mask(side, d) } else { 0 };
    let (fr, fl, fw) = (
        mask(DimName::REGISTER),
        mask(DimName::LANE),
        mask(DimName::WARP),
    );
    let bytes = u64::from(bits.max(8)) / 8;
    let groups: Vec<Vec<u64>> = vector_groups(&reg, &lane, &warp, bits)
        .1
        .into_iter()
        .filter(|g| g[0] & fr == 0)
        .collect();
    // Every access of the side differs from the first one of warp 0 by
    // XORing all its lanes' offsets with one constant that no vector
    // touches (other register bits and warp bits never touch the vector's
    // offset bits): that maps distinct words to distinct words and each
    // bank to one bank, so every access costs what the first one costs.
    let Some(g) = groups.first() else {
        return Ok((0, 0));
    };
    let starts: Vec<u64> = (0..1u64 << lane.len())
        .filter(|l| l & fl == 0)
        .map(|l| (xor_columns(&reg, g[0]) ^ xor_columns(&lane, l)) * bytes)
        .collect();
    let one: u64 = phases_of(banks, &starts, g.len() as u64 * bytes)
        .iter()
        .sum();
    let warps = (0..1u64 << warp.len()).filter(|w| w & fw == 0).count() as u64;
    let wavefronts = one * warps * groups.len() as u64;
    Ok((wavefronts, groups.len() as u64))
}

/// The cost of converting `src → dst` (one CTA) through the shared layout
/// `shared` with `bits`-bit elements and `banks` banks: the source stores
/// one replica, the destination loads every register (module doc).
pub fn shared_cost(
    src: &LinearLayout,
    dst: &LinearLayout,
    shared: &LinearLayout,
    bits: u32,
    banks: u64,
) -> Result<SharedCost> {
    check_bitwidth(bits)?;
    let cost = cost_unless_stores_above(src, dst, shared, bits, banks, u64::MAX)?;
    Ok(cost.expect("no store count exceeds u64::MAX"))
}

/// [`shared_cost`], or `None` without counting the loads when the store
/// wavefronts alone exceed `bound` (the search's prune: loads only add).
fn cost_unless_stores_above(
    src: &LinearLayout,
    dst: &LinearLayout,
    shared: &LinearLayout,
    bits: u32,
    banks: u64,
    bound: u64,
) -> Result<Option<SharedCost>> {
    let inv = shared.invert()?;
    let (sw, si) = side_cost(src, &inv, bits, banks, true)?;
    if sw > bound {
        return Ok(None);
    }
    let (lw, li) = side_cost(dst, &inv, bits, banks, false)?;
    Ok(Some(SharedCost {
        store_wavefronts: sw,
        load_wavefronts: lw,
        instructions: si + li,
    }))
}

/// The best shared layout for `src → dst` among the candidates of the
/// module doc, with its cost. Errors when no candidate is a bijection onto
/// the tile (e.g. multi-CTA layouts, which the XOR family does not cover).
pub fn search_shared_layout(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
    banks: u64,
) -> Result<(LinearLayout, SharedCost)> {
    check_bitwidth(bits)?;
    let mut candidates: Vec<LinearLayout> = Vec::new();
    if let Ok(c) = paper_swizzle_candidates(src, dst, bits) {
        candidates.extend(c);
    }
    let shape: Vec<u64> = src.out_dims().iter().map(|d| d.1).collect();
    if shape.len() == 2 {
        candidates.extend(xor_swizzle_family(&shape, bits)?);
    }
    if let Ok(sw) = optimal_swizzling(src, dst, bits) {
        candidates.push(sw.shared);
    }
    best_shared_layout(src, dst, candidates, bits, banks).ok_or_else(|| {
        CodegenError::Unsupported("no shared layout candidate is a bijection onto the tile".into())
    })
}

/// The best of `candidates` for `src → dst` by [`shared_cost`]: the fewest
/// wavefronts, then the fewest instructions, then the first; candidates
/// that are not bijections onto `src`'s tensor are skipped. `None` when
/// none is left.
pub fn best_shared_layout(
    src: &LinearLayout,
    dst: &LinearLayout,
    candidates: impl IntoIterator<Item = LinearLayout>,
    bits: u32,
    banks: u64,
) -> Option<(LinearLayout, SharedCost)> {
    check_bitwidth(bits).ok()?;
    let mut best: Option<(LinearLayout, SharedCost)> = None;
    for l in candidates {
        if !l.is_invertible() || l.out_dims() != src.out_dims() {
            continue;
        }
        // A candidate whose stores alone exceed the best's wavefronts
        // cannot win: its loads are not counted.
        let bound = best.as_ref().map_or(u64::MAX, |b| b.1.wavefronts());
        let Ok(Some(c)) = cost_unless_stores_above(src, dst, &l, bits, banks, bound) else {
            continue;
        };
        let key = |c: &SharedCost| (c.wavefronts(), c.instructions);
        if best.as_ref().is_none_or(|b| key(&c) < key(&b.1)) {
            best = Some((l, c));
        }
    }
    best
}

/// Wavefronts per warp of writing (or reading) every register of the
/// distributed layout `reg` (`register, lane, warp[, block] → tensor`) into
/// the shared layout `shared` (`offset → tensor`, a bijection onto the
/// same tensor) with vectors of `vec` consecutive registers: the exact
/// count of the [module rule](self), summed over all accesses of warp 0.
///
/// `vec` registers `r, r+1, …, r+vec−1` (`vec` a power of two) must sit at
/// consecutive offsets: register bits `0 .. log2 vec` of `reg` must map to
/// offsets `1, 2, 4, …` through `shared⁻¹`, else an error names the bit.
/// Broadcast registers are counted once (the store a deduplicating emitter
/// does), broadcast lanes all access (reading the same word is free).
///
/// ```
/// use layout_codegen::swizzle_search::layout_access_wavefronts;
/// use linear_layout::{DimName, LinearLayout};
/// // 32 lanes, 4 registers of 32 bits; row-major 32×4 tile; shared = row major.
/// let reg = LinearLayout::new(
///     vec![
///         (DimName::REGISTER, vec![vec![1, 0], vec![2, 0]]),
///         (DimName::LANE, (0..5).map(|i| vec![0, 1 << i]).collect()),
///         (DimName::WARP, vec![]),
///     ],
///     vec![(DimName::dim(0), 4), (DimName::dim(1), 32)],
///     true,
/// ).unwrap();
/// let shared = LinearLayout::identity_1d(128, DimName::OFFSET, DimName::dim(0))
///     .reshape_outs(&[(DimName::dim(0), 4), (DimName::dim(1), 32)]).unwrap();
/// // Each lane stores 16 bytes: 4 quarter-warp phases, conflict-free.
/// assert_eq!(layout_access_wavefronts(&shared, &reg, 4, 32, 32).unwrap(), 4);
/// // Element by element: 4 stores of one word, lanes 16 bytes apart: lanes
/// // 0, 8, 16, 24 share a bank, 4 wavefronts each.
/// assert_eq!(layout_access_wavefronts(&shared, &reg, 1, 32, 32).unwrap(), 16);
/// ```
pub fn layout_access_wavefronts(
    shared: &LinearLayout,
    reg: &LinearLayout,
    vec: u64,
    bitwidth: u32,
    banks: u64,
) -> Result<u64> {
    check_bitwidth(bitwidth)?;
    if !vec.is_power_of_two() {
        return Err(CodegenError::Invalid(format!(
            "vector width {vec} is not a power of two"
        )));
    }
    if ![32, 64].contains(&banks) {
        return Err(CodegenError::Invalid(format!(
            "32 or 64 shared-memory banks are modelled, not {banks}"
        )));
    }
    let reduced = crate::bank_conflicts::remove_broadcast_registers(reg)?;
    let m = reduced.invert_and_compose(shared)?;
    let get = |d: DimName| m.packed_bases(d).to_vec();
    let (regs, lanes) = (get(DimName::REGISTER), get(DimName::LANE));
    let vbits = vec.trailing_zeros() as usize;
    if vbits > regs.len() {
        return Err(CodegenError::Invalid(format!(
            "vector of {vec} registers, but the layout has {} distinct registers",
            1u64 << regs.len()
        )));
    }
    for (i, &o) in regs.iter().enumerate().take(vbits) {
        if o != 1 << i {
            return Err(CodegenError::Invalid(format!(
                "register bit {i} maps to offset {o}, not {}: registers are not contiguous \
                 for vectors of {vec}",
                1u64 << i
            )));
        }
    }
    let bytes = u64::from(bitwidth.max(8)) / 8;
    let nlanes = 1u64 << lanes.len();
    let mut total = 0;
    for g in 0..(1u64 << (regs.len() - vbits)) {
        let base = xor_columns(&regs[vbits..], g);
        let starts: Vec<u64> = (0..nlanes)
            .map(|l| (base ^ xor_columns(&lanes, l)) * bytes)
            .collect();
        total += phases_of(banks, &starts, vec * bytes).iter().sum::<u64>();
    }
    Ok(total)
}
