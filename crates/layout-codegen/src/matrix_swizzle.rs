//! Shared layouts built for `stmatrix` / `ldmatrix`: candidates of the
//! planner's matrix-instruction plans ([`crate::plan_options`]) beside the
//! XOR swizzle family, since a layout that suits the vector accesses
//! ([`crate::swizzle_search`]) rarely lets the 8×16-byte matrix tile divide
//! a side. The planner decides among them by its cost (the simulator's
//! wavefronts); these are candidates only.
//!
//! For a matrix access of `side` (tensor coordinates packed; `order[i]` is
//! the coordinate at offset `2^i`): offset bits 0..2 (one 16-byte row of
//! 16-bit elements) are the tile's in-row coordinates (non-trans: a
//! register basis `e` and lane bases 0, 1; `.trans`: lane bases 2, 3, 4),
//! offset bits 3..5 (the 16-byte chunk of a 128-byte bank line) the row
//! selectors `sel` (non-trans: lane bases 2, 3, 4; `.trans`: register basis
//! 0 and lane bases 0, 1), so the 8 rows of each matrix fill the 8 chunks.
//! The next bits are the other side's lane bases `x_k`, each as `x_k` or
//! `x_k ⊕ sel_j`: then `x_k` lies at offset `2^k ⊕ 2^(3+j)`, i.e. in chunk
//! `j`, which spreads the other side's phase over the banks too. Then the
//! rest, completed to a bijection by
//! [`crate::swizzle::layout_from_order`].

use crate::swizzle::layout_from_order;
use linear_layout::gf2::EchelonBasis;
use linear_layout::{DimName, LinearLayout};

/// The candidates for both sides of `src → dst` (module doc): those built
/// for a matrix store of `src`, then for a matrix load of `dst`. Empty for
/// layouts without 32 lanes or registers.
pub fn matrix_layout_candidates(src: &LinearLayout, dst: &LinearLayout) -> Vec<LinearLayout> {
    let mut out = constructions(src, dst);
    out.extend(constructions(dst, src));
    out
}

fn constructions(side: &LinearLayout, other: &LinearLayout) -> Vec<LinearLayout> {
    let (r, l) = (DimName::REGISTER, DimName::LANE);
    let regs = side.packed_bases(r).to_vec();
    let lanes = side.packed_bases(l).to_vec();
    if lanes.len() != 5 || regs.is_empty() {
        return Vec::new();
    }
    let mut heads: Vec<(Vec<u64>, Vec<u64>)> = Vec::new();
    for &e in regs.iter().take(3) {
        heads.push((
            vec![e, lanes[0], lanes[1]],
            vec![lanes[2], lanes[3], lanes[4]],
        ));
    }
    heads.push((
        vec![lanes[2], lanes[3], lanes[4]],
        vec![regs[0], lanes[0], lanes[1]],
    ));
    let mut rest: Vec<u64> = other.packed_bases(r).to_vec();
    rest.extend(&regs);
    rest.extend(&lanes);
    rest.extend(side.packed_bases(DimName::WARP));
    let outs = side.out_dims();
    let mut out = Vec::new();
    for (low, sel) in &heads {
        let mut span = EchelonBasis::new();
        for &v in low.iter().chain(sel) {
            span.insert(v);
        }
        // The other side's lanes outside span(low, sel): at most 3 get a
        // choice of chunk.
        let xs: Vec<u64> = other
            .packed_bases(l)
            .iter()
            .copied()
            .filter(|&x| x != 0 && !span.contains(x))
            .take(3)
            .collect();
        for c in 0..4usize.pow(xs.len() as u32) {
            let mut order = low.clone();
            order.extend(sel);
            for (k, &x) in xs.iter().enumerate() {
                let j = (c >> (2 * k)) & 3;
                order.push(if j == 3 { x } else { x ^ sel[j] });
            }
            order.extend(other.packed_bases(l));
            order.extend(&rest);
            if let Ok(lay) = layout_from_order(&order, &outs) {
                if lay.is_invertible() {
                    out.push(lay);
                }
            }
        }
    }
    out
}
