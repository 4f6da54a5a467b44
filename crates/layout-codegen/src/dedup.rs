//! Duplicate elimination for stores and atomics (paper §5.1 "Broadcasting";
//! Triton's `getFreeVariableMasks` / `emitRedundantThreadPredicate` /
//! `actionRemoveBroadcastedRegs`).
//!
//! For a layout `L` over hardware dims `register, lane, warp, block` (in
//! that order), [`LinearLayout::free_variable_masks`] marks, per dim, the
//! input bits whose basis lies in the span of the *earlier* bases (register
//! bits first, bit 0 first). The other bits (the pivots) are linearly
//! independent and span the image, so restricted to hardware coordinates
//! with every free bit 0, `L` is a bijection onto its image: each element is
//! held by exactly one such *representative* `(block, warp, lane,
//! register)`. A store plan therefore
//! * skips every register with a free register bit set, and
//! * predicates the others on `(laneId & lane_mask) == 0 && (warpId &
//!   warp_mask) == 0 && (blockId & block_mask) == 0`.

use linear_layout::{DimName, LinearLayout};
use serde::{Deserialize, Serialize};

/// A store plan that touches each element of the layout's image once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DedupStorePlan {
    /// Free bits of the register index (registers with one set are skipped).
    pub register_mask: u64,
    /// Free bits of the lane id (lanes with one set are predicated off).
    pub lane_mask: u64,
    /// Free bits of the warp id.
    pub warp_mask: u64,
    /// Free bits of the block id.
    pub block_mask: u64,
    /// Registers each thread stores, increasing.
    pub stored_registers: Vec<u64>,
    /// Registers each thread skips (replicas of stored ones).
    pub skipped_registers: Vec<u64>,
    /// Store instructions per thread without dedup (every register).
    pub instructions_per_thread_without_dedup: u64,
    /// Store instructions per thread with dedup (stored registers).
    pub instructions_per_thread_with_dedup: u64,
    /// Element stores performed by the whole grid without dedup
    /// (`registers · lanes · warps · blocks`).
    pub stores_without_dedup: u64,
    /// Element stores with dedup: `2^rank(L)`, the number of distinct
    /// elements.
    pub stores_with_dedup: u64,
}

impl DedupStorePlan {
    /// Whether the thread `(block, warp, lane)` is enabled by the predicate.
    pub fn thread_enabled(&self, block: u64, warp: u64, lane: u64) -> bool {
        lane & self.lane_mask == 0 && warp & self.warp_mask == 0 && block & self.block_mask == 0
    }

    /// Whether `(block, warp, lane, register)` performs a store.
    pub fn stores(&self, block: u64, warp: u64, lane: u64, register: u64) -> bool {
        register & self.register_mask == 0 && self.thread_enabled(block, warp, lane)
    }
}

/// Builds the plan from the free-variable masks of `layout`.
pub fn dedup_store_plan(layout: &LinearLayout) -> DedupStorePlan {
    let masks = layout.free_variable_masks();
    let mask = |d: DimName| masks.iter().find(|m| m.0 == d).map_or(0, |m| m.1);
    let register_mask = mask(DimName::REGISTER);
    let n_regs = layout.in_dim_size(DimName::REGISTER);
    let (stored, skipped): (Vec<u64>, Vec<u64>) = (0..n_regs).partition(|r| r & register_mask == 0);
    let total: u64 = [
        DimName::REGISTER,
        DimName::LANE,
        DimName::WARP,
        DimName::BLOCK,
    ]
    .iter()
    .map(|&d| layout.in_dim_size(d))
    .product();
    DedupStorePlan {
        register_mask,
        lane_mask: mask(DimName::LANE),
        warp_mask: mask(DimName::WARP),
        block_mask: mask(DimName::BLOCK),
        instructions_per_thread_without_dedup: n_regs,
        instructions_per_thread_with_dedup: stored.len() as u64,
        stored_registers: stored,
        skipped_registers: skipped,
        stores_without_dedup: total,
        stores_with_dedup: 1u64 << layout.rank(),
    }
}

/// Why a store plan failed the brute-force check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DedupCheckError {
    #[error("element {element:?} stored twice: by block {first:?} and {second:?} (block, warp, lane, register)")]
    /// Two threads store the same element.
    StoredTwice {
        /// The element (tensor coordinates).
        element: Vec<u64>,
        /// The first thread storing it: (block, warp, lane, register).
        first: [u64; 4],
        /// The second thread storing it: (block, warp, lane, register).
        second: [u64; 4],
    },
    #[error("element {element:?} (held by {holder:?}) is never stored")]
    /// An element no thread stores.
    NeverStored {
        /// The element (tensor coordinates).
        element: Vec<u64>,
        /// A thread holding it: (block, warp, lane, register).
        holder: [u64; 4],
    },
    #[error("layout has {bits} input bits, too many to enumerate (limit 24)")]
    /// The layout is too large to enumerate.
    TooLarge {
        /// The bit count found.
        bits: u32,
    },
    #[error("plan counts {what}: {claimed}, brute force {actual}")]
    /// A count of the plan differs from the brute-force count.
    WrongCount {
        /// What was compared or needed.
        what: &'static str,
        /// The value claimed.
        claimed: u64,
        /// The value found by enumeration.
        actual: u64,
    },
}

/// Enumerates every hardware coordinate: each element of the image must be
/// stored by exactly one coordinate the plan enables, and the counts must
/// match the enumeration.
pub fn check_dedup_plan(
    plan: &DedupStorePlan,
    layout: &LinearLayout,
) -> Result<(), DedupCheckError> {
    let bits = layout.total_in_dim_size_log2();
    if bits > 24 {
        return Err(DedupCheckError::TooLarge { bits });
    }
    let dims = [
        DimName::REGISTER,
        DimName::LANE,
        DimName::WARP,
        DimName::BLOCK,
    ];
    let size = |d: DimName| layout.in_dim_size(d);
    let mut owner: std::collections::HashMap<u64, [u64; 4]> = std::collections::HashMap::new();
    let mut holders: std::collections::HashMap<u64, [u64; 4]> = std::collections::HashMap::new();
    let mut performed = 0u64;
    for b in 0..size(dims[3]) {
        for w in 0..size(dims[2]) {
            for l in 0..size(dims[1]) {
                for r in 0..size(dims[0]) {
                    let e = crate::bank_conflicts::hw_apply(layout, r, l, w, b);
                    holders.entry(e).or_insert([b, w, l, r]);
                    if !plan.stores(b, w, l, r) {
                        continue;
                    }
                    performed += 1;
                    if let Some(first) = owner.insert(e, [b, w, l, r]) {
                        return Err(DedupCheckError::StoredTwice {
                            element: layout.unpack(e).to_vec(),
                            first,
                            second: [b, w, l, r],
                        });
                    }
                }
            }
        }
    }
    let mut missing: Vec<(&u64, &[u64; 4])> = holders
        .iter()
        .filter(|(e, _)| !owner.contains_key(e))
        .collect();
    missing.sort();
    if let Some((&e, &holder)) = missing.first() {
        return Err(DedupCheckError::NeverStored {
            element: layout.unpack(e).to_vec(),
            holder,
        });
    }
    if plan.stores_with_dedup != performed {
        return Err(DedupCheckError::WrongCount {
            what: "stores with dedup",
            claimed: plan.stores_with_dedup,
            actual: performed,
        });
    }
    let all: u64 = dims.iter().map(|&d| size(d)).product();
    if plan.stores_without_dedup != all {
        return Err(DedupCheckError::WrongCount {
            what: "stores without dedup",
            claimed: plan.stores_without_dedup,
            actual: all,
        });
    }
    Ok(())
}
