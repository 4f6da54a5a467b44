//! The enumerations every view is drawn from: for a distributed layout, the
//! image of every hardware slot and the holders of every element; for a
//! shared layout, the element stored at every memory slot.

use crate::{apply_named, check_shape, linearize, Result, ViewError, MAX_POINTS};
use linear_layout::{DimName, LinearLayout};

/// Which kind of layout, read from its input dims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutKind {
    /// Inputs among `register`, `lane`, `warp`, `block` (none is `offset`).
    Distributed,
    /// Inputs among `offset`, `block`, with `offset` present.
    Shared,
    /// Blackwell tensor memory: inputs among `row` (TMEM lane), `col`
    /// (TMEM column) and `block`, with `row` or `col` present. Triton's
    /// text views reject these; [`crate::svg::tmem_picture`] draws them.
    TensorMemory,
}

impl LayoutKind {
    /// The kind of `ll`, or [`ViewError::UnsupportedDims`] (for instance
    /// partitioned shared layouts, which Triton's views reject too).
    pub fn of(ll: &LinearLayout) -> Result<LayoutKind> {
        let names: Vec<DimName> = ll.in_dim_names().collect();
        let dist = [
            DimName::REGISTER,
            DimName::LANE,
            DimName::WARP,
            DimName::BLOCK,
        ];
        let shared = [DimName::OFFSET, DimName::BLOCK];
        let tmem = [DimName::ROW, DimName::COL, DimName::BLOCK];
        if names.contains(&DimName::OFFSET) {
            if names.iter().all(|d| shared.contains(d)) {
                return Ok(LayoutKind::Shared);
            }
        } else if names.contains(&DimName::ROW) || names.contains(&DimName::COL) {
            if names.iter().all(|d| tmem.contains(d)) {
                return Ok(LayoutKind::TensorMemory);
            }
        } else if names.iter().all(|d| dist.contains(d)) {
            return Ok(LayoutKind::Distributed);
        }
        Err(ViewError::UnsupportedDims(
            names.iter().map(|d| d.to_string()).collect(),
        ))
    }
}

/// Size of input dim `d` of `ll`, 1 when absent.
fn size_or_one(ll: &LinearLayout, d: DimName) -> u64 {
    if ll.has_in_dim(d) {
        ll.in_dim_size(d)
    } else {
        1
    }
}

/// A distributed layout enumerated in Triton's order.
///
/// Hardware slot `s = ((block·W + warp)·T + lane)·R + register` (register
/// fastest), where `W`, `T`, `R` are the numbers of warps, lanes and
/// registers. `element_of_slot[s]` is the row-major linear index of `L(s)`;
/// `holders[e]` lists the slots holding element `e` in increasing `s`.
#[derive(Debug, Clone)]
pub struct DistributedTable {
    /// The tensor shape (the layout's output sizes).
    pub shape: Vec<u64>,
    /// Number of CTAs (`block` size).
    pub blocks: u64,
    /// Warps per CTA.
    pub warps: u64,
    /// Lanes (threads) per warp.
    pub lanes: u64,
    /// Registers per thread.
    pub registers: u64,
    /// Linear element index of every slot.
    pub element_of_slot: Vec<u64>,
    /// Slots holding every element, increasing.
    pub holders: Vec<Vec<u32>>,
}

/// A hardware location of a distributed layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// CTA index.
    pub block: u64,
    /// Warp within the CTA.
    pub warp: u64,
    /// Lane within the warp.
    pub lane: u64,
    /// Register within the thread.
    pub register: u64,
}

impl DistributedTable {
    /// Enumerates `ll` (distributed, output sizes equal to `shape`).
    pub fn new(ll: &LinearLayout, shape: &[u64]) -> Result<DistributedTable> {
        check_shape(ll, shape)?;
        if LayoutKind::of(ll)? != LayoutKind::Distributed {
            return Err(ViewError::WrongKind(
                "expected a distributed layout (register/lane/warp/block)".into(),
            ));
        }
        let elements = ll.total_out_dim_size();
        let slots = ll.total_in_dim_size();
        if elements > MAX_POINTS {
            return Err(ViewError::TooLarge {
                what: "tensor elements",
                count: elements,
            });
        }
        if slots > MAX_POINTS {
            return Err(ViewError::TooLarge {
                what: "hardware slots",
                count: slots,
            });
        }
        let blocks = size_or_one(ll, DimName::BLOCK);
        let warps = size_or_one(ll, DimName::WARP);
        let lanes = size_or_one(ll, DimName::LANE);
        let registers = size_or_one(ll, DimName::REGISTER);
        let mut element_of_slot = Vec::with_capacity(slots as usize);
        let mut holders = vec![Vec::new(); elements as usize];
        for b in 0..blocks {
            for w in 0..warps {
                for t in 0..lanes {
                    for r in 0..registers {
                        let coords = apply_named(
                            ll,
                            &[
                                (DimName::BLOCK, b),
                                (DimName::WARP, w),
                                (DimName::LANE, t),
                                (DimName::REGISTER, r),
                            ],
                        );
                        let e = linearize(&coords, shape);
                        holders[e as usize].push(element_of_slot.len() as u32);
                        element_of_slot.push(e);
                    }
                }
            }
        }
        Ok(DistributedTable {
            shape: shape.to_vec(),
            blocks,
            warps,
            lanes,
            registers,
            element_of_slot,
            holders,
        })
    }

    /// The hardware location of slot `s`.
    pub fn location(&self, s: u64) -> Location {
        Location {
            register: s % self.registers,
            lane: (s / self.registers) % self.lanes,
            warp: (s / (self.registers * self.lanes)) % self.warps,
            block: s / (self.registers * self.lanes * self.warps),
        }
    }

    /// Triton's thread id of a location: `lane + warp · lanes`.
    pub fn thread_id(&self, loc: Location) -> u64 {
        loc.lane + loc.warp * self.lanes
    }

    /// A location in words, as every read-out and legend of this crate
    /// writes it: `[block b ]warp w lane l register r (T<tid>:<r>)`, the
    /// block only when there are several CTAs (`tid` as in
    /// [`Self::thread_id`]).
    pub fn location_text(&self, l: Location) -> String {
        let b = if self.blocks > 1 {
            format!("block {} ", l.block)
        } else {
            String::new()
        };
        format!(
            "{b}warp {} lane {} register {} (T{}:{})",
            l.warp,
            l.lane,
            l.register,
            self.thread_id(l),
            l.register
        )
    }
}

/// A shared layout enumerated by memory slot.
///
/// As Triton's view: `S = elements / blocks` slots per CTA and memory slot
/// `p = block · S + offset` holds element `L(offset, block)`.
/// `element_of_slot[p]` is its row-major linear index. With a broadcast block
/// basis `S` is smaller than the `offset` size and only the first `S` offsets
/// of each CTA appear.
#[derive(Debug, Clone)]
pub struct SharedTable {
    /// The tensor shape.
    pub shape: Vec<u64>,
    /// Number of CTAs (`block` size).
    pub blocks: u64,
    /// Slots per CTA in Triton's view (`elements / blocks`).
    pub block_size: u64,
    /// Size of the `offset` input dim (the real per-CTA allocation).
    pub offsets: u64,
    /// Linear element index at every slot `p`.
    pub element_of_slot: Vec<u64>,
}

impl SharedTable {
    /// Enumerates `ll` (shared, output sizes equal to `shape`).
    pub fn new(ll: &LinearLayout, shape: &[u64]) -> Result<SharedTable> {
        check_shape(ll, shape)?;
        if LayoutKind::of(ll)? != LayoutKind::Shared {
            return Err(ViewError::WrongKind(
                "expected a shared layout (offset/block)".into(),
            ));
        }
        let elements = ll.total_out_dim_size();
        if elements > MAX_POINTS || ll.total_in_dim_size() > MAX_POINTS {
            return Err(ViewError::TooLarge {
                what: "memory slots",
                count: elements.max(ll.total_in_dim_size()),
            });
        }
        let blocks = size_or_one(ll, DimName::BLOCK);
        let offsets = size_or_one(ll, DimName::OFFSET);
        let block_size = elements / blocks;
        let mut element_of_slot = Vec::with_capacity((blocks * block_size) as usize);
        for b in 0..blocks {
            for o in 0..block_size {
                let coords = apply_named(ll, &[(DimName::BLOCK, b), (DimName::OFFSET, o)]);
                element_of_slot.push(linearize(&coords, shape));
            }
        }
        Ok(SharedTable {
            shape: shape.to_vec(),
            blocks,
            block_size,
            offsets,
            element_of_slot,
        })
    }
}
