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

/// The sizes of a distributed layout's hardware dims (1 for an absent dim)
/// and Triton's slot numbering over them: slot
/// `s = ((block·W + warp)·T + lane)·R + register`, register fastest. With
/// power-of-two sizes `s` is the concatenation of the input bits, register
/// bits lowest, then lane, warp and block bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HardwareSizes {
    /// Number of CTAs (`block` size).
    pub blocks: u64,
    /// Warps per CTA.
    pub warps: u64,
    /// Lanes (threads) per warp.
    pub lanes: u64,
    /// Registers per thread.
    pub registers: u64,
}

impl HardwareSizes {
    /// The hardware sizes of `ll` (1 for an absent dim).
    pub fn of(ll: &LinearLayout) -> HardwareSizes {
        HardwareSizes {
            blocks: size_or_one(ll, DimName::BLOCK),
            warps: size_or_one(ll, DimName::WARP),
            lanes: size_or_one(ll, DimName::LANE),
            registers: size_or_one(ll, DimName::REGISTER),
        }
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

/// The most holders one element may have for [`HolderSolver`]: the view
/// prints every holder of a cell, so a kernel of more than 12 dimensions
/// (4096 copies of each element) is refused rather than printed.
pub const MAX_HOLDERS: u64 = 1 << 12;

/// The holders of single elements of a distributed layout `L`, found by
/// solving `L(s) = e` over GF(2) instead of enumerating every slot, so that
/// a window of a layout far larger than [`MAX_POINTS`] costs only its cells.
///
/// Column `j` of the system is the row-major linear index of `L` applied to
/// input bit `j` of the slot numbering of [`HardwareSizes`] (register bits
/// lowest). Shapes are powers of two, so the row-major index of a
/// coordinate is the concatenation of its bits (last dim lowest) and `L`
/// is linear into it. The holders of `e` are the coset `s₀ ⊕ ker L` of one
/// solution `s₀`, listed in increasing `s` as [`DistributedTable::holders`]
/// lists them; an element outside the image has none.
#[derive(Debug, Clone)]
pub struct HolderSolver {
    columns: Vec<u64>,
    kernel: Vec<u64>,
    /// The layout's hardware sizes.
    pub sizes: HardwareSizes,
}

impl HolderSolver {
    /// The solver of `ll` (distributed, output sizes equal to `shape`).
    /// Errors on another kind of layout, on more than 64 input or output
    /// bits, or when an element has more than [`MAX_HOLDERS`] holders.
    pub fn new(ll: &LinearLayout, shape: &[u64]) -> Result<HolderSolver> {
        check_shape(ll, shape)?;
        if LayoutKind::of(ll)? != LayoutKind::Distributed {
            return Err(ViewError::WrongKind(
                "expected a distributed layout (register/lane/warp/block)".into(),
            ));
        }
        let sizes = HardwareSizes::of(ll);
        let in_bits: u32 = [sizes.registers, sizes.lanes, sizes.warps, sizes.blocks]
            .iter()
            .map(|n| n.trailing_zeros())
            .sum();
        let out_bits: u32 = shape.iter().map(|n| n.trailing_zeros()).sum();
        if in_bits > 64 || out_bits > 64 {
            return Err(ViewError::BadParameter(format!(
                "the layout has {in_bits} input and {out_bits} output bits; the limit is 64 each"
            )));
        }
        let mut columns = Vec::with_capacity(in_bits as usize);
        for (dim, size) in [
            (DimName::REGISTER, sizes.registers),
            (DimName::LANE, sizes.lanes),
            (DimName::WARP, sizes.warps),
            (DimName::BLOCK, sizes.blocks),
        ] {
            for i in 0..size.trailing_zeros() {
                let coords = apply_named(ll, &[(dim, 1u64 << i)]);
                columns.push(linearize(&coords, shape));
            }
        }
        let kernel = linear_layout::gf2::nullspace(&columns);
        if kernel.len() as u32 > MAX_HOLDERS.trailing_zeros() {
            return Err(ViewError::BadParameter(format!(
                "every element has 2^{} holders; the view prints at most {MAX_HOLDERS} per element",
                kernel.len()
            )));
        }
        Ok(HolderSolver {
            columns,
            kernel,
            sizes,
        })
    }

    /// The slots holding element `e` (row-major linear index), increasing.
    pub fn holders(&self, e: u64) -> Vec<u64> {
        let Some(s0) = linear_layout::gf2::solve(&self.columns, e) else {
            return Vec::new();
        };
        let mut out: Vec<u64> = (0..1u64 << self.kernel.len())
            .map(|combo| {
                linear_layout::gf2::bits(combo).fold(s0, |s, k| s ^ self.kernel[k as usize])
            })
            .collect();
        out.sort_unstable();
        out
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
    /// The slots holding element `e` (row-major linear index), increasing,
    /// as `u64`.
    pub fn holders_of(&self, e: u64) -> Vec<u64> {
        self.holders[e as usize]
            .iter()
            .map(|&s| u64::from(s))
            .collect()
    }

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

    /// The hardware sizes of the table's layout.
    pub fn sizes(&self) -> HardwareSizes {
        HardwareSizes {
            blocks: self.blocks,
            warps: self.warps,
            lanes: self.lanes,
            registers: self.registers,
        }
    }

    /// The hardware location of slot `s`.
    pub fn location(&self, s: u64) -> Location {
        self.sizes().location(s)
    }

    /// Triton's thread id of a location: `lane + warp · lanes`.
    pub fn thread_id(&self, loc: Location) -> u64 {
        self.sizes().thread_id(loc)
    }

    /// A location in words: see [`HardwareSizes::location_text`].
    pub fn location_text(&self, l: Location) -> String {
        self.sizes().location_text(l)
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
