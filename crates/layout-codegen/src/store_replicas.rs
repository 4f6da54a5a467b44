//! Which replica of a broadcast source stores: the predicate of each
//! shared-memory store, read off the plan, and the wavefronts the stores
//! then cost.
//!
//! A store [`Access`] writes, for thread `(lane, warp)`, the registers
//! `registers` at `address.eval(lane, warp)`. When lane bit `i` has a zero
//! address column (`address.lane[i] == 0`), the two lanes that differ only
//! in bit `i` write the same slots; the simulator proves every plan before
//! it is chosen, and it refuses two different elements stored in one slot
//! of one round ([`crate::error::CodegenError::Race`]), so the two lanes hold
//! the same elements: one of them is a replica of the other (a source
//! broadcast over lanes or warps). Only the thread whose bits at those
//! positions are all zero needs to store:
//!
//! ```text
//! stores(lane, warp)  ⇔  lane & lane_mask = 0  ∧  warp & warp_mask = 0
//! lane_mask = Σ { 2^i : address.lane[i] = 0 },  warp_mask likewise
//! ```
//!
//! A matrix store (`stmatrix`) is not predicated (both masks 0): its lanes
//! supply row addresses, so lanes cannot skip it, and the matrix programs
//! whose counts ncu matched on the H200 stored from every warp; a warp
//! predicate around `stmatrix` has not been measured.
//!
//! Skipping a replica never changes the data (the buffer ends the same) and
//! costs no wavefront that the unpredicated store did not: a phase keeps its
//! distinct words or is not issued at all. The wavefronts are counted by the
//! crate's one counter ([`crate::wavefront`]), phases of all lanes as in
//! [`crate::wavefront::predicated_access_wavefronts`] (32 banks); with
//! another bank count lanes are not predicated.
//!
//! ```
//! use layout_codegen::plan::{Access, Address};
//! use layout_codegen::store_replicas::StorePredicate;
//! // 32-bit stores whose address ignores lane bit 4 and warp bit 0: a source
//! // broadcast over both.
//! let a = Access {
//!     registers: vec![0],
//!     address: Address { constant: 0, lane: vec![1, 2, 4, 8, 0], warp: vec![0, 16] },
//!     matrix: None,
//! };
//! let p = StorePredicate::of(&a);
//! assert_eq!((p.lane_mask, p.warp_mask), (16, 1));
//! assert!(p.stores(15, 2) && !p.stores(16, 0) && !p.stores(0, 1));
//! ```

use crate::plan::{Access, SharedMemoryPlan};
use crate::wavefront::{matrix_wavefronts, phases_of, predicated_access_wavefronts};

/// The threads that execute one store (module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StorePredicate {
    /// Lane bits whose address column is zero (vector stores only).
    pub lane_mask: u64,
    /// Warp bits whose address column is zero.
    pub warp_mask: u64,
}

impl StorePredicate {
    /// The predicate of store `a` (module doc).
    pub fn of(a: &Access) -> StorePredicate {
        let zeros = |cols: &[u64]| {
            cols.iter()
                .enumerate()
                .filter(|x| *x.1 == 0)
                .fold(0, |m, (i, _)| m | 1 << i)
        };
        if a.matrix.is_some() {
            return StorePredicate::default();
        }
        StorePredicate {
            lane_mask: zeros(&a.address.lane),
            warp_mask: zeros(&a.address.warp),
        }
    }

    /// Whether thread `(lane, warp)` stores.
    pub fn stores(&self, lane: u64, warp: u64) -> bool {
        lane & self.lane_mask == 0 && warp & self.warp_mask == 0
    }

    /// Whether every thread stores.
    pub fn is_always(&self) -> bool {
        self.lane_mask == 0 && self.warp_mask == 0
    }
}

/// Wavefronts of one store `a` executed by CTA-local warp `warp` under its
/// [`StorePredicate`] (0 when the warp does not store), `lanes` lanes,
/// `bitwidth`-bit elements, `banks` banks.
pub fn store_wavefronts(a: &Access, lanes: u64, warp: u64, bitwidth: u32, banks: u64) -> u64 {
    let p = StorePredicate::of(a);
    if warp & p.warp_mask != 0 {
        return 0;
    }
    let bytes = u64::from(bitwidth.max(8)) / 8;
    let at = |l: u64| a.address.eval(l, warp) * bytes;
    if let Some(m) = a.matrix {
        let rows: Vec<u64> = (0..lanes).map(at).collect();
        return matrix_wavefronts(&rows, m.count).iter().sum();
    }
    let v = a.registers.len() as u64 * bytes;
    if banks == 32 {
        let starts: Vec<Option<u64>> = (0..lanes)
            .map(|l| (l & p.lane_mask == 0).then(|| at(l)))
            .collect();
        predicated_access_wavefronts(&starts, v).iter().sum()
    } else {
        let starts: Vec<u64> = (0..lanes).map(at).collect();
        phases_of(banks, &starts, v).iter().sum()
    }
}

/// Store wavefronts of a whole shared-memory plan under the predicates of
/// the module doc: every round's stores, every warp of `warps_per_cta ×
/// blocks` (each CTA's warps are `0 .. warps_per_cta`).
pub fn plan_store_wavefronts(
    plan: &SharedMemoryPlan,
    lanes: u64,
    warps_per_cta: u64,
    blocks: u64,
    banks: u64,
) -> u64 {
    let per_cta: u64 = plan
        .rounds
        .iter()
        .flat_map(|r| &r.stores)
        .map(|a| {
            (0..warps_per_cta)
                .map(|w| store_wavefronts(a, lanes, w, plan.bitwidth, banks))
                .sum::<u64>()
        })
        .sum();
    per_cta * blocks
}
