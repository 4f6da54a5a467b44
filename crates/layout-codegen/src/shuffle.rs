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
//! Three planners produce such programs:
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

use linear_layout::{gf2, DimName, LayoutError, LinearLayout};
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
        self.bases
            .iter()
            .enumerate()
            .filter(|(k, _)| lane >> k & 1 == 1)
            .fold(self.constant, |acc, (_, &b)| acc ^ b)
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
    Parity { mask: u32 },
    /// `XOR_{k : bit k of laneId} bases[k] == value`: a linear function of
    /// the lane id equals a constant.
    Equals { bases: Vec<u64>, value: u64 },
}

impl LanePredicate {
    /// Evaluates the predicate for one lane.
    pub fn eval(&self, lane: u32) -> bool {
        match self {
            LanePredicate::Parity { mask } => (lane & mask).count_ones() % 2 == 1,
            LanePredicate::Equals { bases, value } => {
                bases
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| lane >> k & 1 == 1)
                    .fold(0, |acc, (_, &b)| acc ^ b)
                    == *value
            }
        }
    }
}

/// Which lane a shuffle reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ShflMode {
    /// `shfl.sync.bfly`: lane `l` reads lane `l ⊕ mask`.
    Xor { mask: u32 },
    /// `shfl.sync.idx`: lane `l` reads lane `src_lane(l)`.
    Idx { src_lane: LaneMap },
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
    Copy { dst: Slot, src: Slot },
    /// `dst = shfl(src)`: lane `l` receives the `src` slot of the lane chosen
    /// by `mode`. The value must fit in 32 bits.
    Shuffle {
        dst: Slot,
        src: Slot,
        mode: ShflMode,
    },
    /// `dst = cond(laneId) ? if_true : if_false` (`selp`).
    Select {
        dst: Slot,
        cond: LanePredicate,
        if_true: Slot,
        if_false: Slot,
    },
    /// Packs sub-32-bit values into one word, `parts[0]` in the low bits
    /// (`prmt` / bitcast).
    Pack { dst: Slot, parts: Vec<Slot> },
    /// Splits a packed word back into its parts (low part first).
    Unpack { dsts: Vec<Slot>, src: Slot },
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

    fn new_slot(&mut self) -> Slot {
        self.num_slots += 1;
        self.num_slots - 1
    }

    fn push(&mut self, make: impl FnOnce(Slot) -> WarpInstr) -> Slot {
        let s = self.new_slot();
        self.instrs.push(make(s));
        s
    }
}

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
    pub strategy: ShuffleStrategy,
    /// Present for Triton's strategies.
    pub decomposition: Option<WarpDecomposition>,
    pub program: WarpProgram,
    pub cost: ShuffleCost,
}

/// Why a plan could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShuffleError {
    #[error(transparent)]
    Layout(#[from] LayoutError),
    #[error("unsupported element bitwidth {0} (expected 8, 16 or 32)")]
    UnsupportedBitwidth(u32),
    #[error("source and destination disagree on {what}: src {src}, dst {dst}")]
    Mismatch {
        what: &'static str,
        src: String,
        dst: String,
    },
    #[error("the conversion moves data across '{dim}': not a register/lane-only conversion")]
    NotWarpLocal { dim: DimName },
    #[error("Triton's decomposition needs a bit permutation: {detail}")]
    NotAPermutation { detail: String },
    #[error("no linear round structure (paper §5.4) for this conversion: {detail}")]
    NoRoundStructure { detail: String },
}

/// Why a program failed the check; names the first wrong register.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WarpCheckError {
    #[error(transparent)]
    Layout(#[from] LayoutError),
    #[error("layouts do not fit the program: {0}")]
    Setup(String),
    #[error("instruction {instr} uses slot {slot}, beyond the {num_slots} slots")]
    SlotOutOfRange {
        instr: usize,
        slot: Slot,
        num_slots: usize,
    },
    #[error("instruction {instr} reads slot {slot} of lane {lane} before it is written")]
    Uninitialised { instr: usize, lane: u32, slot: Slot },
    #[error("instruction {instr} moves a {bits}-bit word (limit 32)")]
    WordTooWide { instr: usize, bits: u32 },
    #[error("instruction {instr} unpacks {found} parts from a word of {expected}")]
    BadUnpack {
        instr: usize,
        expected: usize,
        found: usize,
    },
    #[error("shuffle {instr}: lane {lane} reads lane {src_lane}, outside the warp")]
    LaneOutOfRange {
        instr: usize,
        lane: u32,
        src_lane: u32,
    },
    #[error("program has {found} outputs, destination has {expected} registers")]
    OutputCount { expected: usize, found: usize },
    #[error("block {block} warp {warp} lane {lane} register {register}: expected element {expected:?}, found {found:?}")]
    WrongValue {
        block: u64,
        warp: u64,
        lane: u32,
        register: u64,
        expected: Vec<u64>,
        found: Option<Vec<u64>>,
    },
}

/// `layout(register, lane, warp, block)` packed (absent in dims ignored, so
/// their value must be 0).
pub fn hw_apply(layout: &LinearLayout, reg: u64, lane: u64, warp: u64, block: u64) -> u64 {
    let vals: Vec<u64> = layout
        .in_dim_names()
        .map(|d| {
            if d == DimName::REGISTER {
                reg
            } else if d == DimName::LANE {
                lane
            } else if d == DimName::WARP {
                warp
            } else if d == DimName::BLOCK {
                block
            } else {
                0
            }
        })
        .collect();
    layout.apply_values(&vals)
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

/// Triton's `getWarpLayoutConvertDecomposition(src, dst, bitwidth)`.
///
/// 1. Drop zero register bases of both layouts, pad registers/lanes with
///    zero bases to equal sizes.
/// 2. `P` maps source bit `b` (register bits first, then lane bits) to the
///    destination bit with the same (non-zero) basis; bits zero in both are
///    fixed points; the other zero bits are paired in order.
/// 3. Walk the cycles of `P` starting from register bits; a cycle
///    `(.. r_m l_j .. l_k r_i ..)` is split into `(r_i l_j)` (a *mixed
///    transposition*), `r_m → r_i` in `P_reg` and `l_k → l_j` in `P_lane`.
/// 4. `n_pack = min(log2(clamp(32 / bitwidth, 1, 4)), n_reg_bits − m)`.
///
/// The transpositions are those of the cycle walk, before Triton's selector
/// fusion (`getTranspositionSelectors`), which may trade low register bits
/// of a transposition for high ones to emit `prmt` instead of `selp`; the
/// number of transpositions (the admission rule) is the same. The lowering
/// here packs along register bits outside the transpositions instead.
///
/// Fails (`NotAPermutation`) unless the register/lane bases of both layouts
/// are single bits matched one to one (distributed layouts), and
/// (`NotWarpLocal`) if the conversion leaves the warp.
pub fn warp_decomposition(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<WarpDecomposition, ShuffleError> {
    check_bitwidth(bitwidth)?;
    warp_local_conversion(src, dst)?;
    let src_kept = nonzero_reg_bits(src);
    let dst_kept = nonzero_reg_bits(dst);
    let n_r = src_kept.len().max(dst_kept.len());
    let n_l = src.in_dim_size_log2(DimName::LANE) as usize;
    let cols = |l: &LinearLayout, kept: &[u32]| -> Vec<u64> {
        let regs = l.packed_bases(DimName::REGISTER);
        let mut v: Vec<u64> = kept.iter().map(|&k| regs[k as usize]).collect();
        v.resize(n_r, 0);
        v.extend_from_slice(l.packed_bases(DimName::LANE));
        v
    };
    let s = cols(src, &src_kept);
    let t = cols(dst, &dst_kept);
    let n = n_r + n_l;
    let mut p: Vec<Option<usize>> = vec![None; n];
    let mut dst_used = vec![false; n];
    let (mut src_zero, mut dst_zero) = (Vec::new(), Vec::new());
    for b in 0..n {
        if s[b] == 0 && t[b] == 0 {
            p[b] = Some(b);
            dst_used[b] = true;
        } else if s[b] == 0 {
            src_zero.push(b);
        }
        if t[b] == 0 && s[b] != 0 {
            dst_zero.push(b);
        }
    }
    for b in 0..n {
        if s[b] == 0 {
            continue;
        }
        let Some(tb) = (0..n).find(|&tb| t[tb] == s[b] && !dst_used[tb]) else {
            return Err(ShuffleError::NotAPermutation {
                detail: format!(
                    "source basis {:#x} (bit {b}) is not a single destination register/lane basis",
                    s[b]
                ),
            });
        };
        dst_used[tb] = true;
        p[b] = Some(tb);
    }
    if src_zero.len() != dst_zero.len() {
        return Err(ShuffleError::NotAPermutation {
            detail: format!(
                "{} source zero bases vs {} destination zero bases",
                src_zero.len(),
                dst_zero.len()
            ),
        });
    }
    for (&a, &b) in src_zero.iter().zip(&dst_zero) {
        if dst_used[b] {
            return Err(ShuffleError::NotAPermutation {
                detail: format!("destination bit {b} used twice"),
            });
        }
        dst_used[b] = true;
        p[a] = Some(b);
    }
    let p: Vec<usize> = p.into_iter().map(|x| x.expect("filled")).collect();
    // Cycle walk.
    let is_reg = |b: usize| b < n_r;
    let mut p_reg: Vec<u32> = (0..n_r as u32).collect();
    let mut p_lane: Vec<u32> = (0..n_l as u32).collect();
    let mut mixed = Vec::new();
    let mut visited = vec![false; n];
    for start in 0..n {
        if visited[start] {
            continue;
        }
        let (mut reg_start, mut lane_start, mut lane_end) = (0usize, 0usize, 0usize);
        let mut cur = start;
        loop {
            visited[cur] = true;
            let next = p[cur];
            match (is_reg(cur), is_reg(next)) {
                (true, true) => p_reg[cur] = next as u32,
                (false, false) => p_lane[cur - n_r] = (next - n_r) as u32,
                (true, false) => {
                    reg_start = cur;
                    lane_start = next - n_r;
                }
                (false, true) => {
                    lane_end = cur - n_r;
                    let reg_end = next;
                    p_reg[reg_start] = reg_end as u32;
                    p_lane[lane_end] = lane_start as u32;
                    mixed.push((reg_end as u32, lane_start as u32));
                }
            }
            cur = next;
            if cur == start {
                break;
            }
        }
        let _ = lane_end;
    }
    let m = mixed.len() as u32;
    let n_pack_prelim = (32 / bitwidth).clamp(1, 4).trailing_zeros();
    let n_pack = n_pack_prelim.min(n_r as u32 - m);
    Ok(WarpDecomposition {
        n_reg_bits: n_r as u32,
        n_lane_bits: n_l as u32,
        p_reg,
        p_lane,
        mixed_transpositions: mixed,
        n_pack,
        src_kept_reg_bits: src_kept,
        dst_kept_reg_bits: dst_kept,
    })
}

/// Triton's admission rule `cvtNeedsWarpShuffle`: the minimal conversion
/// moves data across exactly registers and lanes, and the decomposition
/// (at bitwidth 32) has fewer than two mixed transpositions. `false` when
/// the decomposition does not exist.
pub fn cvt_needs_warp_shuffle(src: &LinearLayout, dst: &LinearLayout) -> bool {
    let Ok(c) = minimal_conversion(src, dst) else {
        return false;
    };
    let dims: Vec<DimName> = c.in_dim_names().collect();
    if dims != [DimName::REGISTER, DimName::LANE] {
        return false;
    }
    match warp_decomposition(src, dst, 32) {
        Ok(d) => d.mixed_transpositions.len() < 2,
        Err(_) => false,
    }
}

/// Lowers Triton's decomposition to a program (Ship or Swap strategy; a
/// pure register relabelling when there is nothing to move).
///
/// Values live on padded positions `(x, l)` (`x`: `n_reg_bits` compacted
/// register bits). After `P_reg` (renaming), words of `2^n_pack` elements
/// are packed along the lowest register bits not in a transposition. With
/// `v(l) = P_lane(l)` the *virtual* lane and transpositions `(i_t, j_t)`:
/// * stage 1 (sender): word `s` takes word `s ⊕ Σ_t v(l)_{j_t}·2^{i_t}`
///   (one `selp` per word per transposition);
/// * stage 2: word `s` is read from the lane with virtual id
///   `l ⊕ Σ_t s_{i_t}·2^{j_t}`, i.e. physical lane
///   `P_lane⁻¹(l) ⊕ P_lane⁻¹(mask)` (`shfl.bfly` when `P_lane` is trivial);
/// * stage 3 (receiver): word `s` takes word `s ⊕ Σ_t l_{j_t}·2^{i_t}`.
pub fn triton_shuffle_plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<WarpShufflePlan, ShuffleError> {
    let dec = warp_decomposition(src, dst, bitwidth)?;
    let n_r = dec.n_reg_bits;
    let lanes = src.in_dim_size(DimName::LANE) as u32;
    let n_src_regs = src.in_dim_size(DimName::REGISTER) as usize;
    let mut prog = WarpProgram {
        lanes,
        bitwidth,
        num_inputs: n_src_regs,
        num_slots: n_src_regs,
        instrs: Vec::new(),
        outputs: Vec::new(),
    };
    let n_src_kept = dec.src_kept_reg_bits.len() as u32;
    // cur[x]: slot holding the value at padded position x (after P_reg).
    let mut cur = vec![0usize; 1 << n_r];
    for x in 0..1u64 << n_r {
        let y = dec
            .p_reg
            .iter()
            .enumerate()
            .filter(|(i, _)| x >> i & 1 == 1)
            .fold(0u64, |acc, (_, &t)| acc | 1 << t);
        let orig = expand(x & ((1 << n_src_kept) - 1), &dec.src_kept_reg_bits);
        cur[y as usize] = orig as usize;
    }
    let p_lane_trivial = dec.p_lane.iter().enumerate().all(|(j, &t)| t == j as u32);
    let m = dec.mixed_transpositions.len();
    let strategy;
    if m == 0 && p_lane_trivial {
        strategy = ShuffleStrategy::RegisterPermutation;
    } else {
        // Pack bits: lowest register bits not in a transposition.
        let t_bits: Vec<u32> = dec.mixed_transpositions.iter().map(|t| t.0).collect();
        let pack_bits: Vec<u32> = (0..n_r)
            .filter(|b| !t_bits.contains(b))
            .take(dec.n_pack as usize)
            .collect();
        let word_bits: Vec<u32> = (0..n_r).filter(|b| !pack_bits.contains(b)).collect();
        let n_words = 1usize << word_bits.len();
        let n_parts = 1usize << pack_bits.len();
        let pos = |w: usize, p: usize| {
            (expand(w as u64, &word_bits) | expand(p as u64, &pack_bits)) as usize
        };
        let mut words: Vec<Slot> = (0..n_words)
            .map(|w| {
                if n_parts == 1 {
                    cur[pos(w, 0)]
                } else {
                    let parts = (0..n_parts).map(|p| cur[pos(w, p)]).collect();
                    prog.push(|dst| WarpInstr::Pack { dst, parts })
                }
            })
            .collect();
        // Transpositions in word-bit coordinates.
        let trans: Vec<(usize, u32)> = dec
            .mixed_transpositions
            .iter()
            .map(|&(i, j)| (word_bits.iter().position(|&b| b == i).expect("word bit"), j))
            .collect();
        // Inverse lane permutation as a map on lane ids.
        let mut p_lane_inv = vec![0u32; dec.p_lane.len()];
        for (j, &t) in dec.p_lane.iter().enumerate() {
            p_lane_inv[t as usize] = j as u32;
        }
        let p_lane_inv_map = LaneMap {
            bases: p_lane_inv.iter().map(|&j| 1 << j).collect(),
            constant: 0,
        };
        // Bit j of v(l) = P_lane(l) is lane bit P_lane⁻¹(j).
        let virt_bit_mask = |j: u32| 1u32 << p_lane_inv[j as usize];
        if m == 1 && p_lane_trivial {
            strategy = ShuffleStrategy::Ship;
            let (i, j) = trans[0];
            let cond = LanePredicate::Parity { mask: 1 << j };
            for w in 0..n_words {
                if w >> i & 1 == 1 {
                    continue;
                }
                let w1 = w | 1 << i;
                let (a, b) = (words[w], words[w1]);
                let send = prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: cond.clone(),
                    if_true: a,
                    if_false: b,
                });
                let recv = prog.push(|dst| WarpInstr::Shuffle {
                    dst,
                    src: send,
                    mode: ShflMode::Xor { mask: 1 << j },
                });
                words[w] = prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: cond.clone(),
                    if_true: recv,
                    if_false: a,
                });
                words[w1] = prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: cond.clone(),
                    if_true: b,
                    if_false: recv,
                });
            }
        } else {
            strategy = ShuffleStrategy::Swap;
            let stage = |prog: &mut WarpProgram, words: &mut Vec<Slot>, sender: bool| {
                for &(i, j) in &trans {
                    let mask = if sender { virt_bit_mask(j) } else { 1 << j };
                    let cond = LanePredicate::Parity { mask };
                    let old = words.clone();
                    for w in 0..n_words {
                        let w1 = w ^ 1 << i;
                        let (a, b) = (old[w], old[w1]);
                        words[w] = prog.push(|dst| WarpInstr::Select {
                            dst,
                            cond: cond.clone(),
                            if_true: b,
                            if_false: a,
                        });
                    }
                }
            };
            stage(&mut prog, &mut words, true);
            for (w, slot) in words.iter_mut().enumerate() {
                let mask: u32 = trans
                    .iter()
                    .filter(|(i, _)| w >> i & 1 == 1)
                    .fold(0, |acc, &(_, j)| acc ^ 1 << j);
                let src = *slot;
                if p_lane_trivial {
                    if mask != 0 {
                        *slot = prog.push(|dst| WarpInstr::Shuffle {
                            dst,
                            src,
                            mode: ShflMode::Xor { mask },
                        });
                    }
                } else {
                    let src_lane = LaneMap {
                        bases: p_lane_inv_map.bases.clone(),
                        constant: p_lane_inv_map.apply(mask),
                    };
                    *slot = prog.push(|dst| WarpInstr::Shuffle {
                        dst,
                        src,
                        mode: ShflMode::Idx { src_lane },
                    });
                }
            }
            stage(&mut prog, &mut words, false);
        }
        // Unpack.
        for (w, &word) in words.iter().enumerate() {
            if n_parts == 1 {
                cur[pos(w, 0)] = word;
            } else {
                let dsts: Vec<Slot> = (0..n_parts).map(|_| prog.new_slot()).collect();
                for (p, &d) in dsts.iter().enumerate() {
                    cur[pos(w, p)] = d;
                }
                prog.instrs.push(WarpInstr::Unpack { dsts, src: word });
            }
        }
    }
    // Outputs: destination register d holds the value at compacted position.
    let n_dst_regs = dst.in_dim_size(DimName::REGISTER);
    prog.outputs = (0..n_dst_regs)
        .map(|d| cur[compress(d, &dec.dst_kept_reg_bits) as usize])
        .collect();
    let cost = prog.cost();
    Ok(WarpShufflePlan {
        strategy,
        decomposition: Some(dec),
        program: prog,
        cost,
    })
}

/// The general plan (see the module docs): works for every conversion whose
/// map `C = dst⁻¹ ∘ src` is trivial over `warp` and `block`, including
/// non-distributed layouts and any broadcasting. Rounds per destination
/// register `d` (not a replica): `|image(M)|`, with `M(l) = C_reg(0, l)`.
pub fn general_shuffle_plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<WarpShufflePlan, ShuffleError> {
    check_bitwidth(bitwidth)?;
    let c = warp_local_conversion(src, dst)?;
    let lanes = src.in_dim_size(DimName::LANE) as u32;
    let n_lane_bits = src.in_dim_size_log2(DimName::LANE);
    let n_src_regs = src.in_dim_size(DimName::REGISTER) as usize;
    let n_dst_regs = dst.in_dim_size(DimName::REGISTER);
    // C evaluated on (dst register, dst lane) → (src register, src lane).
    let ev = |r: u64, l: u64| -> Result<(u64, u32), ShuffleError> {
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
        Ok((get(DimName::REGISTER), get(DimName::LANE) as u32))
    };
    let lane_cols: Vec<(u64, u32)> = (0..n_lane_bits)
        .map(|k| ev(0, 1 << k))
        .collect::<Result<_, _>>()?;
    let m_bases: Vec<u64> = lane_cols.iter().map(|c| c.0).collect();
    let lane_map_bases: Vec<u32> = lane_cols.iter().map(|c| c.1).collect();
    // Image of M, in increasing order.
    let mut image: Vec<u64> = (0..lanes)
        .map(|l| {
            m_bases
                .iter()
                .enumerate()
                .filter(|(k, _)| l >> k & 1 == 1)
                .fold(0, |a, (_, &b)| a ^ b)
        })
        .collect();
    image.sort_unstable();
    image.dedup();
    let zero_mask: u64 = dst
        .packed_bases(DimName::REGISTER)
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == 0)
        .fold(0, |a, (k, _)| a | 1 << k);
    let mut prog = WarpProgram {
        lanes,
        bitwidth,
        num_inputs: n_src_regs,
        num_slots: n_src_regs,
        instrs: Vec::new(),
        outputs: Vec::with_capacity(n_dst_regs as usize),
    };
    for d in 0..n_dst_regs {
        if d & zero_mask != 0 {
            let o = prog.outputs[(d & !zero_mask) as usize];
            prog.outputs.push(o);
            continue;
        }
        let (base_reg, base_lane) = ev(d, 0)?;
        let src_lane = LaneMap {
            bases: lane_map_bases.clone(),
            constant: base_lane,
        };
        let mut result: Option<Slot> = None;
        for &s in &image {
            let src_slot = (base_reg ^ s) as usize;
            let got = if src_lane.is_identity() {
                src_slot
            } else {
                let src_lane = src_lane.clone();
                prog.push(|dst| WarpInstr::Shuffle {
                    dst,
                    src: src_slot,
                    mode: ShflMode::Idx { src_lane },
                })
            };
            result = Some(match result {
                None => got,
                Some(prev) => prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: LanePredicate::Equals {
                        bases: m_bases.clone(),
                        value: s,
                    },
                    if_true: got,
                    if_false: prev,
                }),
            });
        }
        prog.outputs.push(result.expect("image of M is non-empty"));
    }
    let cost = prog.cost();
    Ok(WarpShufflePlan {
        strategy: ShuffleStrategy::GeneralRounds,
        decomposition: None,
        program: prog,
        cost,
    })
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

/// XOR of `bases[k]` over the set bits `k` of `x`.
fn lin(bases: &[u64], x: u64) -> u64 {
    bases
        .iter()
        .enumerate()
        .filter(|(k, _)| x >> k & 1 == 1)
        .fold(0, |a, (_, &b)| a ^ b)
}

/// All values of the span of `gens` (sorted, deduplicated).
fn span_values(gens: &[u64]) -> Vec<u64> {
    let mut span = vec![0u64];
    for &g in gens {
        if !span.contains(&g) {
            let more: Vec<u64> = span.iter().map(|&s| s ^ g).collect();
            span.extend(more);
        }
    }
    span.sort_unstable();
    span
}

/// The paper's warp-shuffle algorithm (§5.4), generalised to broadcasting
/// and non-distributed layouts where it applies.
///
/// With `C = dst⁻¹ ∘ src` on `(dst register, lane) → (src register, src
/// lane)` (destination broadcast registers dropped):
/// * `V`: up to `log2(32 / bitwidth)` destination register bits whose image
///   under `C` is a source register vector (the vectorisation: moved
///   together in one 32-bit word);
/// * the other destination register bits `R` index the rounds; the round
///   subspace is the graph `W = {(f(l), l)}` of a linear `f: lanes →
///   span(R)` (the paper's `G ∪ I`), chosen greedily, lane bit by lane bit,
///   so that `g(l) = C(f(l), l)` satisfies `ker g_lane ⊆ ker g_reg`: each
///   source lane then sends one word per round, register `H(lane)` with
///   `H ∘ g_lane = g_reg`.
/// * round `r ∈ span(R)` (`2^|R|` rounds, one `shfl.idx` each): with
///   `(c_reg, c_lane) = C(r, 0)`, lane `s` sends the word of register
///   `c_reg ⊕ H(s ⊕ c_lane)` (selects over the image of `H`), lane `l`
///   reads lane `c_lane ⊕ g_lane(l)` and receives destination registers
///   `r ⊕ f(l) ⊕ span(V)` (selects over the image of `f`).
///
/// `NoRoundStructure` when the greedy choice of `f` fails (possible with
/// broadcasting); [`general_shuffle_plan`] always works.
pub fn paper_shuffle_plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<WarpShufflePlan, ShuffleError> {
    check_bitwidth(bitwidth)?;
    let c = warp_local_conversion(src, dst)?;
    let lanes = src.in_dim_size(DimName::LANE) as u32;
    let n_lane_bits = src.in_dim_size_log2(DimName::LANE);
    let n_src_lane_bits = n_lane_bits;
    let n_src_regs = src.in_dim_size(DimName::REGISTER) as usize;
    // C(dst reg, dst lane) packed as src_lane | src_reg << n_src_lane_bits.
    let ev = |r: u64, l: u64| -> Result<u64, ShuffleError> {
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
        Ok(get(DimName::LANE) | get(DimName::REGISTER) << n_src_lane_bits)
    };
    let lane_mask = (1u64 << n_src_lane_bits) - 1;
    let dst_kept = nonzero_reg_bits(dst);
    let reg_cols: Vec<u64> = dst_kept
        .iter()
        .map(|&b| ev(1 << b, 0))
        .collect::<Result<_, _>>()?;
    let lane_cols: Vec<u64> = (0..n_lane_bits)
        .map(|k| ev(0, 1 << k))
        .collect::<Result<_, _>>()?;
    // V: compact dst register bits mapping to independent pure src
    // register vectors.
    let max_pack = (32 / bitwidth).trailing_zeros() as usize;
    let mut v_bits: Vec<usize> = Vec::new();
    let mut v_imgs: Vec<u64> = Vec::new();
    for (k, &col) in reg_cols.iter().enumerate() {
        if v_bits.len() == max_pack {
            break;
        }
        if col != 0 && col & lane_mask == 0 {
            let mut trial = v_imgs.clone();
            trial.push(col);
            if gf2::rank(&trial) as usize == trial.len() {
                v_bits.push(k);
                v_imgs.push(col);
            }
        }
    }
    let r_bits: Vec<usize> = (0..reg_cols.len())
        .filter(|k| !v_bits.contains(k))
        .collect();
    let r_cols: Vec<u64> = r_bits.iter().map(|&k| reg_cols[k]).collect();
    // Freedom on the source side: any element of ker(S) on (register,
    // lane) may be added (broadcast copies), packed like C's values.
    let n_src_reg_bits = src.in_dim_size_log2(DimName::REGISTER);
    let src_cols: Vec<u64> = src
        .packed_bases(DimName::REGISTER)
        .iter()
        .chain(src.packed_bases(DimName::LANE))
        .copied()
        .collect();
    let kernel: Vec<u64> = gf2::nullspace(&src_cols)
        .into_iter()
        .map(|x| x >> n_src_reg_bits | (x & ((1 << n_src_reg_bits) - 1)) << n_src_lane_bits)
        .collect();
    let kernel_span = span_values(&kernel);
    // Greedy f: f_k ∈ span(R) (as a mask over r_bits), smallest popcount
    // first, plus a kernel element, keeping rank(g_lane) == rank(g) on the
    // prefix.
    let mut f_masks: Vec<u64> = Vec::new();
    let mut g_cols: Vec<u64> = Vec::new();
    let mut cands: Vec<u64> = (0..1u64 << r_bits.len()).collect();
    cands.sort_by_key(|m| (m.count_ones(), *m));
    for (k, &lane_col) in lane_cols.iter().enumerate() {
        let found = cands.iter().find_map(|&m| {
            kernel_span.iter().find_map(|&kap| {
                let g = lin(&r_cols, m) ^ lane_col ^ kap;
                let mut all = g_cols.clone();
                all.push(g);
                let lanes_only: Vec<u64> = all.iter().map(|x| x & lane_mask).collect();
                (gf2::rank(&lanes_only) == gf2::rank(&all)).then_some((m, g))
            })
        });
        let Some((m, g)) = found else {
            return Err(ShuffleError::NoRoundStructure {
                detail: format!("no round subspace extends to lane bit {k}"),
            });
        };
        f_masks.push(m);
        g_cols.push(g);
    }
    // H: src lanes -> src regs with H(g_lane(e_k)) = g_reg(e_k).
    let mut basis: Vec<u64> = Vec::new();
    let mut h_vals: Vec<u64> = Vec::new();
    for &g in &g_cols {
        let gl = g & lane_mask;
        let mut trial = basis.clone();
        trial.push(gl);
        if gl != 0 && gf2::rank(&trial) as usize == trial.len() {
            basis.push(gl);
            h_vals.push(g >> n_src_lane_bits);
        }
    }
    for b in 0..n_src_lane_bits {
        let e = 1u64 << b;
        let mut trial = basis.clone();
        trial.push(e);
        if gf2::rank(&trial) as usize == trial.len() {
            basis.push(e);
            h_vals.push(0);
        }
    }
    let h_cols: Vec<u64> = (0..n_src_lane_bits)
        .map(|b| {
            let x = gf2::solve(&basis, 1 << b).expect("basis of the lane space");
            lin(&h_vals, x)
        })
        .collect();
    let g_lane: Vec<u32> = g_cols.iter().map(|&g| (g & lane_mask) as u32).collect();
    let f_cols: Vec<u64> = f_masks.clone(); // masks over r_bits
    let h_image = span_values(&h_cols);
    let f_image = span_values(&f_cols);
    let mut prog = WarpProgram {
        lanes,
        bitwidth,
        num_inputs: n_src_regs,
        num_slots: n_src_regs,
        instrs: Vec::new(),
        outputs: Vec::new(),
    };
    let n_parts = 1usize << v_bits.len();
    // Source words: word(b) packs src registers b ⊕ C(v), v over span(V).
    let mut words: std::collections::BTreeMap<u64, Slot> = std::collections::BTreeMap::new();
    let mut word = |prog: &mut WarpProgram, b: u64| -> Slot {
        if let Some(&s) = words.get(&b) {
            return s;
        }
        let s = if n_parts == 1 {
            b as usize
        } else {
            let parts: Vec<Slot> = (0..n_parts as u64)
                .map(|p| (b ^ (lin(&v_imgs, p) >> n_src_lane_bits)) as usize)
                .collect();
            prog.push(|dst| WarpInstr::Pack { dst, parts })
        };
        words.insert(b, s);
        s
    };
    // Rounds.
    let mut received: Vec<Slot> = Vec::with_capacity(1 << r_bits.len());
    for r in 0..1u64 << r_bits.len() {
        let cr = lin(&r_cols, r);
        let (c_reg, c_lane) = (cr >> n_src_lane_bits, (cr & lane_mask) as u32);
        let h_c = lin(&h_cols, c_lane as u64);
        let mut send: Option<Slot> = None;
        for &kappa in &h_image {
            let w = word(&mut prog, c_reg ^ h_c ^ kappa);
            send = Some(match send {
                None => w,
                Some(prev) => prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: LanePredicate::Equals {
                        bases: h_cols.clone(),
                        value: kappa,
                    },
                    if_true: w,
                    if_false: prev,
                }),
            });
        }
        let send = send.expect("image of H is non-empty");
        let src_lane = LaneMap {
            bases: g_lane.clone(),
            constant: c_lane,
        };
        let got = if src_lane.is_identity() {
            send
        } else {
            prog.push(|dst| WarpInstr::Shuffle {
                dst,
                src: send,
                mode: ShflMode::Idx { src_lane },
            })
        };
        received.push(got);
    }
    // Destination words d ∈ span(R): from round d ⊕ f(l).
    let mut dst_elems: Vec<Slot> = vec![0; 1 << reg_cols.len()];
    for d in 0..1u64 << r_bits.len() {
        let mut res: Option<Slot> = None;
        for &phi in &f_image {
            let w = received[(d ^ phi) as usize];
            res = Some(match res {
                None => w,
                Some(prev) => prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: LanePredicate::Equals {
                        bases: f_cols.clone(),
                        value: phi,
                    },
                    if_true: w,
                    if_false: prev,
                }),
            });
        }
        let res = res.expect("image of f is non-empty");
        let base = expand(d, &r_bits.iter().map(|&b| b as u32).collect::<Vec<_>>());
        let v32: Vec<u32> = v_bits.iter().map(|&b| b as u32).collect();
        if n_parts == 1 {
            dst_elems[base as usize] = res;
        } else {
            let dsts: Vec<Slot> = (0..n_parts).map(|_| prog.new_slot()).collect();
            for (p, &s) in dsts.iter().enumerate() {
                dst_elems[(base | expand(p as u64, &v32)) as usize] = s;
            }
            prog.instrs.push(WarpInstr::Unpack { dsts, src: res });
        }
    }
    let n_dst_regs = dst.in_dim_size(DimName::REGISTER);
    prog.outputs = (0..n_dst_regs)
        .map(|o| dst_elems[compress(o, &dst_kept) as usize])
        .collect();
    let cost = prog.cost();
    Ok(WarpShufflePlan {
        strategy: ShuffleStrategy::PaperRounds,
        decomposition: None,
        program: prog,
        cost,
    })
}

/// A modelled 32-bit register: up to 4 element tags (low part first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Word {
    len: u8,
    tags: [u64; 4],
}

impl Word {
    fn single(tag: u64) -> Self {
        Word {
            len: 1,
            tags: [tag, 0, 0, 0],
        }
    }
    fn tags(&self) -> &[u64] {
        &self.tags[..self.len as usize]
    }
}

/// Runs `prog` on one warp. `inputs[lane][slot]` are the initial values
/// (one element tag per source register). Returns the final slot contents
/// per lane (a list of element tags: one element, or a packed word).
pub fn run_warp_program(
    prog: &WarpProgram,
    inputs: Vec<Vec<u64>>,
) -> Result<Vec<Vec<Option<Vec<u64>>>>, WarpCheckError> {
    let state = run_words(prog, inputs)?;
    Ok(state
        .into_iter()
        .map(|lane| {
            lane.into_iter()
                .map(|w| w.map(|w| w.tags().to_vec()))
                .collect()
        })
        .collect())
}

fn run_words(
    prog: &WarpProgram,
    inputs: Vec<Vec<u64>>,
) -> Result<Vec<Vec<Option<Word>>>, WarpCheckError> {
    let lanes = prog.lanes;
    if inputs.len() != lanes as usize {
        return Err(WarpCheckError::Setup(format!(
            "{} lanes of inputs for a {lanes}-lane program",
            inputs.len()
        )));
    }
    let ns = prog.num_slots;
    let mut state: Vec<Vec<Option<Word>>> = inputs
        .into_iter()
        .map(|regs| {
            let mut v: Vec<Option<Word>> =
                regs.into_iter().map(|t| Some(Word::single(t))).collect();
            v.resize(ns.max(v.len()), None);
            v
        })
        .collect();
    let bw = prog.bitwidth;
    for (n, ins) in prog.instrs.iter().enumerate() {
        let check = |s: Slot| {
            if s >= ns {
                Err(WarpCheckError::SlotOutOfRange {
                    instr: n,
                    slot: s,
                    num_slots: ns,
                })
            } else {
                Ok(s)
            }
        };
        let read = |state: &Vec<Vec<Option<Word>>>, lane: u32, s: Slot| {
            state[lane as usize][s].ok_or(WarpCheckError::Uninitialised {
                instr: n,
                lane,
                slot: s,
            })
        };
        match ins {
            WarpInstr::Copy { dst, src } => {
                let (dst, src) = (check(*dst)?, check(*src)?);
                for l in 0..lanes {
                    let v = read(&state, l, src)?;
                    state[l as usize][dst] = Some(v);
                }
            }
            WarpInstr::Shuffle { dst, src, mode } => {
                let (dst, src) = (check(*dst)?, check(*src)?);
                let mut new = Vec::with_capacity(lanes as usize);
                for l in 0..lanes {
                    let from = mode.source_lane(l);
                    if from >= lanes {
                        return Err(WarpCheckError::LaneOutOfRange {
                            instr: n,
                            lane: l,
                            src_lane: from,
                        });
                    }
                    let v = read(&state, from, src)?;
                    if u32::from(v.len) * bw > 32 {
                        return Err(WarpCheckError::WordTooWide {
                            instr: n,
                            bits: u32::from(v.len) * bw,
                        });
                    }
                    new.push(v);
                }
                for (l, v) in new.into_iter().enumerate() {
                    state[l][dst] = Some(v);
                }
            }
            WarpInstr::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                let (dst, t, f) = (check(*dst)?, check(*if_true)?, check(*if_false)?);
                for l in 0..lanes {
                    let v = read(&state, l, if cond.eval(l) { t } else { f })?;
                    state[l as usize][dst] = Some(v);
                }
            }
            WarpInstr::Pack { dst, parts } => {
                let dst = check(*dst)?;
                for &p in parts {
                    check(p)?;
                }
                for l in 0..lanes {
                    let mut w = Word {
                        len: 0,
                        tags: [0; 4],
                    };
                    let mut total = 0u32;
                    for &p in parts {
                        let v = read(&state, l, p)?;
                        for &t in v.tags() {
                            if (w.len as usize) < 4 {
                                w.tags[w.len as usize] = t;
                                w.len += 1;
                            }
                            total += 1;
                        }
                    }
                    if total * bw > 32 || total > 4 {
                        return Err(WarpCheckError::WordTooWide {
                            instr: n,
                            bits: total * bw,
                        });
                    }
                    state[l as usize][dst] = Some(w);
                }
            }
            WarpInstr::Unpack { dsts, src } => {
                let src = check(*src)?;
                for &d in dsts {
                    check(d)?;
                }
                for l in 0..lanes {
                    let v = read(&state, l, src)?;
                    if v.len as usize != dsts.len() {
                        return Err(WarpCheckError::BadUnpack {
                            instr: n,
                            expected: v.len as usize,
                            found: dsts.len(),
                        });
                    }
                    for (&d, &x) in dsts.iter().zip(v.tags()) {
                        state[l as usize][d] = Some(Word::single(x));
                    }
                }
            }
        }
    }
    Ok(state)
}

/// Proves `prog` converts `src` to `dst`: for every block and warp, lanes
/// start with source register `r` holding the tag `src(r, lane, warp,
/// block)`; after the program, output `i` of every lane must hold exactly
/// the single element `dst(i, lane, warp, block)`.
pub fn check_warp_program(
    prog: &WarpProgram,
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<(), WarpCheckError> {
    if src.out_dims() != dst.out_dims() {
        return Err(WarpCheckError::Setup(format!(
            "out dims differ: {:?} vs {:?}",
            src.out_dims(),
            dst.out_dims()
        )));
    }
    for d in [DimName::LANE, DimName::WARP, DimName::BLOCK] {
        if src.in_dim_size(d) != dst.in_dim_size(d) {
            return Err(WarpCheckError::Setup(format!("{d} sizes differ")));
        }
    }
    if src.in_dim_size(DimName::LANE) != prog.lanes as u64 {
        return Err(WarpCheckError::Setup(format!(
            "program has {} lanes, layouts {}",
            prog.lanes,
            src.in_dim_size(DimName::LANE)
        )));
    }
    let n_src = src.in_dim_size(DimName::REGISTER);
    if prog.num_inputs as u64 != n_src {
        return Err(WarpCheckError::Setup(format!(
            "program takes {} inputs, source has {n_src} registers",
            prog.num_inputs
        )));
    }
    let n_dst = dst.in_dim_size(DimName::REGISTER);
    if prog.outputs.len() as u64 != n_dst {
        return Err(WarpCheckError::OutputCount {
            expected: n_dst as usize,
            found: prog.outputs.len(),
        });
    }
    for block in 0..src.in_dim_size(DimName::BLOCK) {
        for warp in 0..src.in_dim_size(DimName::WARP) {
            let inputs = (0..prog.lanes as u64)
                .map(|l| {
                    (0..n_src)
                        .map(|r| hw_apply(src, r, l, warp, block))
                        .collect()
                })
                .collect();
            let state = run_words(prog, inputs)?;
            for lane in 0..prog.lanes {
                for (r, &slot) in prog.outputs.iter().enumerate() {
                    let want = hw_apply(dst, r as u64, lane as u64, warp, block);
                    let got = state[lane as usize].get(slot).copied().flatten();
                    if got != Some(Word::single(want)) {
                        return Err(WarpCheckError::WrongValue {
                            block,
                            warp,
                            lane,
                            register: r as u64,
                            expected: dst.unpack(want).to_vec(),
                            found: got.map(|g| {
                                g.tags()
                                    .iter()
                                    .flat_map(|&x| dst.unpack(x).to_vec())
                                    .collect()
                            }),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Where the value of one destination register came from: what
/// [`WarpProgram::trace`] returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// Source register (input slot) holding the element at the start.
    pub src_register: u64,
    /// Lane that held it.
    pub src_lane: u32,
    /// Ordinal (0-based, among the program's `Shuffle` instructions) of the
    /// last shuffle that moved it; `None` if it never left its lane's
    /// registers.
    pub shuffle: Option<usize>,
}

impl WarpProgram {
    /// Follows destination register `output` of `lane` back to the source
    /// register and lane it was read from (through copies, shuffles, the
    /// operand each select picks for that lane, packing and unpacking).
    /// Assumes every slot is written at most once (SSA, as every planner
    /// here emits); `None` when the program does not fit that (an
    /// unwritten non-input slot, an out-of-range slot or lane, a part index
    /// beyond a packed word).
    pub fn trace(&self, output: usize, lane: u32) -> Option<Provenance> {
        let mut def: Vec<Option<usize>> = vec![None; self.num_slots.max(self.num_inputs)];
        for (k, ins) in self.instrs.iter().enumerate() {
            let written: Vec<Slot> = match ins {
                WarpInstr::Copy { dst, .. }
                | WarpInstr::Shuffle { dst, .. }
                | WarpInstr::Select { dst, .. }
                | WarpInstr::Pack { dst, .. } => vec![*dst],
                WarpInstr::Unpack { dsts, .. } => dsts.clone(),
            };
            for s in written {
                *def.get_mut(s)? = Some(k);
            }
        }
        let ordinal: Vec<usize> = self
            .instrs
            .iter()
            .scan(0usize, |n, i| {
                let o = *n;
                *n += matches!(i, WarpInstr::Shuffle { .. }) as usize;
                Some(o)
            })
            .collect();
        // Elements in a slot's word (1 unless packed).
        fn width(p: &WarpProgram, def: &[Option<usize>], s: Slot, depth: usize) -> Option<usize> {
            if depth > p.instrs.len() {
                return None;
            }
            match def.get(s)? {
                None => (s < p.num_inputs).then_some(1),
                Some(k) => match &p.instrs[*k] {
                    WarpInstr::Copy { src, .. } | WarpInstr::Shuffle { src, .. } => {
                        width(p, def, *src, depth + 1)
                    }
                    WarpInstr::Select { if_true, .. } => width(p, def, *if_true, depth + 1),
                    WarpInstr::Pack { parts, .. } => parts
                        .iter()
                        .map(|&q| width(p, def, q, depth + 1))
                        .sum::<Option<usize>>(),
                    WarpInstr::Unpack { .. } => Some(1),
                },
            }
        }
        let (mut slot, mut lane, mut part) = (*self.outputs.get(output)?, lane, 0usize);
        let mut shuffle = None;
        for _ in 0..=self.instrs.len() {
            let Some(k) = *def.get(slot)? else {
                return (slot < self.num_inputs && part == 0 && lane < self.lanes).then_some(
                    Provenance {
                        src_register: slot as u64,
                        src_lane: lane,
                        shuffle,
                    },
                );
            };
            match &self.instrs[k] {
                WarpInstr::Copy { src, .. } => slot = *src,
                WarpInstr::Shuffle { src, mode, .. } => {
                    lane = mode.source_lane(lane);
                    if lane >= self.lanes {
                        return None;
                    }
                    shuffle = shuffle.or(Some(ordinal[k]));
                    slot = *src;
                }
                WarpInstr::Select {
                    cond,
                    if_true,
                    if_false,
                    ..
                } => slot = if cond.eval(lane) { *if_true } else { *if_false },
                WarpInstr::Pack { parts, .. } => {
                    let mut skip = part;
                    let mut found = None;
                    for &q in parts {
                        let w = width(self, &def, q, 0)?;
                        if skip < w {
                            found = Some(q);
                            break;
                        }
                        skip -= w;
                    }
                    slot = found?;
                    part = skip;
                }
                WarpInstr::Unpack { dsts, src } => {
                    if part != 0 {
                        return None;
                    }
                    part = dsts.iter().position(|&d| d == slot)?;
                    slot = *src;
                }
            }
        }
        None
    }
}
