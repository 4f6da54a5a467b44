//! Warp-shuffle plans for layout conversions that move data only across
//! registers and lanes (paper §5.4 "Intra-warp data exchange"; Triton's
//! `getWarpLayoutConvertDecomposition` / `transferWithinWarp`).
//!
//! # Model
//! A distributed layout `L` maps hardware coordinates `(register, lane, warp,
//! block)` to a logical element (packed: first out dim in the low bits).
//! Converting `src` to `dst` means: afterwards, register `r` of lane `l` in
//! warp `w` of block `b` must hold the element `dst(r, l, w, b)`, starting
//! from register `r'` of lane `l'` holding `src(r', l', w, b)`.
//!
//! A plan is a [`WarpProgram`]: straight-line, warp-uniform code over
//! numbered value *slots* (SSA values), with the instructions a warp has
//! (`shfl.sync.idx`, `shfl.sync.bfly` (xor), `selp`, packing of sub-32-bit
//! values into one 32-bit word). Slots `0..num_inputs` hold the source
//! registers. [`check_warp_program`] runs the program on every warp of the
//! layouts with registers holding tagged logical coordinates and compares
//! every destination register (replicas included) with `dst`.
//!
//! Four planners produce such programs:
//! * [`triton_shuffle_plan`]: Triton's factorisation `P = P_mixed ∘ P_lane ∘
//!   P_reg` of the conversion permutation (see [`warp_decomposition`]), then
//!   the *Ship* strategy (one mixed transposition, no lane permutation) or
//!   the *Swap* strategy. Needs distributed layouts (every basis a distinct
//!   power of two or zero).
//! * [`general_shuffle_plan`]: works for ANY conversion whose conversion map
//!   `C = dst⁻¹ ∘ src` (see [`linear_layout::LinearLayout::invert_and_compose`])
//!   is trivial over `warp` and `block`. For each destination register `d`,
//!   lane `l` needs source register `C_reg(d, 0) ⊕ M(l)` of source lane
//!   `C_lane(d, 0) ⊕ C_lane(0, l)`, where `M(l) = C_reg(0, l)` is linear. For
//!   each value `s` of the image of `M` the warp does one `shfl.idx` of
//!   register `C_reg(d, 0) ⊕ s` (a warp-uniform name) and lanes with
//!   `M(l) = s` keep the result (`selp`).
//! * [`paper_shuffle_plan`]: the paper's coset rounds (§5.4), one
//!   `shfl.idx` per round, `2^|R|` rounds.
//! * [`balanced_shuffle_plan`]: the general plan's terms with butterflies
//!   where the lanes that keep a term read one xor offset, and as many
//!   of them merged into one shuffle behind a sender's select as balances
//!   the shuffle pipe against the ALU (Triton's *Ship* is the all-merged
//!   one-bit case); also as a chain of one-bit exchanges.
//! * [`shuffle_plan`]: Triton's plan when it exists, otherwise the paper's,
//!   otherwise the general one.
//!
//! ```
//! use layout_codegen::shuffle::{check_warp_program, shuffle_plan, ShuffleStrategy};
//! use linear_layout::{DimName, LinearLayout};
//! let (reg, lane, d0) = (DimName::REGISTER, DimName::LANE, DimName::dim(0));
//! // src: register bit -> element 1, lanes -> elements 2..64 (bit 0 too).
//! let src = LinearLayout::identity_1d(2, reg, d0) * LinearLayout::identity_1d(32, lane, d0);
//! // dst: register bit and lane bit 0 swapped.
//! let dst = LinearLayout::new(
//!     vec![(reg, vec![vec![2]]), (lane, vec![vec![1], vec![4], vec![8], vec![16], vec![32]])],
//!     vec![(d0, 64)],
//!     true,
//! ).unwrap();
//! let plan = shuffle_plan(&src, &dst, 32).unwrap();
//! assert_eq!(plan.strategy, ShuffleStrategy::Ship); // one register<->lane transposition
//! assert_eq!((plan.cost.shuffles, plan.cost.selects), (1, 3));
//! check_warp_program(&plan.program, &src, &dst).unwrap();
//! ```

mod balanced;
mod check;
mod general;
mod paper;
pub(crate) mod program;
mod triton;

pub use crate::bank_conflicts::hw_apply;
pub use balanced::{balanced_shuffle_plan, balanced_shuffle_plans, BalancedPrograms};
pub use check::{check_warp_program, run_warp_program, Provenance};
pub use general::general_shuffle_plan;
pub use paper::paper_shuffle_plan;
pub use program::{LaneMap, LanePredicate, ShflMode, ShuffleCost, Slot, WarpInstr, WarpProgram};
pub use triton::{cvt_needs_warp_shuffle, triton_shuffle_plan, warp_decomposition};

use linear_layout::{DimName, LayoutError, LinearLayout};
use serde::{Deserialize, Serialize};
/// Which planner produced a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ShuffleStrategy {
    /// Only a register relabelling (no data movement).
    RegisterPermutation,
    /// Triton's *Ship*: one mixed transposition, trivial lane permutation:
    /// select, `shfl.bfly`, select per register pair.
    Ship,
    /// Triton's *Swap*: selects, one shuffle per register word, selects.
    Swap,
    /// [`paper_shuffle_plan`]: the paper's coset rounds (§5.4).
    PaperRounds,
    /// [`general_shuffle_plan`]: `shfl.idx` rounds per destination register.
    GeneralRounds,
    /// [`balanced_shuffle_plan`]: terms with merged butterflies, shuffles
    /// balanced against selects.
    Balanced,
}

/// Triton's factorisation of a register/lane conversion (bit permutation
/// `P` on the padded `register ⊕ lane` index bits, with `dst(P(x)) =
/// src(x)`): `P = P_mixed ∘ P_lane ∘ P_reg` (applied right to left).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpDecomposition {
    /// Register bits after removing broadcast registers and padding.
    pub n_reg_bits: u32,
    /// Lane bits.
    pub n_lane_bits: u32,
    /// `p_reg[i]`: register bit `i` moves to register bit `p_reg[i]`.
    pub p_reg: Vec<u32>,
    /// `p_lane[j]`: lane bit `j` moves to lane bit `p_lane[j]`.
    pub p_lane: Vec<u32>,
    /// Disjoint transpositions `(register bit, lane bit)`.
    pub mixed_transpositions: Vec<(u32, u32)>,
    /// log2 of the number of elements packed per 32-bit shuffle.
    pub n_pack: u32,
    /// Source register bits kept (non-zero bases), in order.
    pub src_kept_reg_bits: Vec<u32>,
    /// Destination register bits kept (non-zero bases), in order.
    pub dst_kept_reg_bits: Vec<u32>,
}

/// A warp-shuffle conversion plan: plain data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpShufflePlan {
    /// Which planner made it.
    pub strategy: ShuffleStrategy,
    /// Present for Triton's strategies.
    pub decomposition: Option<WarpDecomposition>,
    /// The warp program.
    pub program: WarpProgram,
    /// Its instruction counts.
    pub cost: ShuffleCost,
}

/// Why a plan could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShuffleError {
    #[error(transparent)]
    /// An error of the layout algebra.
    Layout(#[from] LayoutError),
    #[error("unsupported element bitwidth {0} (expected 8, 16 or 32)")]
    /// The element bit width is not supported.
    UnsupportedBitwidth(u32),
    #[error("source and destination disagree on {what}: src {src}, dst {dst}")]
    /// The two layouts disagree on something they must share.
    Mismatch {
        /// What was compared or needed.
        what: &'static str,
        /// The source side.
        src: String,
        /// The destination.
        dst: String,
    },
    #[error("the conversion moves data across '{dim}': not a register/lane-only conversion")]
    /// The data leaves the warp.
    NotWarpLocal {
        /// The hardware dim the data moves across.
        dim: DimName,
    },
    #[error("Triton's decomposition needs a bit permutation: {detail}")]
    /// The registers and lanes of the two layouts are not a bit permutation of each other.
    NotAPermutation {
        /// Why, in words.
        detail: String,
    },
    #[error("no linear round structure (paper §5.4) for this conversion: {detail}")]
    /// The paper's round structure does not exist for this conversion.
    NoRoundStructure {
        /// Why, in words.
        detail: String,
    },
}

/// Why a program failed the check; names the first wrong register.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WarpCheckError {
    #[error(transparent)]
    /// An error of the layout algebra.
    Layout(#[from] LayoutError),
    #[error("layouts do not fit the program: {0}")]
    /// The layouts do not fit the program.
    Setup(String),
    #[error("instruction {instr} uses slot {slot}, beyond the {num_slots} slots")]
    /// An instruction names a slot beyond the program.
    SlotOutOfRange {
        /// The instruction index.
        instr: usize,
        /// The slot.
        slot: Slot,
        /// The slots of the program.
        num_slots: usize,
    },
    #[error("instruction {instr} reads slot {slot} of lane {lane} before it is written")]
    /// An instruction reads a slot before it is written.
    Uninitialised {
        /// The instruction index.
        instr: usize,
        /// The lane.
        lane: u32,
        /// The slot.
        slot: Slot,
    },
    #[error("instruction {instr} moves a {bits}-bit word (limit 32)")]
    /// An instruction moves a word wider than 32 bits.
    WordTooWide {
        /// The instruction index.
        instr: usize,
        /// The bit count found.
        bits: u32,
    },
    #[error("instruction {instr} unpacks {found} parts from a word of {expected}")]
    /// An unpack splits a word into the wrong number of parts.
    BadUnpack {
        /// The instruction index.
        instr: usize,
        /// What was expected.
        expected: usize,
        /// What was found.
        found: usize,
    },
    #[error("shuffle {instr}: lane {lane} reads lane {src_lane}, outside the warp")]
    /// A shuffle reads a lane outside the warp.
    LaneOutOfRange {
        /// The instruction index.
        instr: usize,
        /// The lane.
        lane: u32,
        /// The lane read.
        src_lane: u32,
    },
    #[error("program has {found} outputs, destination has {expected} registers")]
    /// The program has a different number of outputs than the destination has registers.
    OutputCount {
        /// What was expected.
        expected: usize,
        /// What was found.
        found: usize,
    },
    #[error("block {block} warp {warp} lane {lane} register {register}: expected element {expected:?}, found {found:?}")]
    /// A destination register holds the wrong element.
    WrongValue {
        /// The block (CTA).
        block: u64,
        /// The warp.
        warp: u64,
        /// The lane.
        lane: u32,
        /// The register.
        register: u64,
        /// What was expected.
        expected: Vec<u64>,
        /// What was found.
        found: Option<Vec<u64>>,
    },
}

/// `C(register = r, lane = l)` of a conversion map `C` (every other in dim
/// 0): the `(register, lane)` it returns (0 for an absent out dim).
fn register_lane_image(c: &LinearLayout, r: u64, l: u64) -> Result<(u64, u64), LayoutError> {
    let ins: Vec<(DimName, u64)> = c
        .in_dim_names()
        .map(|d| {
            let v = if d == DimName::REGISTER {
                r
            } else if d == DimName::LANE {
                l
            } else {
                0
            };
            (d, v)
        })
        .collect();
    let out = c.apply(&ins)?;
    let get = |name: DimName| out.iter().find(|o| o.0 == name).map_or(0, |o| o.1);
    Ok((get(DimName::REGISTER), get(DimName::LANE)))
}

fn check_bitwidth(bitwidth: u32) -> Result<(), ShuffleError> {
    match bitwidth {
        8 | 16 | 32 => Ok(()),
        b => Err(ShuffleError::UnsupportedBitwidth(b)),
    }
}

fn check_same_shape(src: &LinearLayout, dst: &LinearLayout) -> Result<(), ShuffleError> {
    if src.out_dims() != dst.out_dims() {
        return Err(ShuffleError::Mismatch {
            what: "out dims",
            src: format!("{:?}", src.out_dims()),
            dst: format!("{:?}", dst.out_dims()),
        });
    }
    for d in [DimName::LANE, DimName::WARP, DimName::BLOCK] {
        if src.in_dim_size(d) != dst.in_dim_size(d) {
            return Err(ShuffleError::Mismatch {
                what: "lane/warp/block sizes",
                src: format!("{d}={}", src.in_dim_size(d)),
                dst: format!("{d}={}", dst.in_dim_size(d)),
            });
        }
    }
    if src.in_dim_size(DimName::LANE) > 1 << 16 {
        return Err(ShuffleError::Mismatch {
            what: "lane count (at most 2^16)",
            src: src.in_dim_size(DimName::LANE).to_string(),
            dst: dst.in_dim_size(DimName::LANE).to_string(),
        });
    }
    Ok(())
}

/// The conversion map `C = dst.invert_and_compose(src)` (destination
/// hardware → source hardware holding the same element), checked to be
/// trivial over `block` and `warp` (Triton's `minimalCvtLayout` would
/// quotient them away). Returned unchanged (all dims).
pub fn warp_local_conversion(
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<LinearLayout, ShuffleError> {
    check_same_shape(src, dst)?;
    let c = conversion_map(src, dst)?;
    for d in [DimName::BLOCK, DimName::WARP] {
        if c.has_in_dim(d) && !c.is_trivial_over(&[d])? {
            return Err(ShuffleError::NotWarpLocal { dim: d });
        }
    }
    Ok(c)
}

/// `dst.invert_and_compose(src)`: destination hardware → the source
/// hardware holding the same element (the algebra already handles the case
/// where Triton's identity-dim shortcut would fail).
pub fn conversion_map(src: &LinearLayout, dst: &LinearLayout) -> Result<LinearLayout, LayoutError> {
    // The algebra releases Triton's identity-dim shortcut when it would
    // leave the rest unsolvable, so no local fallback is needed.
    dst.invert_and_compose(src)
}

/// Triton's minimal conversion layout (`minimalCvtLayout`): starting from
/// `C = dst⁻¹ ∘ src`, quotient `block`, `warp`, `lane`, `register` (slowest
/// first) while `C` is the identity on them. Its in dims are the levels
/// that need data movement.
pub fn minimal_conversion(
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<LinearLayout, ShuffleError> {
    let mut c = conversion_map(src, dst)?;
    for d in [
        DimName::BLOCK,
        DimName::WARP,
        DimName::LANE,
        DimName::REGISTER,
    ] {
        if !c.has_in_dim(d) {
            continue;
        }
        match c.quotient(&[d]) {
            Some(q) => c = q,
            None => break,
        }
    }
    Ok(c)
}

/// Compresses the bits of `x` at positions `kept` (in order) into the low
/// bits.
fn compress(x: u64, kept: &[u32]) -> u64 {
    kept.iter()
        .enumerate()
        .fold(0, |acc, (k, &b)| acc | (x >> b & 1) << k)
}

/// Expands the low bits of `x` to positions `kept`.
fn expand(x: u64, kept: &[u32]) -> u64 {
    kept.iter()
        .enumerate()
        .fold(0, |acc, (k, &b)| acc | (x >> k & 1) << b)
}

fn nonzero_reg_bits(l: &LinearLayout) -> Vec<u32> {
    l.packed_bases(DimName::REGISTER)
        .iter()
        .enumerate()
        .filter(|(_, &c)| c != 0)
        .map(|(k, _)| k as u32)
        .collect()
}

/// Triton's plan if the decomposition exists, else the paper's coset plan
/// if it exists, else the general plan.
pub fn shuffle_plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<WarpShufflePlan, ShuffleError> {
    match triton_shuffle_plan(src, dst, bitwidth) {
        Ok(p) => Ok(p),
        Err(ShuffleError::NotAPermutation { .. }) => match paper_shuffle_plan(src, dst, bitwidth) {
            Ok(p) => Ok(p),
            Err(ShuffleError::NoRoundStructure { .. }) => general_shuffle_plan(src, dst, bitwidth),
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    }
}
