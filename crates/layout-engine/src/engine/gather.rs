//! Gathers: what a `tt.gather` costs in a given layout, and the layout
//! that keeps its gathered axis across one warp's lanes.
//!
//! ## The cost ([`gather_cycles`])
//! `layout_codegen::gather_cost::plan_gather` plans both lowerings of a
//! gather whose source, index and result share one layout `L` — warp
//! shuffles where the axis stays inside a warp (one `shfl.idx` per
//! candidate register along the axis, a compare and select for each
//! further one), else a round through shared memory — and costs them in
//! cycles of one SM per warp, the plan cost model's units; the cheaper
//! one is the gather's cost, weighted by loop depth like a conversion.
//!
//! ## The lane layout ([`lane_layout`])
//! With the axis on registers, every output element is picked among all
//! the registers along the axis (shuffles and selects grow with them);
//! with the axis on lanes, one shuffle per element reads it. The lane
//! layout (Triton's `efficient_layout` for a gather) gives the axis the
//! lanes first (`min(size, lanes)`), the remaining lanes and all warps to
//! the other dims, one element per thread along each dim. Measured on the
//! H200 (2026-11-25, `bench/engine-gpu`, cases 003, 018, 052, 053): the
//! gathers left in the index's layout ran 0.80 to 0.91x Triton's, which
//! converts into the lane layout and back.

use crate::anchors::row_major;
use crate::assignment::{Assignment, Layout};
use crate::cost::weighted;
use crate::error::{EngineError, Result};
use crate::ir::{OpKind, Program};
use hw_layouts::blocked::{Blocked, Cga};
use hw_layouts::Encoding;
use layout_codegen::gather_cost::plan_gather;
use linear_layout::LinearLayout;

/// Cycles per warp of a gather along `axis` of `bits`-bit elements with
/// source, index and result in `l` (see the module doc).
pub fn gather_cycles(l: &LinearLayout, axis: usize, bits: u32) -> Result<f64> {
    let c = plan_gather(l, axis, bits.clamp(8, 64)).map_err(|e| EngineError::Plan {
        value: String::new(),
        shape: crate::shape_ops::out_shape(l),
        message: format!("gather along axis {axis}: {e}"),
    })?;
    Ok(match c.shuffle {
        Some(s) if c.prefers_shuffles() => s,
        _ => c.shared(),
    })
}

/// Every gather of `p` priced in its index operand's layout, loop-weighted.
pub fn gathers_cost(p: &Program, a: &Assignment) -> Result<f64> {
    let mut total = 0.0;
    for o in p.walk() {
        let op = &p.ops[o];
        let OpKind::Gather { axis } = op.kind else {
            continue;
        };
        let (Some(&src), Some(&idx), Some(&r)) =
            (op.operands.first(), op.operands.get(1), op.results.first())
        else {
            continue;
        };
        let Some(l) = a.uses.get(&(o, 1)).or(a.layouts[idx].as_ref()) else {
            continue;
        };
        let bits = p.values[src].ty.elem_bits();
        total += weighted(gather_cycles(&l.ll, axis, bits)?, p.def_depth(r));
    }
    Ok(total + 0.0)
}

/// The lane layout of a gather of `shape` along `axis` (module doc).
pub fn lane_layout(shape: &[u64], axis: usize, num_warps: u64, lanes: u64) -> Result<Layout> {
    let rank = shape.len();
    let others: Vec<usize> = row_major(rank).into_iter().filter(|&d| d != axis).collect();
    let mut tpw = vec![1u64; rank];
    tpw[axis] = shape[axis].min(lanes).max(1);
    let mut left = lanes / tpw[axis];
    for &d in &others {
        let t = shape[d].min(left).max(1);
        tpw[d] = t;
        left /= t;
    }
    // Lanes beyond the tile replicate along the axis (or the first other dim).
    tpw[others.first().copied().unwrap_or(axis)] *= left;
    let mut wpc = vec![1u64; rank];
    let mut warps = num_warps;
    for &d in &others {
        let w = (shape[d] / tpw[d]).max(1).min(warps);
        wpc[d] = w;
        warps /= w;
    }
    wpc[others.first().copied().unwrap_or(axis)] *= warps;
    let mut order = vec![axis];
    order.extend(&others);
    let enc = Encoding::Blocked(Blocked {
        size_per_thread: vec![1; rank],
        threads_per_warp: tpw,
        warps_per_cta: wpc,
        order,
        cga: Cga::default(),
    });
    Layout::new(enc, shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lane layout of a 32x32 gather along dim 1 with one warp is
    /// Triton's `efficient_layout` of the oracle's record
    /// (`gather.sm80.w1.AXIS=1,...,MNK=32x32x32`: `sizePerThread = [1, 1],
    /// threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]`),
    /// and it gathers for less than the index's own blocked layout.
    #[test]
    fn lane_layout_is_tritons_and_cheaper() {
        let l = lane_layout(&[32, 32], 1, 1, 32).unwrap();
        assert_eq!(
            l.mlir(),
            "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>"
        );
        let idx = Layout::new(
            Encoding::Blocked(Blocked {
                size_per_thread: vec![1, 8],
                threads_per_warp: vec![8, 4],
                warps_per_cta: vec![1, 1],
                order: vec![1, 0],
                cga: Cga::default(),
            }),
            &[32, 32],
        )
        .unwrap();
        let lane = gather_cycles(&l.ll, 1, 16).unwrap();
        let regs = gather_cycles(&idx.ll, 1, 16).unwrap();
        assert!(lane < regs, "lane {lane} registers {regs}");
    }

    /// Warps never go along the gathered axis.
    #[test]
    fn warps_stay_off_the_axis() {
        let l = lane_layout(&[16, 64], 1, 2, 32).unwrap();
        let Encoding::Blocked(b) = &l.encoding else {
            panic!()
        };
        assert_eq!(b.warps_per_cta, vec![2, 1]);
        assert_eq!(b.threads_per_warp, vec![1, 32]);
    }
}
