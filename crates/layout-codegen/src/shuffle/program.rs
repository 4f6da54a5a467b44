//! The warp-program IR: straight-line, warp-uniform code over SSA value
//! slots (`shfl.sync` idx/bfly, `selp`, packing of sub-32-bit values), and
//! its instruction counts.

use linear_layout::gf2;
use serde::{Deserialize, Serialize};

/// A value slot of a [`WarpProgram`] (one SSA value per lane).
pub type Slot = usize;

/// An affine map on lane ids: `f(l) = constant ⊕ XOR_{k : bit k of l} bases[k]`
/// (bit 0 of `l` is the lowest).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneMap {
    /// Image of lane bit `k`.
    pub bases: Vec<u32>,
    /// XOR constant.
    pub constant: u32,
}

impl LaneMap {
    /// The identity on `n_bits` lane bits.
    pub fn identity(n_bits: u32) -> Self {
        LaneMap {
            bases: (0..n_bits).map(|k| 1 << k).collect(),
            constant: 0,
        }
    }

    /// `f(lane)`.
    pub fn apply(&self, lane: u32) -> u32 {
        // Each basis is a lane (below 32), so the XOR fits in u32.
        self.constant ^ gf2::xor_columns(&self.bases, lane.into()) as u32
    }

    /// Whether `f(l) = l` for every lane.
    pub fn is_identity(&self) -> bool {
        self.constant == 0 && self.bases.iter().enumerate().all(|(k, &b)| b == 1 << k)
    }
}

/// A warp-uniform predicate on the lane id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LanePredicate {
    /// `popcount(laneId & mask)` is odd (for a single-bit mask: that bit of
    /// the lane id is set).
    Parity {
        /// The lane-id bits (xor mask or parity mask).
        mask: u32,
    },
    /// `XOR_{k : bit k of laneId} bases[k] == value`: a linear function of
    /// the lane id equals a constant.
    Equals {
        /// Image of each lane-id bit.
        bases: Vec<u64>,
        /// The constant compared with.
        value: u64,
    },
}

impl LanePredicate {
    /// Evaluates the predicate for one lane.
    pub fn eval(&self, lane: u32) -> bool {
        match self {
            LanePredicate::Parity { mask } => (lane & mask).count_ones() % 2 == 1,
            LanePredicate::Equals { bases, value } => {
                gf2::xor_columns(bases, lane.into()) == *value
            }
        }
    }
}

/// Which lane a shuffle reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ShflMode {
    /// `shfl.sync.bfly`: lane `l` reads lane `l ⊕ mask`.
    Xor {
        /// The lane-id bits (xor mask or parity mask).
        mask: u32,
    },
    /// `shfl.sync.idx`: lane `l` reads lane `src_lane(l)`.
    Idx {
        /// The source lane as an affine map of the reading lane.
        src_lane: LaneMap,
    },
}

impl ShflMode {
    /// The lane whose value lane `lane` receives.
    pub fn source_lane(&self, lane: u32) -> u32 {
        match self {
            ShflMode::Xor { mask } => lane ^ mask,
            ShflMode::Idx { src_lane } => src_lane.apply(lane),
        }
    }
}

/// One warp instruction; every lane executes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WarpInstr {
    /// `dst = src` (SSA renaming; free).
    Copy {
        /// The slot written.
        dst: Slot,
        /// The slot read.
        src: Slot,
    },
    /// `dst = shfl(src)`: lane `l` receives the `src` slot of the lane chosen
    /// by `mode`. The value must fit in 32 bits.
    Shuffle {
        /// The slot written.
        dst: Slot,
        /// The slot read.
        src: Slot,
        /// Which lane is read.
        mode: ShflMode,
    },
    /// `dst = cond(laneId) ? if_true : if_false` (`selp`).
    Select {
        /// The slot written.
        dst: Slot,
        /// The lane predicate.
        cond: LanePredicate,
        /// The slot taken where the predicate holds.
        if_true: Slot,
        /// The slot taken elsewhere.
        if_false: Slot,
    },
    /// Packs sub-32-bit values into one word, `parts[0]` in the low bits
    /// (`prmt` / bitcast).
    Pack {
        /// The slot written.
        dst: Slot,
        /// The slots packed, low part first.
        parts: Vec<Slot>,
    },
    /// Splits a packed word back into its parts (low part first).
    Unpack {
        /// The slots written, low part first.
        dsts: Vec<Slot>,
        /// The slot read.
        src: Slot,
    },
}

/// Straight-line warp-uniform code for one conversion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpProgram {
    /// Lanes per warp.
    pub lanes: u32,
    /// Element bitwidth.
    pub bitwidth: u32,
    /// Slots `0..num_inputs` hold source registers `0..num_inputs`.
    pub num_inputs: usize,
    /// Total number of slots.
    pub num_slots: usize,
    /// The code.
    pub instrs: Vec<WarpInstr>,
    /// Slot holding destination register `i` (all registers, replicas too).
    pub outputs: Vec<Slot>,
}

/// Instruction counts of a program (per warp, i.e. per thread).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleCost {
    /// `shfl.sync` instructions.
    pub shuffles: usize,
    /// `selp` instructions.
    pub selects: usize,
    /// Pack + unpack operations (`prmt` / bitcasts).
    pub prmt: usize,
}

impl WarpProgram {
    /// The program with no instructions and no outputs yet for `lanes`-lane
    /// warps of `bitwidth`-bit elements: slots `0..num_inputs` hold the
    /// source registers and are the only slots.
    pub fn new(lanes: u32, bitwidth: u32, num_inputs: usize) -> Self {
        WarpProgram {
            lanes,
            bitwidth,
            num_inputs,
            num_slots: num_inputs,
            instrs: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// Counts the instructions (copies are free).
    pub fn cost(&self) -> ShuffleCost {
        let mut c = ShuffleCost::default();
        for i in &self.instrs {
            match i {
                WarpInstr::Copy { .. } => {}
                WarpInstr::Shuffle { .. } => c.shuffles += 1,
                WarpInstr::Select { .. } => c.selects += 1,
                WarpInstr::Pack { .. } | WarpInstr::Unpack { .. } => c.prmt += 1,
            }
        }
        c
    }

    pub(super) fn new_slot(&mut self) -> Slot {
        self.num_slots += 1;
        self.num_slots - 1
    }

    pub(super) fn push(&mut self, make: impl FnOnce(Slot) -> WarpInstr) -> Slot {
        let s = self.new_slot();
        self.instrs.push(make(s));
        s
    }
}
