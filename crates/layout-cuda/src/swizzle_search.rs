//! A shared layout for the emitted kernels, chosen by exhaustive search over
//! XOR swizzles, scored with the wavefront model of [`crate::wavefronts`].
//!
//! The family (CuTe's `Swizzle<B, M, S>` on a row- or column-major tile):
//! logical offset `o` (tile order) lives at physical offset
//! `p = o ⊕ (((o >> (M + S)) & (2^B − 1)) << M)`: the `B` bits above
//! `M + S` are XORed into the bits above `M` (the low `M` bits are a vector
//! that stays contiguous). As a linear layout `offset → (dim0, dim1)` the
//! basis of physical bit `i` is the tile coordinate of `swz(2^i)` (`swz` is
//! an involution when `S ≥ B`). The score is the total predicted wavefronts
//! of storing the source and loading the destination (both directions of the
//! benchmark use the same pair of access patterns).

use crate::{free_masks, smem_map, wavefronts};
use linear_layout::LinearLayout;

/// The swizzled tile layout `offset → (dim0, dim1)` for `Swizzle<b, m, s>`
/// over a row-major (`row_major = true`: dim1 fastest) or column-major tile
/// ([`layout_codegen::swizzle_search::xor_swizzle_tile`]).
pub fn swizzled_tile(shape: &[u64], row_major: bool, b: u32, m: u32, s: u32) -> LinearLayout {
    layout_codegen::swizzle_search::xor_swizzle_tile(shape, row_major, b, m, s)
        .expect("a swizzle of the family (b <= s, fits the tile) is a bijection")
}

/// Predicted wavefronts (store of `src` + load of `dst`) through `smem`.
pub fn score(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bits: u32,
    num_warps: u64,
) -> Option<u64> {
    let st = smem_map(src, smem).ok()?;
    let ld = smem_map(dst, smem).ok()?;
    let (fr, fl, fw) = free_masks(src);
    let (sw, _) = wavefronts(&st, bits, num_warps, fr, |l, w| l & fl == 0 && w & fw == 0);
    let (lw, _) = wavefronts(&ld, bits, num_warps, 0, |_, _| true);
    Some(sw + lw)
}

/// Shared-memory instructions per thread of storing `src` and loading
/// `dst` through `smem` on the vector path (stores skip duplicates): the
/// tie-breaker between layouts of equal wavefronts.
pub fn instructions(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bits: u32,
) -> Option<u64> {
    let st = smem_map(src, smem).ok()?;
    let ld = smem_map(dst, smem).ok()?;
    let fr = free_masks(src).0;
    let n_st = st.groups(bits).iter().filter(|g| g[0] & fr == 0).count();
    Some((n_st + ld.groups(bits).len()) as u64)
}

/// The best swizzle of the family for `src → dst`: `(layout, score)`.
pub fn search_swizzle(
    src: &LinearLayout,
    dst: &LinearLayout,
    shape: &[u64],
    bits: u32,
    num_warps: u64,
) -> Option<(LinearLayout, u64)> {
    let n = shape.iter().map(|s| s.trailing_zeros()).sum::<u32>();
    let max_m = (128 / bits).trailing_zeros();
    let mut best: Option<(LinearLayout, u64)> = None;
    for row_major in [true, false] {
        for m in 0..=max_m {
            for b in 0..=5u32 {
                for s in b.max(1)..=8 {
                    if m + s + b > n || (b == 0 && s > 1) {
                        continue;
                    }
                    let l = swizzled_tile(shape, row_major, b, m, s);
                    if let Some(sc) = score(src, dst, &l, bits, num_warps) {
                        if best.as_ref().is_none_or(|x| sc < x.1) {
                            best = Some((l, sc));
                        }
                    }
                }
            }
        }
    }
    best
}

/// The shared layout whose offset bits map, from the lowest, to `order`
/// (packed tensor coordinates of `like`'s out dims), skipping dependent
/// vectors and completing with unit vectors
/// ([`layout_codegen::swizzle::layout_from_order`]). `None` if it is not a
/// bijection.
pub(crate) fn layout_from_order(order: &[u64], like: &LinearLayout) -> Option<LinearLayout> {
    let l = layout_codegen::swizzle::layout_from_order(order, &like.out_dims()).ok()?;
    l.is_invertible().then_some(l)
}

/// The paper's construction (§5.4), as
/// [`layout_codegen::swizzle::paper_swizzle_candidates`] enumerates it
/// (vector bases, then the intersection of the two sides' phase lanes, then
/// `A`, then `A ⊕ B`; vectors widened with one side's registers), scored
/// here by the emitter's wavefront model: the best (fewest predicted
/// wavefronts, then fewest shared-memory instructions, then the first
/// candidate) is returned with its wavefronts.
pub fn construct_swizzle(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
    num_warps: u64,
) -> Option<(LinearLayout, u64)> {
    let candidates = layout_codegen::swizzle::paper_swizzle_candidates(src, dst, bits).ok()?;
    let mut best: Option<(LinearLayout, u64, u64)> = None;
    for lay in candidates.into_iter().filter(|l| l.is_invertible()) {
        let Some(sc) = score(src, dst, &lay, bits, num_warps) else {
            continue;
        };
        // Instructions only break ties: not needed when it scores worse.
        if best.as_ref().is_some_and(|b| sc > b.1) {
            continue;
        }
        if let Some(ni) = instructions(src, dst, &lay, bits) {
            if best.as_ref().is_none_or(|b| (sc, ni) < (b.1, b.2)) {
                best = Some((lay, sc, ni));
            }
        }
    }
    best.map(|(lay, sc, _)| (lay, sc))
}

/// The shared layout the GPU suite converts through, with its predicted
/// wavefronts (store + load, all warps): layout-codegen's search
/// ([`layout_codegen::swizzle_search::search_shared_layout`], 32 banks:
/// the paper's construction, then this family, then Triton's optimal
/// swizzle; fewest wavefronts, then instructions, then the first). `None`
/// when no candidate is a bijection onto the tile. `shape` and `num_warps`
/// are read from the layouts.
pub fn best_swizzle(
    src: &LinearLayout,
    dst: &LinearLayout,
    shape: &[u64],
    bits: u32,
    num_warps: u64,
) -> Option<(LinearLayout, u64)> {
    let _ = (shape, num_warps);
    layout_codegen::swizzle_search::search_shared_layout(src, dst, bits, 32)
        .ok()
        .map(|(l, c)| (l, c.wavefronts()))
}

/// The lower-scoring of a [`search_swizzle`] and a [`construct_swizzle`]
/// result (the construction on ties), or whichever exists.
pub fn better(
    searched: Option<(LinearLayout, u64)>,
    built: Option<(LinearLayout, u64)>,
) -> Option<(LinearLayout, u64)> {
    match (searched, built) {
        (Some(a), Some(b)) => Some(if b.1 <= a.1 { b } else { a }),
        (a, b) => a.or(b),
    }
}
