//! Predicted cost of the two gather lowerings ([`crate::gather`]), to choose
//! between them before anything runs.
//!
//! Both costs are in cycles of one SM per warp, from the documented per-SM
//! throughputs of compute capability 9.0 (CUDA C++ Programming Guide,
//! "Arithmetic Instructions"): a warp shuffle delivers 32 results per cycle
//! (one warp instruction per cycle), 32-bit compare and select 64 each (one
//! `sr == c ? t : g` costs one cycle for a warp), and the shared-memory pipe
//! serves one wavefront (128 bytes) per cycle. Shuffles and selects run on
//! different pipes and overlap, so the busier pipe bounds the time (a
//! roofline, not a sum).
//!
//! * **Shuffles**: `max(shuffles, selects)` per thread (every candidate
//!   round is one `shfl.idx`; every further candidate one compare and one
//!   select).
//! * **Shared memory**: the store of the source, `⌈elements · bytes · 32 /
//!   128⌉` wavefronts per warp (the emitter vectorises and skips duplicates;
//!   this is that bound), plus the *expected* wavefronts of the loads when
//!   index values are uniform on the axis: for each index register of each
//!   warp, the lanes read `offset(c with c[axis] := 0) + v · stride` for
//!   independent uniform `v`, and a load takes as many wavefronts as the
//!   most distinct 4-byte words any one bank must serve (lanes reading the
//!   same word share it). The expectation is a mean over a fixed number of
//!   draws from a fixed-seed generator, so the prediction is deterministic.

use crate::bank_conflicts::hw_apply;
use crate::gather::{GatherSharedPlan, GatherShufflePlan};
use linear_layout::{DimName, LinearLayout};

/// Draws per index register and warp for the expected load wavefronts.
const DRAWS: u64 = 64;

/// Predicted cycles per warp of the two lowerings of one gather.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GatherCost {
    /// Warp shuffles: `max(shuffles, selects)` per thread (`None` when the
    /// gather is not warp-local).
    pub shuffle: Option<f64>,
    /// Shared memory: store wavefronts plus expected load wavefronts.
    pub shared_store: f64,
    /// Expected load wavefronts per warp (uniform index values).
    pub shared_load: f64,
}

impl GatherCost {
    /// Shared-memory total.
    pub fn shared(&self) -> f64 {
        self.shared_store + self.shared_load
    }

    /// Whether the shuffle lowering is predicted no slower (and exists).
    pub fn prefers_shuffles(&self) -> bool {
        self.shuffle.is_some_and(|s| s <= self.shared())
    }
}

/// A small fixed-seed generator (xorshift64*), so predictions repeat.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) % n.max(1)
    }
}

/// Wavefronts of one warp-wide shared load of the given byte addresses of
/// `bytes`-byte elements (32 banks of 4 bytes), served as one phase: the
/// most distinct words in one bank (an element wider than 4 bytes covers
/// consecutive words), counted by [`crate::wavefront::phase_wavefronts`].
///
/// ```
/// use layout_codegen::gather_cost::load_wavefronts;
/// // A column of a 32-word-wide fp32 tile: every lane in bank 0.
/// let col: Vec<u64> = (0..32).map(|l| 128 * l).collect();
/// assert_eq!(load_wavefronts(&col, 4), 32);
/// // A row: one word per bank.
/// let row: Vec<u64> = (0..32).map(|l| 4 * l).collect();
/// assert_eq!(load_wavefronts(&row, 4), 1);
/// ```
pub fn load_wavefronts(addresses: &[u64], bytes: u64) -> u64 {
    // One phase: a gather loads one element (at most 4 bytes) per lane.
    crate::wavefront::phase_wavefronts(addresses, bytes, 32)
}

/// The predicted costs of gathering along `axis` with the index tensor in
/// layout `idx` (one warp's view: `register`, `lane`, `warp`; `block` 0),
/// `bitwidth`-bit elements, the shuffle plan when the gather is warp-local.
pub fn gather_cost(
    idx: &LinearLayout,
    shared: &GatherSharedPlan,
    shuffle: Option<&GatherShufflePlan>,
    bitwidth: u32,
) -> GatherCost {
    let bytes = u64::from(bitwidth.max(8)) / 8;
    let regs = idx.in_dim_size(DimName::REGISTER);
    let lanes = idx.in_dim_size(DimName::LANE);
    let warps = idx.in_dim_size(DimName::WARP);
    let axis = shared.axis;
    let axis_size = shared.src_shape[axis];
    let stride = shared.strides[axis];
    let mut rng = Draw(0x9e37_79b9_7f4a_7c15);
    let mut load_total = 0u64;
    let mut addresses = Vec::with_capacity(lanes as usize);
    for w in 0..warps {
        for r in 0..regs {
            // The lanes' row-major offsets with the axis coordinate cleared.
            let base: Vec<u64> = (0..lanes)
                .map(|l| {
                    let c = idx.unpack(hw_apply(idx, r, l, w, 0));
                    c.iter()
                        .enumerate()
                        .filter(|&(k, _)| k != axis)
                        .map(|(k, &x)| x * shared.strides[k])
                        .sum::<u64>()
                })
                .collect();
            for _ in 0..DRAWS {
                addresses.clear();
                addresses.extend(
                    base.iter()
                        .map(|&o| (o + rng.below(axis_size) * stride) * bytes),
                );
                load_total += load_wavefronts(&addresses, bytes);
            }
        }
    }
    let shared_load = load_total as f64 / (DRAWS * warps.max(1)) as f64;
    let shared_store = ((regs * lanes * bytes) as f64 / 128.0).ceil();
    GatherCost {
        shuffle: shuffle.map(|p| p.shuffles.max(p.selects) as f64),
        shared_store,
        shared_load,
    }
}

/// The planner's choice for a gather along `axis` of `bitwidth`-bit data
/// with the source, the index and the result all in `layout`: both
/// lowerings planned ([`crate::gather::gather_shared_plan`], and
/// [`crate::gather::gather_shuffle_plan`] where the gather is warp-local)
/// and costed by [`gather_cost`]; the shuffle lowering is the choice iff
/// [`GatherCost::prefers_shuffles`]. Errors when even the shared-memory
/// lowering does not apply.
pub fn plan_gather(
    layout: &LinearLayout,
    axis: usize,
    bitwidth: u32,
) -> Result<GatherCost, crate::gather::GatherError> {
    let shared = crate::gather::gather_shared_plan(layout, layout, axis, bitwidth)?;
    let shuffle = crate::gather::gather_shuffle_plan(layout, layout, axis).ok();
    Ok(gather_cost(layout, &shared, shuffle.as_ref(), bitwidth))
}
