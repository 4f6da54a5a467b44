//! Which barrier a shared-memory plan needs: a CTA barrier (`bar.sync`),
//! or only a warp barrier when the scratch buffer is *warp-private*.
//!
//! ## The rule
//! A plan's stores and loads are warp-wide instructions whose element
//! addresses are XOR-linear in the lane and the warp
//! ([`crate::plan::Address`]). The *footprint* of warp `w` in a round is
//! the set of scratch elements that any lane of `w` stores or loads in it:
//! a vector access of `n` registers covers `address .. address + n`, an
//! `ldmatrix`/`stmatrix` the 16-byte row each supplying lane names (lanes
//! below `8 · count`). Every lane is counted, also the lanes a store of a
//! broadcast source skips, so the footprint can only be too large.
//!
//! When the footprints of the warps of a CTA, over all rounds together,
//! are pairwise disjoint, no warp reads what another wrote, and none
//! overwrites what another still reads (rounds and calls reuse one buffer,
//! each warp its own part of it; a part one warp uses in one round and
//! another warp in the next would need a CTA barrier between them). Ordering the lanes of each warp then suffices:
//! `bar.warp.sync` (CUDA's `__syncwarp()`, which orders the shared-memory
//! accesses of the lanes it joins) in place of every `bar.sync`. The cost
//! model counts warp barriers free ([`crate::cost`]); the simulator proves
//! such a plan with one scratch buffer per warp
//! ([`crate::simulator::simulate`]), so an element that crosses warps
//! fails it. Conversions that move an element between warps, or whose
//! source is replicated across warps (one replica stores, the others'
//! warps load it), are never warp-private.
//!
//! Measured on an H200 (2026-11-29, `bench/gpu/tools/time_subset.sh`,
//! results under `bench/gpu/results/2026-11-29-h200/warp_sync/`): six
//! in-warp conversions through shared memory ran 0.5–11% faster with
//! `__syncwarp()` than with `__syncthreads()`.
//!
//! ```
//! use layout_codegen::planner::{plan, Target};
//! use hw_layouts::Encoding;
//! let l = |t: &str| Encoding::parse(t).unwrap().to_linear_layout(&[64, 64]).unwrap();
//! // Rows of each warp stay in the warp: transposed inside each warp.
//! let src = l("#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>");
//! let dst = l("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 4}>");
//! let p = plan(&src, &dst, 8, &Target::SM90)?;
//! let shared = p.lowering.whole().and_then(|w| match w {
//!     layout_codegen::plan::ConversionPlan::SharedMemory(s) => Some(s),
//!     _ => None,
//! });
//! assert!(shared.is_some_and(|s| s.warp_private));
//! assert_eq!(p.cost.barriers, 0);
//! # Ok::<(), layout_codegen::CodegenError>(())
//! ```

use crate::plan::{Access, SharedMemoryPlan};
use std::collections::HashMap;

/// Whether the footprints of the `warps` warps of `lanes` lanes of `plan`,
/// over all its rounds together, are pairwise disjoint (module doc).
pub fn is_warp_private(plan: &SharedMemoryPlan, lanes: u64, warps: u64) -> bool {
    let row = 128 / u64::from(plan.bitwidth.max(1));
    let mut owner: HashMap<u64, u64> = HashMap::new();
    plan.rounds
        .iter()
        .flat_map(|round| round.stores.iter().chain(&round.loads))
        .all(|a| {
            (0..warps)
                .all(|w| footprint(a, lanes, w, row).all(|e| *owner.entry(e).or_insert(w) == w))
        })
}

/// The elements one warp's lanes touch by access `a` (`row`: elements per
/// 16-byte matrix row).
fn footprint(a: &Access, lanes: u64, w: u64, row: u64) -> impl Iterator<Item = u64> + '_ {
    let (suppliers, len) = match &a.matrix {
        Some(m) => (lanes.min(8 * m.count), row),
        None => (lanes, a.registers.len() as u64),
    };
    (0..suppliers).flat_map(move |l| {
        let s = a.address.eval(l, w);
        s..s + len
    })
}
