//! The shared layout of the emitted kernels: a thin layer over
//! [`layout_codegen::swizzle_search`], which holds the one search (the
//! paper's construction, CuTe's `Swizzle<B, M, S>` family, Triton's optimal
//! swizzle, scored by exact wavefronts of [`layout_codegen::wavefront`]).
//! The matrix path ([`crate::matrix_ops::search_swizzle`]) takes its
//! construction candidate from here.

use linear_layout::LinearLayout;

/// The shared layout whose offset bits map, from the lowest, to `order`
/// (packed tensor coordinates of `like`'s out dims), skipping dependent
/// vectors and completing with unit vectors
/// ([`layout_codegen::swizzle::layout_from_order`]). `None` if it is not a
/// bijection.
pub(crate) fn layout_from_order(order: &[u64], like: &LinearLayout) -> Option<LinearLayout> {
    let l = layout_codegen::swizzle::layout_from_order(order, &like.out_dims()).ok()?;
    l.is_invertible().then_some(l)
}

/// The paper's construction (§5.4): the best of
/// [`layout_codegen::swizzle::paper_swizzle_candidates`] by
/// [`layout_codegen::swizzle_search::best_shared_layout`] (32 banks), with
/// its wavefronts; a candidate of the matrix path's search.
pub fn construct_swizzle(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
    num_warps: u64,
) -> Option<(LinearLayout, u64)> {
    let _ = num_warps;
    let candidates = layout_codegen::swizzle::paper_swizzle_candidates(src, dst, bits).ok()?;
    layout_codegen::swizzle_search::best_shared_layout(src, dst, candidates, bits, 32)
        .map(|(l, c)| (l, c.wavefronts()))
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
