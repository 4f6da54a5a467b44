//! Reductions: what a `tt.reduce` costs in a given operand layout, and the
//! warp-local layout that keeps its reduced axis inside a warp.
//!
//! ## The levels of a reduction
//! For an operand layout `L: (register, lane, warp) → tensor` reduced
//! along `axis`, let `R` be `L` with the `axis` component of every basis
//! dropped ([`drop_dim`]: the result's layout before removing duplicates).
//! Hardware bits that `R` sends where `L` does not (the kernel of `R`
//! beyond that of `L`) hold partial results of one output element. Taken
//! level by level, with `rank_X(M)` the GF(2) rank of `M`'s bases of the
//! in dims up to `X`:
//!
//! - `d_reg  = rank_reg(L) − rank_reg(R)`: partials in one thread
//!   (combined in registers, free in the plan cost model);
//! - `d_lane = rank_lane(L) − rank_lane(R) − d_reg`: butterfly shuffle
//!   rounds inside the warp;
//! - `d_warp = rank_warp(L) − rank_warp(R) − d_reg − d_lane`: the partials
//!   live in `2^d_warp` warps, which only shared memory joins.
//!
//! ## The cost ([`reduce_cycles`]), in the plan cost model's units
//! Cycles of one SM per warp, as `layout_codegen::cost` counts a
//! conversion (one shared-memory wavefront or one `shfl.sync` a cycle,
//! [`BARRIER_COST`] a barrier), for `b`-byte results (at least 4: Triton
//! reduces in 32-bit registers), with `T = 2^rank_reg(R)` distinct
//! outputs per thread and `P = 2^rank_lane(R)` per warp:
//!
//! ```text
//! cycles = d_lane · T · ⌈b / 4⌉                          (shuffles)
//!        + [d_warp > 0] · ( ⌈P·b / 128⌉                    (store the warp's partials)
//!                         + BARRIER_COST
//!                         + ⌈2^d_warp · P·b / 128⌉ )       (load every warp's partials)
//! ```
//!
//! The second line is the shared-memory round Triton's reduce lowering
//! pays when the reduced axis crosses warps (store partials, barrier, load
//! them back), which a layout keeping the axis inside a warp avoids. Each
//! result of a reduce (argmax reduces two; a 1-D reduce gives a scalar)
//! pays once; the total
//! over a program ([`reductions_cost`]) is weighted by loop depth like a
//! conversion ([`weighted`]).

use crate::assignment::Assignment;
use crate::cost::weighted;
use crate::error::{EngineError, Result};
use crate::ir::{OpId, OpKind, Program};
use crate::shape_ops::drop_dim;
use layout_codegen::choice::BARRIER_COST;
use layout_codegen::cost::WAVEFRONT_BYTES;
use linear_layout::gf2::EchelonBasis;
use linear_layout::{DimName, LinearLayout};

/// Partials per level of a reduction of `L` along `axis` (see the module
/// doc): `(d_reg, d_lane, d_warp, rank_reg(R), rank_lane(R))`. `R`'s
/// columns are `L`'s packed columns with the bits of out dim `axis`
/// cleared (dropping an out dim's components leaves the other fields as
/// they are; where they sit in the packing does not change a rank).
fn levels(l: &LinearLayout, axis: usize) -> Result<[u32; 5]> {
    let Some(&(out, _)) = l.out_dims().get(axis) else {
        // `drop_dim` names the bad axis.
        drop_dim(l, axis)?;
        return Err(EngineError::Unsupported(format!(
            "reduce along axis {axis}"
        )));
    };
    let keep = !l.out_mask(&[out]);
    let mut ranks = [[0u32; 2]; 3];
    let (mut full, mut dropped) = (EchelonBasis::new(), EchelonBasis::new());
    let mut counts = [0u32; 2];
    for (level, d) in [DimName::REGISTER, DimName::LANE, DimName::WARP]
        .into_iter()
        .enumerate()
    {
        for &c in l.packed_bases(d) {
            counts[0] += u32::from(full.insert_if_independent(c));
            counts[1] += u32::from(dropped.insert_if_independent(c & keep));
        }
        ranks[level] = counts;
    }
    let kernel = |level: usize| ranks[level][0] - ranks[level][1];
    let d_reg = kernel(0);
    let d_lane = kernel(1) - kernel(0);
    let d_warp = kernel(2) - kernel(1);
    Ok([d_reg, d_lane, d_warp, ranks[0][1], ranks[1][1]])
}

/// Whether reducing `l` along `axis` needs partials of other warps (a
/// shared-memory round).
pub fn crosses_warps(l: &LinearLayout, axis: usize) -> bool {
    levels(l, axis).is_ok_and(|x| x[2] > 0)
}

/// Cycles per warp of one reduction of `l` along `axis` with `bits`-bit
/// results (see the module doc).
pub fn reduce_cycles(l: &LinearLayout, axis: usize, bits: u32) -> Result<f64> {
    let [_, d_lane, d_warp, t, p] = levels(l, axis)?;
    let bytes = u64::from(bits.div_ceil(8).max(4));
    let mut cycles = f64::from(d_lane) * (1u64 << t) as f64 * bytes.div_ceil(4) as f64;
    if d_warp > 0 {
        let per_warp = (1u64 << p) * bytes;
        cycles += per_warp.div_ceil(WAVEFRONT_BYTES) as f64
            + BARRIER_COST
            + (per_warp << d_warp).div_ceil(WAVEFRONT_BYTES) as f64;
    }
    Ok(cycles)
}

/// The weighted cost of every `tt.reduce` of `p` under assignment `a`
/// (each reduce priced in the layout its operand is seen in, weighted by
/// its loop depth).
pub fn reductions_cost(p: &Program, a: &Assignment) -> Result<f64> {
    let mut total = 0.0;
    for o in p.walk() {
        let op = &p.ops[o];
        let OpKind::Reduce { axis } = op.kind else {
            continue;
        };
        if p.in_combine_region(o) || op.operands.is_empty() {
            continue;
        }
        let Some(l) = a.uses.get(&(o, 0)).or(a.layouts[op.operands[0]].as_ref()) else {
            continue;
        };
        // A reduction of a 1-D tensor has a scalar result: it is priced too.
        for &r in &op.results {
            let bits = p.values[r].ty.elem_bits();
            total += weighted(reduce_cycles(&l.ll, axis, bits)?, p.def_depth(r));
        }
    }
    Ok(total + 0.0)
}

/// The operand layout `l` with the reduced `axis` moved inside the warp:
/// every warp basis with a component along `axis` trades places with a
/// register basis (else a lane basis) that has none and is not zero, so
/// the map keeps its bases (a bijection stays one) and only which
/// hardware bit carries them changes. `None` when `l` already reduces
/// inside a warp or no such exchange exists.
pub fn warp_local(l: &LinearLayout, axis: usize) -> Option<LinearLayout> {
    if !crosses_warps(l, axis) || !l.has_in_dim(DimName::WARP) {
        return None;
    }
    let mut all = l.all_bases();
    let find = |all: &[(DimName, Vec<Vec<u64>>)], d: DimName| all.iter().position(|(x, _)| *x == d);
    let w = find(&all, DimName::WARP)?;
    let warps = all[w].1.clone();
    for (i, wb) in warps.iter().enumerate() {
        if wb.get(axis).copied().unwrap_or(0) == 0 {
            continue;
        }
        let mut swapped = false;
        for d in [DimName::REGISTER, DimName::LANE] {
            let Some(k) = find(&all, d) else { continue };
            let pick = (0..all[k].1.len()).rev().find(|&j| {
                let b = &all[k].1[j];
                b.get(axis).copied().unwrap_or(0) == 0 && b.iter().any(|&c| c != 0)
            });
            if let Some(j) = pick {
                let other = std::mem::replace(&mut all[k].1[j], wb.clone());
                all[w].1[i] = other;
                swapped = true;
                break;
            }
        }
        if !swapped {
            return None;
        }
    }
    let out = LinearLayout::new(all, l.out_dims(), false).ok()?;
    (!crosses_warps(&out, axis)).then_some(out)
}

/// Whether the result of reduce `o` is broadcast back (through
/// `expand_dims`, `broadcast` and elementwise ops) to its operand's shape
/// and meets there an elementwise op: softmax's `x − max(x)`, layer norm's
/// `x − mean`. Such a reduce is where a warp-local operand layout can pay:
/// no shared-memory round, and the broadcast result already in the
/// operand's layout.
pub fn broadcast_back(p: &Program, uses: &[Vec<(OpId, usize)>], o: OpId) -> bool {
    let op = &p.ops[o];
    let Some(&src) = op.operands.first() else {
        return false;
    };
    let want = p.values[src].ty.tensor_shape().map(<[u64]>::to_vec);
    let mut stack: Vec<usize> = op.results.clone();
    let mut seen = 0;
    while let Some(v) = stack.pop() {
        seen += 1;
        if seen > 64 {
            return false;
        }
        for &(u, _) in &uses[v] {
            let user = &p.ops[u];
            let Some(&r) = user.results.first() else {
                continue;
            };
            match user.kind {
                OpKind::Elementwise
                    if p.values[r].ty.tensor_shape().map(<[u64]>::to_vec) == want =>
                {
                    return true;
                }
                OpKind::ExpandDims { .. } | OpKind::Broadcast | OpKind::Elementwise => {
                    stack.push(r)
                }
                _ => {}
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use hw_layouts::Encoding;

    /// [`levels`] by its definition: `R = drop_dim(L, axis)` built, each
    /// basis's components packed side by side into one bit row, ranks by
    /// Gaussian elimination.
    fn levels_by_definition(l: &LinearLayout, axis: usize) -> [u32; 5] {
        let r = drop_dim(l, axis).unwrap();
        let dims = [DimName::REGISTER, DimName::LANE, DimName::WARP];
        let mut ranks = [[0u32; 2]; 3];
        for (k, m) in [l, &r].into_iter().enumerate() {
            let bits: Vec<u32> = m
                .out_dims()
                .iter()
                .map(|&(d, _)| m.out_dim_size_log2(d))
                .collect();
            let mut rows: Vec<u128> = Vec::new();
            for (level, &d) in dims.iter().enumerate() {
                if m.has_in_dim(d) {
                    rows.extend(m.bases(d).iter().map(|b| {
                        b.iter()
                            .zip(&bits)
                            .fold(0u128, |acc, (&c, &w)| (acc << w) | u128::from(c))
                    }));
                }
                let mut rows = rows.clone();
                let mut rank = 0usize;
                for bit in (0..128).rev() {
                    let Some(k) = (rank..rows.len()).find(|&k| rows[k] >> bit & 1 == 1) else {
                        continue;
                    };
                    rows.swap(rank, k);
                    let pivot = rows[rank];
                    for (j, row) in rows.iter_mut().enumerate() {
                        if j != rank && *row >> bit & 1 == 1 {
                            *row ^= pivot;
                        }
                    }
                    rank += 1;
                }
                ranks[level][k] = rank as u32;
            }
        }
        let kernel = |level: usize| ranks[level][0] - ranks[level][1];
        [
            kernel(0),
            kernel(1) - kernel(0),
            kernel(2) - kernel(1),
            ranks[0][1],
            ranks[1][1],
        ]
    }

    /// The packed ranks of [`levels`] equal the definition's on every axis
    /// of blocked, mma, sliced and 11-D `#ttg.linear` layouts (the sort
    /// kernel's), broadcast ones included, and a bad axis is an error.
    #[test]
    fn levels_equal_their_definition() {
        let cases: Vec<LinearLayout> = vec![
            ll("#ttg.blocked<{sizePerThread = [16, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>", &[64, 64]),
            ll("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>", &[8, 256]),
            ll("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>", &[2, 16]),
            ll("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], instrShape = [16, 8]}>", &[64, 128]),
            ll("#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [2, 4, 4], warpsPerCTA = [2, 1, 4], order = [2, 1, 0]}>}>", &[16, 64]),
            ll("#ttg.linear<{register = [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0], [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]], lane = [[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]], warp = [[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]], block = []}>", &[2; 11]),
        ];
        let mut checked = 0;
        for l in &cases {
            for axis in 0..l.num_out_dims() {
                assert_eq!(
                    levels(l, axis).unwrap(),
                    levels_by_definition(l, axis),
                    "{l:?} axis {axis}"
                );
                checked += 1;
            }
            assert!(levels(l, l.num_out_dims()).is_err());
        }
        assert_eq!(checked, 21);
    }

    fn ll(text: &str, shape: &[u64]) -> LinearLayout {
        Encoding::parse(text)
            .unwrap()
            .to_linear_layout(shape)
            .unwrap()
    }

    /// Row sums of a `64 × 64` f32 tile on 4 warps, costs derived by
    /// hand from the layouts (comments below).
    #[test]
    fn cross_warp_reduction_pays_a_shared_memory_round() {
        // Warps on rows: threadsPerWarp [4, 8], sizePerThread [4, 8]:
        // per thread 4 rows x 8 cols; the 8 lanes along axis 1 are 3
        // shuffle rounds over 4 outputs per thread: 12 cycles.
        let rows = ll(
            "#ttg.blocked<{sizePerThread = [4, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
            &[64, 64],
        );
        assert!(!crosses_warps(&rows, 1));
        assert_eq!(reduce_cycles(&rows, 1, 32).unwrap(), 12.0);
        // Warps on columns: sizePerThread [16, 2], lanes [4, 8], warps
        // [1, 4]: 3 rounds over 16 outputs (48), then each warp holds
        // P = 64 row partials (256 bytes: 2 wavefronts), a barrier (4),
        // and loads 4 warps' partials (1024 bytes: 8): 48 + 2 + 4 + 8.
        let cols = ll(
            "#ttg.blocked<{sizePerThread = [16, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>",
            &[64, 64],
        );
        assert!(crosses_warps(&cols, 1));
        assert_eq!(reduce_cycles(&cols, 1, 32).unwrap(), 62.0);
        // Along axis 0 the roles swap: the column-warp layout reduces
        // rows in the warp (16 registers, 4 lanes: 2 rounds over 2
        // outputs per thread).
        assert_eq!(reduce_cycles(&cols, 0, 32).unwrap(), 4.0);
    }

    /// The warp-local layout keeps every basis, moves the warp bases off
    /// the reduced axis, and then reduces without shared memory.
    #[test]
    fn warp_local_moves_warp_bases_off_the_axis() {
        let cols = ll(
            "#ttg.blocked<{sizePerThread = [16, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>",
            &[64, 64],
        );
        let local = warp_local(&cols, 1).unwrap();
        assert!(!crosses_warps(&local, 1));
        assert!(local.is_surjective() && local.is_injective());
        for b in local.bases(DimName::WARP) {
            assert_eq!(b[1], 0, "{b:?}");
        }
        // Already local: nothing to do.
        assert!(warp_local(&cols, 0).is_none());
        // A 1-D reduction over all warps has no other axis to trade with.
        let flat = ll(
            "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>",
            &[512],
        );
        assert!(warp_local(&flat, 0).is_none());
    }
}
