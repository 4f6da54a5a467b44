//! Gathers: what a `tt.gather` costs in the layouts assigned to it, and
//! the layout that puts its gathered axis on one warp's lanes.
//!
//! ## The cost ([`gather_cycles`], [`gathers_cost`])
//! The engine's TTGIR is lowered by Triton, so a gather costs what
//! Triton's lowering of it costs ([`super::gather_lowering`]): warp
//! shuffles and selects when Triton's warp-local test holds for the
//! source's and the index's layouts, else the source through shared
//! memory; in cycles of one SM per warp, the plan cost model's units,
//! weighted by loop depth like a conversion.
//!
//! ## The lane layout ([`lane_layout`])
//! With the axis on registers, Triton shuffles every candidate register
//! of the column for every index register and selects among them (`R`
//! shuffles, `R − 1` selects each); with the axis on lanes, one shuffle
//! per index register reads it. The lane layout (Triton's
//! `efficient_layout` for a gather) gives the axis the lanes first
//! (`min(size, lanes)`), the remaining lanes and all warps to the other
//! dims, one element per thread along each dim. The engine weighs it,
//! with the conversions into it and back, against the index's own layout
//! ([`super::search`]).
//!
//! Measured on the H200 (2026-11-25, `bench/engine-gpu`): the gathers
//! left in the index's layout ran 0.80 to 0.90x Triton's lane layout
//! where Triton lowered them with 8 candidates per index register (fp16,
//! 32x32, one warp) or through shared memory (the source's lanes differ
//! from the index's off the axis), and 1.06x where it took 4 candidates
//! (fp32, 32x32): what this cost predicts (`tests/gather_lowering.rs`).

use super::gather_lowering::triton_gather;
use crate::anchors::row_major;
use crate::assignment::{Assignment, Layout};
use crate::cost::weighted;
use crate::error::Result;
use crate::ir::{OpId, OpKind, Program};
use hw_layouts::blocked::{Blocked, Cga};
use hw_layouts::Encoding;
use linear_layout::LinearLayout;

/// Cycles per warp of Triton's lowering of a gather along `axis` of
/// `bits`-bit elements, the source in `src`, the index in `idx` (module
/// doc).
pub fn gather_cycles(
    src: &LinearLayout,
    idx: &LinearLayout,
    axis: usize,
    bits: u32,
) -> Result<f64> {
    Ok(triton_gather(src, idx, axis, bits.clamp(8, 64))?.cycles())
}

/// The layouts gather `o` reads its source and its index in (after the
/// conversions at its operands), when both are known.
pub fn gather_layouts<'a>(
    p: &Program,
    a: &'a Assignment,
    o: OpId,
) -> Option<(&'a Layout, &'a Layout)> {
    let op = &p.ops[o];
    let at = |k: usize| {
        let v = *op.operands.get(k)?;
        a.uses.get(&(o, k)).or(a.layouts[v].as_ref())
    };
    Some((at(0)?, at(1)?))
}

/// How Triton lowers gather `o` in `a` (for `--explain`): its path and
/// counts ([`super::gather_lowering::TritonGather::describe`]).
pub fn describe(p: &Program, a: &Assignment, o: OpId) -> String {
    let op = &p.ops[o];
    let (OpKind::Gather { axis }, Some(&src)) = (&op.kind, op.operands.first()) else {
        return String::new();
    };
    let bits = p.values[src].ty.elem_bits().clamp(8, 64);
    gather_layouts(p, a, o)
        .and_then(|(s, i)| triton_gather(&s.ll, &i.ll, *axis, bits).ok())
        .map_or_else(String::new, |g| g.describe())
}

/// Every gather of `p` priced in the layouts it reads (Triton's lowering,
/// [`gather_cycles`]), loop-weighted.
pub fn gathers_cost(p: &Program, a: &Assignment) -> Result<f64> {
    let mut total = 0.0;
    for o in p.walk() {
        let op = &p.ops[o];
        let OpKind::Gather { axis } = op.kind else {
            continue;
        };
        let (Some(&src), Some(&r)) = (op.operands.first(), op.results.first()) else {
            continue;
        };
        let Some((s, i)) = gather_layouts(p, a, o) else {
            continue;
        };
        let bits = p.values[src].ty.elem_bits();
        total += weighted(gather_cycles(&s.ll, &i.ll, axis, bits)?, p.def_depth(r));
    }
    Ok(total)
}

/// The lane layout of a gather along `axis` with a source of `src_shape`
/// whose threads and warps are ordered by `src_order` (fastest first) and
/// an index of `idx_shape` (module doc), Triton's `efficient_layout`
/// (OptimizeGatherLayouts): `min(src_shape[axis], lanes)` lanes on the
/// axis, the remaining lanes to the other dims in `src_order`
/// (`min(size, left)` each), no warp on the axis and the warps to the other
/// dims in `src_order` (`min(size / lanes there, left)` each),
/// `sizePerThread` 1 off the axis and `max(src, idx size on the axis) /
/// lanes on it` along it; lanes and warps left over go to the axis
/// (broadcast there). Order: the axis, then the others in `src_order`.
/// The one encoding serves the source, the index and the result.
pub fn lane_encoding(
    src_shape: &[u64],
    idx_shape: &[u64],
    src_order: &[usize],
    axis: usize,
    num_warps: u64,
    lanes: u64,
) -> Encoding {
    let rank = src_shape.len();
    let others: Vec<usize> = src_order.iter().copied().filter(|&d| d != axis).collect();
    let mut tpw = vec![1u64; rank];
    tpw[axis] = src_shape[axis].clamp(1, lanes);
    let mut lanes_left = lanes / tpw[axis];
    for &d in &others {
        let t = src_shape[d].clamp(1, lanes_left);
        tpw[d] = t;
        lanes_left /= t;
    }
    let mut wpc = vec![1u64; rank];
    let mut warps_left = num_warps;
    for &d in &others {
        let w = (src_shape[d] / tpw[d]).clamp(1, warps_left.max(1));
        wpc[d] = w;
        warps_left /= w;
    }
    let mut spt = vec![1u64; rank];
    spt[axis] = (src_shape[axis].max(idx_shape[axis]) / tpw[axis]).max(1);
    tpw[axis] *= lanes_left.max(1);
    wpc[axis] *= warps_left.max(1);
    let mut order = vec![axis];
    order.extend(&others);
    Encoding::Blocked(Blocked {
        size_per_thread: spt,
        threads_per_warp: tpw,
        warps_per_cta: wpc,
        order,
        cga: Cga::default(),
    })
}

/// The thread order Triton's rule reads off a source layout: a blocked
/// layout's `order`, else row-major.
pub fn thread_order(l: &Layout, rank: usize) -> Vec<usize> {
    match &*l.encoding {
        Encoding::Blocked(b) if b.order.len() == rank => b.order.clone(),
        _ => row_major(rank),
    }
}

/// [`lane_encoding`] for a value of `shape`.
pub fn lane_layout(
    src_shape: &[u64],
    idx_shape: &[u64],
    src_order: &[usize],
    axis: usize,
    num_warps: u64,
    lanes: u64,
) -> Result<(Layout, Layout)> {
    let enc = lane_encoding(src_shape, idx_shape, src_order, axis, num_warps, lanes);
    Ok((
        Layout::new(enc.clone(), src_shape)?,
        Layout::new(enc, idx_shape)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(spt: [u64; 2], tpw: [u64; 2], wpc: [u64; 2], order: [usize; 2]) -> Encoding {
        Encoding::Blocked(Blocked {
            size_per_thread: spt.to_vec(),
            threads_per_warp: tpw.to_vec(),
            warps_per_cta: wpc.to_vec(),
            order: order.to_vec(),
            cga: Cga::default(),
        })
    }

    /// Triton's rule by hand: a 16x64 source and a 16x32 index along dim 1
    /// with 2 warps: 32 lanes on the axis (none left), both warps on dim
    /// 0 (16 rows / 1 lane each), `64 / 32 = 2` elements per thread along
    /// the axis (the oracle's `gather.sm90.w2.AXIS=1,DT=fp16,MNK=16x64x32`
    /// has this `efficient_layout`).
    #[test]
    fn lane_encoding_by_hand() {
        let e = lane_encoding(&[16, 64], &[16, 32], &[1, 0], 1, 2, 32);
        assert_eq!(e, blocked([1, 2], [1, 32], [2, 1], [1, 0]));
        // Axis 0 of 32x32 with 2 warps: 32 lanes on dim 0, the warps on dim 1.
        let e = lane_encoding(&[32, 32], &[32, 32], &[1, 0], 0, 2, 32);
        assert_eq!(e, blocked([1, 1], [32, 1], [1, 2], [0, 1]));
        // An 8-wide axis: 8 lanes on it, 4 on the rows; 8 warps on 4 rows of
        // 4 lanes cannot all fit: 1 warp on dim 0 (4 / 4), 8 left to the axis.
        let e = lane_encoding(&[4, 8], &[4, 8], &[1, 0], 1, 8, 32);
        assert_eq!(e, blocked([1, 1], [4, 8], [1, 8], [1, 0]));
    }
}
