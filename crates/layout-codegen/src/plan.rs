//! Conversion plans: what a conversion between two distributed layouts
//! does, as plain data (no code is emitted). [`crate::simulator`] executes
//! them.
//!
//! This module holds data only; it depends on no planner. Plans are made
//! by [`crate::planner::plan`] (every class, one cost scale), by
//! [`crate::choice`] (Triton's choice and the costed candidates), and by
//! the class planners ([`crate::shuffle`], [`crate::shuffle_rounds`],
//! [`crate::shared_conversion`], [`crate::partial`]).
//!
//! Conventions: register indices are the full register in-dim values of the
//! layouts (broadcast registers included); an [`Address`] is an *element*
//! offset in the scratch buffer (byte address = offset × bytes per element),
//! or a lane or register index, XOR-linear in the lane and warp ids plus a
//! constant:
//! `offset(lane, warp) = constant ⊕ ⨁_{i: bit i of lane} lane[i] ⊕
//! ⨁_{i: bit i of warp} warp[i]`.

use crate::packed_shuffle::WordProgram;
use crate::shuffle::program::WarpProgram;
pub use crate::tiling::MatrixInstruction;
use linear_layout::{gf2, LinearLayout};
use serde::Serialize;

/// An element offset, XOR-linear in lane and warp.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Address {
    /// The register-dependent constant part.
    pub constant: u64,
    /// Offset contributed by each lane bit.
    pub lane: Vec<u64>,
    /// Offset contributed by each warp bit.
    pub warp: Vec<u64>,
}

impl Address {
    /// The lane- and warp-independent address `c`.
    pub fn constant(c: u64) -> Address {
        Address {
            constant: c,
            lane: vec![],
            warp: vec![],
        }
    }

    /// Whether this maps every lane to itself (no warp part): a "shuffle"
    /// from one's own lane is a local register move.
    pub fn is_identity_lane(&self) -> bool {
        self.constant == 0
            && self.warp.iter().all(|&w| w == 0)
            && self.lane.iter().enumerate().all(|(i, &c)| c == 1 << i)
    }

    /// The element offset for `lane`, `warp`.
    pub fn eval(&self, lane: u64, warp: u64) -> u64 {
        let mut o = self.constant;
        for (i, &b) in self.lane.iter().enumerate() {
            if lane >> i & 1 == 1 {
                o ^= b;
            }
        }
        for (i, &b) in self.warp.iter().enumerate() {
            if warp >> i & 1 == 1 {
                o ^= b;
            }
        }
        o
    }
}

/// One shared-memory instruction, the same for every thread.
///
/// * Vector `ld/st.shared` (`matrix` is `None`): element `j` of the vector at
///   `address` is register `registers[j]`.
/// * `ldmatrix` / `stmatrix` (`matrix` is `Some`, see
///   [`MatrixInstruction`] for the PTX semantics): `address.eval(l, w)` is
///   the start of the 16-byte row that lane `l` supplies (row `l mod 8` of
///   matrix `l / 8`; lanes `≥ 8·count` supply none), and with `R = 32 /
///   bitwidth` elements per 32-bit operand, `registers[i·R + e]` is element
///   `e` (low half first) of the thread's operand for matrix `i`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Access {
    /// Registers, one per vector element, lowest address first (matrix
    /// instructions: see above).
    pub registers: Vec<u64>,
    /// Where the vector starts (aligned to its length), or the row address
    /// each lane supplies (16-byte aligned).
    pub address: Address,
    /// `Some` for an `ldmatrix` / `stmatrix` instruction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matrix: Option<MatrixInstruction>,
}

/// One round: a barrier, every store, a barrier, every load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Round {
    /// `st.shared` instructions (from source registers).
    pub stores: Vec<Access>,
    /// `ld.shared` instructions (into destination registers).
    pub loads: Vec<Access>,
}

/// A conversion through a swizzled shared-memory buffer.
#[derive(Clone, Debug, Serialize)]
pub struct SharedMemoryPlan {
    /// The swizzled layout of the *whole* CTA tile, in `linear` JSON form:
    /// `offset → tensor` with one offset per element of the tile (for a
    /// multi-CTA conversion, offset → CTA-local coordinates, see
    /// [`crate::shared_conversion::cta_local`]). It is the layout of the scratch buffer only when the
    /// plan has one round and moves no base: every round reuses one buffer
    /// of `scratch_elems` elements, and when the plan has `2^k > 1` rounds,
    /// `k` of the offset bases of `shared` (register bases of both sides)
    /// select the round instead: in round `r`, buffer offset `o` holds the
    /// element `shared(o')`, where `o'` has the bits of `o`, in order, at the
    /// other bit positions and the bits of `r` at those `k` positions. (With
    /// one round such bases, if any, sit above the others in the buffer:
    /// buffer offset bits are always a bit permutation of `shared`'s.)
    /// Plans from [`crate::shared_conversion::plan_shared_matrix`] with a given layout use it as the
    /// buffer unchanged.
    pub shared: serde_json::Value,
    /// The swizzled layout itself.
    #[serde(skip)]
    pub shared_layout: LinearLayout,
    /// Element bit width (sub-byte widths are not modelled).
    pub bitwidth: u32,
    /// Elements per lane per store / per load instruction.
    pub store_vec: u64,
    /// See `store_vec`.
    pub load_vec: u64,
    /// Scratch elements (one round).
    pub scratch_elems: u64,
    /// Scratch bytes.
    pub scratch_bytes: u64,
    /// The rounds (each reuses the scratch buffer).
    pub rounds: Vec<Round>,
    /// After the loads: `(dst register, copy of dst register)` for
    /// destination registers that are broadcast copies of a loaded one.
    pub copies: Vec<(u64, u64)>,
    /// Barriers executed (2 per round, the first round's leading one aside).
    pub barriers: u64,
    /// Whether every scratch element is written and read by one warp only,
    /// in every round (no element crosses warps through the buffer): then
    /// the barriers are warp barriers (`bar.warp.sync`, CUDA's
    /// `__syncwarp()`), which the cost model counts free, instead of CTA
    /// barriers. Set by the planner where [`crate::warp_private`] proves
    /// it; Triton's own plan keeps its CTA barriers.
    pub warp_private: bool,
    /// Analytic store conflicts (extra wavefronts per phase).
    pub store_conflicts: u64,
    /// Analytic load conflicts.
    pub load_conflicts: u64,
    /// The swizzle's paper lower bound (log2 wavefronts of the worse side).
    pub lower_bound_log2: u32,
    /// Why shared memory is used when the conversion's class is cheaper
    /// (see [`crate::shared_conversion::plan_via_shared_memory`]).
    pub note: Option<String>,
}

/// One `shfl.sync.idx` of a warp-shuffle plan: every lane `l` sends its
/// register `src_register.eval(l, 0)`; lane `l` reads the value sent by lane
/// `src_lane.eval(l, 0)` and, when `select` holds (or is absent), writes it
/// to its register `dst_register.eval(l, 0)`. Lane-dependent register
/// choices (non-empty `lane` parts) cost selects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Shuffle {
    /// Register each lane sends, XOR-linear in the sending lane.
    pub src_register: Address,
    /// Source lane, XOR-linear in the reading lane.
    pub src_lane: Address,
    /// Register each lane writes, XOR-linear in the reading lane.
    pub dst_register: Address,
    /// `(columns, expected)`: keep the value iff the XOR of `columns[i]`
    /// over the set bits `i` of the lane id equals `expected`.
    pub select: Option<(Vec<u64>, u64)>,
}

impl Shuffle {
    /// Selects this shuffle costs per thread: a multiplexer over the
    /// registers a lane may send (`2^rank − 1`), one select per register a
    /// lane may write when that register depends on the lane, and the
    /// predicate.
    pub fn selects(&self) -> u64 {
        let n = |a: &Address| 1u64 << gf2::rank(&a.lane);
        let recv = n(&self.dst_register);
        (n(&self.src_register) - 1) + if recv > 1 { recv } else { 0 } + self.select.is_some() as u64
    }
}

/// Where a [`Regroup`] runs in a staged conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RegroupAt {
    /// `src → intermediate` by the regroup, then `intermediate → dst`.
    Before,
    /// `src → intermediate`, then `intermediate → dst` by the regroup.
    After,
}

/// An in-warp regroup of 8/16-bit elements between two layouts that differ
/// only in which bits are word bits ([`crate::regroup`]): register bit `i`
/// and lane bit `lane_bits[i]` exchanged (`i < k`, `2^k = 32 / bitwidth`
/// elements per word), run as a [`WordProgram`] on consecutive words
/// (word `j` holds registers `2^k·j ..`, the lowest at bit 0): per group of
/// `2^k` words, `2^k − 1` `shfl.sync.bfly` and `2k·2^k` `prmt`.
#[derive(Clone, Debug, Serialize)]
pub struct Regroup {
    /// Before or after the word-level stage.
    pub at: RegroupAt,
    /// Element bit width (8 or 16).
    pub bitwidth: u32,
    /// The lane bit exchanged with register bit `i`.
    pub lane_bits: Vec<u32>,
    /// The layout between the stages, in `linear` JSON form: the regroup's
    /// output (`Before`) or input (`After`).
    pub intermediate: serde_json::Value,
    /// The same layout.
    #[serde(skip)]
    pub intermediate_layout: LinearLayout,
    /// The regroup as shuffles and byte permutes with per-lane selectors.
    pub program: WordProgram,
}

impl Regroup {
    /// A regroup at `at` through `intermediate` by `program`.
    pub fn new(
        at: RegroupAt,
        lane_bits: Vec<u32>,
        intermediate: LinearLayout,
        program: WordProgram,
    ) -> Regroup {
        Regroup {
            at,
            bitwidth: program.bitwidth,
            lane_bits,
            intermediate: intermediate.bases_json(),
            intermediate_layout: intermediate,
            program,
        }
    }
}

/// A conversion plan.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConversionPlan {
    /// Nothing to do: every destination register already holds its element.
    NoOp {
        /// Registers per thread.
        registers: u64,
    },
    /// Destination register `i` takes source register `src_register[i]`.
    RegisterPermutation {
        /// Source register per destination register.
        src_register: Vec<u64>,
    },
    /// Within each warp, by shuffles (then selects).
    WarpShuffle {
        /// The shuffles, in order (they only read source registers).
        shuffles: Vec<Shuffle>,
    },
    /// Within each warp, by a straight-line warp program
    /// ([`crate::shuffle::WarpProgram`]: `shfl.sync` idx/bfly, `selp`,
    /// packing of sub-32-bit elements with `prmt`, over SSA value slots;
    /// slot `r < num_inputs` starts as source register `r`, destination
    /// register `i` ends in slot `outputs[i]`). Every warp of every CTA runs
    /// the same program. Plan JSON: `{"kind": "warp_program", "lanes", "bitwidth",
    /// "num_inputs", "num_slots", "instrs", "outputs"}`; its class
    /// ([`ConversionPlan::kind_name`]) is `"shuffle"`, as for `WarpShuffle`.
    WarpProgram(Box<WarpProgram>),
    /// Through shared memory.
    SharedMemory(Box<SharedMemoryPlan>),
}

impl ConversionPlan {
    /// The class name used in JSON.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ConversionPlan::NoOp { .. } => "noop",
            ConversionPlan::RegisterPermutation { .. } => "register",
            ConversionPlan::WarpShuffle { .. } | ConversionPlan::WarpProgram(_) => "shuffle",
            ConversionPlan::SharedMemory(_) => "shared",
        }
    }
}
