//! The planner: one entry point, [`plan`], that chooses how a conversion
//! between two distributed layouts runs, among every plan class this crate
//! has, on one cost scale ([`crate::cost`]), and returns everything an
//! emitter needs as data.
//!
//! ## Candidates
//! 1. Triton 3.9's plan ([`crate::choice::plan_conversion_triton`]): its class
//!    and, through shared memory, its swizzle.
//! 2. For conversions Triton sends through shared memory: the warp-shuffle
//!    plans in both forms (the one-step rounds and the warp program,
//!    [`crate::shuffle::shuffle_plan`]); they exist only when the data stays
//!    in its warp.
//! 3. Through shared memory with the paper's swizzle
//!    ([`crate::choice::plan_paper_swizzle`]).
//! 4. Through shared memory with the shared layout of
//!    [`crate::swizzle_search::search_shared_layout`] (the XOR swizzle
//!    family and the constructions above, by exact wavefronts).
//! 5. Partial cross-warp plans ([`crate::partial::plan_split`]) through the
//!    shared layout of each shared-memory candidate: only the elements that
//!    leave their warp cross shared memory, the rest moves by register moves
//!    or `shfl.sync.idx`; a broadcast source is read from the replica in the
//!    reader's own warp ([`crate::replica`]). Where the plain partial class
//!    refuses because staying (or its source register) depends on the lane,
//!    its lane-predicated form ([`crate::partial::plan_split_predicated`],
//!    `partial_predicated_*`, 32-bank targets), and that form with
//!    transposed staying moves ([`crate::partial::plan_split_transposed`],
//!    `partial_transposed_*`).
//! 6. For 8/16-bit elements of a conversion that leaves its warps, staged
//!    plans ([`staged_candidate`], `regroup_first` / `regroup_last`): an
//!    in-warp regroup ([`crate::regroup`]) that makes each register word
//!    hold a word of the other side, and the planner's whole-CTA plan of
//!    the intermediate layout, which then moves whole words. Its cost is
//!    the word stage's plus the regroup's `shfl.sync` (the shared-memory
//!    pipe, like every shuffle) and `prmt` (the ALU pipe,
//!    [`crate::cost::ALU_PER_CYCLE`]); it is taken only when strictly
//!    cheaper.
//!
//! 7. Through shared memory with `stmatrix` / `ldmatrix` on one or both
//!    sides ([`crate::shared_conversion::plan_shared_matrix`], candidates
//!    `matrix_*`): through each layout above, and through every layout of
//!    the XOR swizzle family and those built for the 8 × 16-byte matrix
//!    tile ([`crate::matrix_swizzle`]), each of these two groups standing
//!    as its cheapest plan: ranked by the wavefronts and barriers its cost
//!    counts before any is proved, the first the simulator proves stands.
//!    Searched only where the best plan so far is above the floor and above
//!    the least any whole-CTA plan costs (every byte stored and loaded at
//!    full width, and a barrier where data crosses warps); taken only
//!    where strictly cheaper than every other candidate (the suite's `_mx`
//!    programs measured no faster than vector twins of equal wavefronts).
//!    A 16-bit transpose whose rows and columns pair threads one to one is
//!    the case: no register word of one side is a word of the other, and
//!    `.trans` assembles each 32-bit register from two rows of the tile,
//!    which a vector access does one element at a time (`fresh6_*` of the
//!    GPU suite).
//!    Taken by default for 16-bit elements only ([`MATRIX_DEFAULT_BITS`]:
//!    the width the CUDA emitter translates); requests
//!    ([`PlanOptions::matrix`]) can forbid or require them.
//!
//! 8. Last, for every in-warp conversion (Triton's warp-shuffle class
//!    too), the balanced warp program
//!    ([`crate::shuffle::balanced_shuffle_plan`]): shuffles traded against
//!    selects for the least roofline; being last it is taken only where
//!    strictly cheaper than every other candidate.
//!
//! Every candidate is proved by the simulator ([`crate::simulator`] or
//! [`crate::partial::simulate_partial`]) before it is costed; one that fails
//! (or is refused by its planner, or needs more shared memory than the
//! [`Target`] has) is listed with the reason in
//! [`PlannedConversion::candidates`] and not chosen. The cheapest under
//! [`PredictedCost::cycles`] wins; at equal cycles within one class the
//! one issuing fewer shared-memory instructions ([`shared_instructions`]),
//! else the earlier candidate (Triton's plan first), so the plan is never
//! costlier than Triton's.
//!
//! 8/16-bit partial candidates are planned on the packed shared words
//! wherever those are register words on both sides
//! ([`crate::shared_words`]); [`Lowering::Partial`] then carries the
//! packing, and the plan is proved on the word layouts.
//!
//! ## Partial plans on the one scale
//! A partial plan's *units* (store + load wavefronts + packed staying
//! shuffles over the CTA) divided by the warps are the shared-memory pipe
//! term of [`crate::cost`]; with one barrier and no selects, against its
//! full twin through the same shared layout that is `cycles(partial) <
//! cycles(full)`. Here the partial plan competes with every other
//! candidate, not only its twin, and the GPU suite's choice among its
//! programs of a pair is this planner's answer.

use crate::choice::{
    plan_conversion_triton, plan_paper_swizzle, plan_through_shared, predicted_cost, total_warps,
};
use crate::conversion::{classify, moved_levels, ConversionKind};
use crate::cost::{LowerBound, PredictedCost, BARRIER_COST, WAVEFRONT_BYTES};
use crate::error::{check_bitwidth, CodegenError, Result};
use crate::matrix_swizzle::matrix_layout_candidates;
use crate::packed_shuffle::{check_word_program, WordProgram};
use crate::partial::{
    plan_split, plan_split_predicated, plan_split_transposed, simulate_partial,
    PartialCrossWarpPlan,
};
use crate::plan::{Access, ConversionPlan, SharedMemoryPlan};
use crate::shared_words::{plan_shared_words, word_layouts, SharedWordPlan};

use crate::cost::shuffle_cycles;
pub use crate::floor_plan::plan_at_floor;
pub use crate::lower_bound::lower_bound;
use crate::plan::{Regroup, RegroupAt};
pub use crate::plan_options::{Allow, PlanOptions, SplitForm};
use crate::regroup::{regroup_after, regroup_before};
use crate::shared_conversion::plan_shared_matrix;
use crate::shuffle::{shuffle_plan, BalancedPrograms, WarpProgram};
use crate::shuffle_rounds::rounds_plan;
use crate::simulator::{
    plan_load_wavefronts, simulate_staged, simulate_with, SimulationReport, SimulatorConfig,
};
use crate::store_replicas::plan_store_wavefronts;
use crate::swizzle_search::search_shared_layout;
use crate::swizzle_search::xor_swizzle_family;
pub use crate::target::Target;
use crate::warp_private::is_warp_private;
use crate::wavefront::phases_of;
use linear_layout::{DimName, LinearLayout};
use serde::Serialize;

/// How the chosen conversion runs.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum Lowering {
    /// One plan for every warp: no-op, register permutation, warp shuffles
    /// or shared memory.
    Whole {
        /// The plan.
        plan: ConversionPlan,
    },
    /// A partial cross-warp plan: per warp class, stores, staying moves or
    /// shuffles, one barrier, loads.
    Partial {
        /// The plan: of the elements, or of the packed words when `words`
        /// is set (a 32-bit plan of [`word_layouts`]`(words)`).
        plan: Box<PartialCrossWarpPlan>,
        /// For 8/16-bit elements whose shared 4-byte words are register
        /// words on both sides ([`plan_shared_words`]): the packing of
        /// each side's registers into the words `plan` moves.
        words: Option<Box<SharedWordPlan>>,
    },
    /// Two stages for 8/16-bit elements ([`crate::regroup`]): an in-warp
    /// regroup that makes register words hold the words of the other side,
    /// and a whole-CTA plan of the intermediate layout
    /// ([`Regroup::intermediate`]) that moves whole words; the regroup
    /// runs first ([`RegroupAt::Before`]: `src → I`, then `I → dst`) or
    /// last ([`RegroupAt::After`]: `src → I`, then `I → dst` by the
    /// regroup).
    Staged {
        /// The regroup.
        regroup: Box<Regroup>,
        /// The plan between the intermediate layout and the other side.
        then: ConversionPlan,
    },
}

impl Lowering {
    /// `"noop"`, `"register"`, `"shuffle"`, `"shared"`, `"partial"` or
    /// `"staged"`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Lowering::Whole { plan } => plan.kind_name(),
            Lowering::Partial { .. } => "partial",
            Lowering::Staged { .. } => "staged",
        }
    }

    /// The whole-CTA plan, if this is one.
    pub fn whole(&self) -> Option<&ConversionPlan> {
        match self {
            Lowering::Whole { plan } => Some(plan),
            Lowering::Partial { .. } | Lowering::Staged { .. } => None,
        }
    }

    /// The partial plan, if this is one.
    pub fn partial(&self) -> Option<&PartialCrossWarpPlan> {
        match self {
            Lowering::Partial { plan, .. } => Some(plan),
            Lowering::Whole { .. } | Lowering::Staged { .. } => None,
        }
    }

    /// The packed words a partial plan moves, if it runs on words.
    pub fn partial_words(&self) -> Option<&SharedWordPlan> {
        match self {
            Lowering::Partial { words, .. } => words.as_deref(),
            Lowering::Whole { .. } | Lowering::Staged { .. } => None,
        }
    }

    /// The regroup and the whole-CTA plan of a staged lowering.
    pub fn staged(&self) -> Option<(&Regroup, &ConversionPlan)> {
        match self {
            Lowering::Staged { regroup, then } => Some((regroup, then)),
            Lowering::Whole { .. } | Lowering::Partial { .. } => None,
        }
    }

    /// The whole-tile shared-memory plan: of a whole lowering, or a staged
    /// lowering's word stage.
    pub fn shared(&self) -> Option<&SharedMemoryPlan> {
        match self {
            Lowering::Whole {
                plan: ConversionPlan::SharedMemory(p),
            }
            | Lowering::Staged {
                then: ConversionPlan::SharedMemory(p),
                ..
            } => Some(p),
            _ => None,
        }
    }

    /// [`Lowering::shared`], mutable.
    pub fn shared_mut(&mut self) -> Option<&mut SharedMemoryPlan> {
        match self {
            Lowering::Whole {
                plan: ConversionPlan::SharedMemory(p),
            }
            | Lowering::Staged {
                then: ConversionPlan::SharedMemory(p),
                ..
            } => Some(p),
            _ => None,
        }
    }
}

/// One candidate the planner considered.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    /// `"triton"`, `"shuffle_rounds"`, `"shuffle_program"`,
    /// `"balanced_program"` (in-warp conversions,
    /// [`crate::shuffle::balanced_shuffle_plan`]),
    /// `"paper_swizzle"`, `"searched_swizzle"`, `"partial_triton"`,
    /// `"partial_paper_swizzle"`, `"partial_searched_swizzle"`, their
    /// lane-predicated forms `"partial_predicated_…"`, a matrix
    /// candidate of [`crate::plan_options`] (`"matrix_…"`), or a staged
    /// plan with its regroup first or last (`"regroup_first"`,
    /// `"regroup_last"`, [`staged_candidate`]).
    pub name: &'static str,
    /// Its class ([`Lowering::kind_name`]), when it was planned.
    pub kind: Option<&'static str>,
    /// Its predicted cycles, when it was planned and proved.
    pub cycles: Option<f64>,
    /// Why it was not planned, proved or allowed.
    pub refused: Option<String>,
}

/// The planner's answer: the chosen plan and everything known about it.
#[derive(Clone, Debug, Serialize)]
pub struct PlannedConversion {
    /// Triton's class of the conversion ([`classify`]).
    pub class: ConversionKind,
    /// The chosen candidate's name (see [`Candidate::name`]).
    pub candidate: &'static str,
    /// What runs.
    pub lowering: Lowering,
    /// For a warp program of 8/16-bit elements whose packed-word form is
    /// what runs ([`whole_cost`]): the same program over 32-bit words with
    /// byte permutes ([`WordProgram::from_program`]); `cost` is its cost.
    pub words: Option<WordProgram>,
    /// The predicted cost of the chosen plan.
    pub cost: PredictedCost,
    /// The model's cycles of `cost`.
    pub cycles: f64,
    /// The conversion's floor ([`lower_bound`]).
    pub lower_bound: LowerBound,
    /// `cycles / lower_bound.cycles` (1 when both are 0; infinite when only
    /// the bound is 0).
    pub above_bound: f64,
    /// Every candidate considered, in order.
    pub candidates: Vec<Candidate>,
}

/// The element width for which the planner always considers transposed
/// staying moves ([`crate::partial::plan_split_transposed`]); 8- and 32-bit
/// elements are considered up to [`TRANSPOSED_MAX_REGISTERS`], 64-bit ones
/// never. Measured 2026-11-25 on an H200
/// (`bench/gpu/tools/time_subset.sh`, results in
/// `bench/gpu/results/2026-11-25-h200/transposed/`): the four 16-bit
/// programs (staying moves on packed words) ran 1.055–1.14× faster than
/// their full shared-memory twins, as the model predicts; the two 32-bit
/// ones 0.83× and 0.34× and the two 8-bit ones 0.87× and 0.07×, for what
/// the model does not count: register pressure (255 registers against 203)
/// and the ALU work of the emitted select chains on unpacked elements
/// (about 3.5 model cycles per counted select where the ALU bound).
pub const TRANSPOSED_STAYING_BITS: u32 = 16;

/// The element width of the matrix plans the planner takes where they are
/// only allowed ([`PlanOptions::matrix`] `Allowed`, the default): 16 bits,
/// the width whose `ldmatrix` / `stmatrix` operands the CUDA emitter packs
/// (`layout_cuda` refuses 8- and 32-bit matrix plans) and that the GPU
/// suite measured (`_mx` and `fresh6_*` programs,
/// `bench/gpu/results/2026-11-29-h200/matrix_default/`). A request that
/// requires matrix plans plans every width, for the simulator and printer.
pub const MATRIX_DEFAULT_BITS: u32 = 16;

/// The largest tile (elements) for which the planner searches the matrix
/// groups (the XOR swizzle family and the layouts built for the matrix
/// tile, about 700 plans): 2^15, the GPU suite's largest tile (128 × 256).
/// Above it only the plans through the vector candidates' layouts are
/// matrix candidates: at 2^18 elements (the command line's largest
/// conversion) the groups took 19 s of one `linlayout convert --best` in a
/// release build (2026-11-29, 2-core machine; the CLI's bound is 2 s).
pub const MATRIX_SEARCH_MAX_ELEMENTS: u64 = 1 << 15;

/// The most registers per thread (source and destination together) for
/// which the planner considers transposed staying moves of 8- and 32-bit
/// elements. Measured on an H200, each transposed program against the
/// program chosen before it in one device call:
/// * 32-bit, 2026-11-29 (`bench/gpu/results/2026-11-29-h200/transposed32/`):
///   `fresh3_wgmma64w4_to_blk22_64x128_f32` (64 + 64 registers) 1.772 µs
///   against 1.920 for the lane-predicated plan, 140 registers both; the
///   two programs of 128 + 128 measured 2026-11-25 used 255 registers and
///   ran 0.83× and 0.34× their twins (`wgmma_to_blocked_128x128_f32` again
///   0.82× on 2026-11-29);
/// * 8-bit, 2026-11-29 (`bench/gpu/results/2026-11-29-h200/transposed8/`,
///   staying moves on packed words): `fresh4_blk8_to_dotA_k4_w41_128x64_i8`
///   (64 + 64) 0.520–0.523 µs against 0.550–0.553 for the full plan (66
///   registers against 54), `blocked_to_wgmma_128x128_f8` (128 + 128)
///   1.427–1.430 against 1.231–1.232 (again 0.87×, as on 2026-11-25);
/// * with per-class lane permutations, 2026-11-29
///   (`bench/gpu/results/2026-11-29-h200/lane_xor/large/`): the three pairs
///   of 128 + 128 registers still lose, 0.91× (8-bit), 0.44× and 0.85×
///   (32-bit).
pub const TRANSPOSED_MAX_REGISTERS: u64 = 128;

/// Why the planner does not consider transposed staying moves for this
/// conversion by its own rule ([`TRANSPOSED_STAYING_BITS`],
/// [`TRANSPOSED_MAX_REGISTERS`]), or `None` where it does.
fn transposed_refusal(src: &LinearLayout, dst: &LinearLayout, elem_bits: u32) -> Option<String> {
    let registers = size(src, DimName::REGISTER) + size(dst, DimName::REGISTER);
    match elem_bits {
        TRANSPOSED_STAYING_BITS => None,
        8 | 32 if registers <= TRANSPOSED_MAX_REGISTERS => None,
        8 | 32 => Some(format!(
            "transposed staying moves of {elem_bits}-bit elements are taken up to \
             {TRANSPOSED_MAX_REGISTERS} registers per thread, not {registers} \
             (TRANSPOSED_MAX_REGISTERS)"
        )),
        _ => Some(format!(
            "transposed staying moves are taken for {TRANSPOSED_STAYING_BITS}-bit \
             elements and small 8- and 32-bit tiles only, not {elem_bits}-bit \
             (TRANSPOSED_STAYING_BITS)"
        )),
    }
}

/// A partial planner: `(src, dst, smem, bits) → plan`
/// ([`plan_split`], [`plan_split_predicated`], [`plan_split_transposed`]).
pub(crate) type SplitPlanner =
    fn(&LinearLayout, &LinearLayout, &LinearLayout, u32) -> Result<PartialCrossWarpPlan>;

/// What a partial planner runs on through one shared layout: the elements,
/// or, for 8/16-bit elements whose shared 4-byte words are register words
/// on both sides ([`plan_shared_words`]), the packed words
/// ([`word_layouts`], 32-bit), so that every store, load and staying move
/// moves whole words and the registers stay packed as the shared words
/// pack them. The word form is taken whenever it exists: its stores and
/// loads are the element plan's bytes, and its staying moves are whole
/// words where the element plan's pack `32 / bits` elements of one source
/// lane per shuffle.
pub(crate) struct SplitInput {
    pub(crate) words: Option<Box<SharedWordPlan>>,
    pub(crate) layouts: (LinearLayout, LinearLayout, LinearLayout),
    pub(crate) bits: u32,
}

impl SplitInput {
    pub(crate) fn new(
        src: &LinearLayout,
        dst: &LinearLayout,
        smem: &LinearLayout,
        bits: u32,
    ) -> Self {
        let words = match bits {
            8 | 16 => plan_shared_words(src, dst, smem, bits).ok().flatten(),
            _ => None,
        };
        let packed = words.and_then(|w| Some((word_layouts(&w).ok()?, w)));
        match packed {
            Some((layouts, w)) => SplitInput {
                layouts,
                words: Some(Box::new(w)),
                bits: 32,
            },
            None => SplitInput {
                words: None,
                layouts: (src.clone(), dst.clone(), smem.clone()),
                bits,
            },
        }
    }

    pub(crate) fn plan(&self, planner: SplitPlanner) -> Result<Lowering> {
        let (a, b, m) = &self.layouts;
        Ok(Lowering::Partial {
            plan: Box::new(planner(a, b, m, self.bits)?),
            words: self.words.clone(),
        })
    }
}

/// Shared-memory instructions a plan issues per CTA of `warps` warps: per warp, its
/// threads' vector or matrix accesses (every round's stores and loads for
/// a whole-CTA plan, its class's for a partial one). The planner's second
/// key: at equal predicted cycles the same wavefronts in fewer, wider
/// accesses issue less.
pub fn shared_instructions(lowering: &Lowering, warps: u64) -> u64 {
    match lowering {
        Lowering::Whole {
            plan: ConversionPlan::SharedMemory(s),
        }
        | Lowering::Staged {
            then: ConversionPlan::SharedMemory(s),
            ..
        } => {
            let per_thread: usize = s
                .rounds
                .iter()
                .map(|r| r.stores.len() + r.loads.len())
                .sum();
            per_thread as u64 * warps
        }
        Lowering::Whole { .. } | Lowering::Staged { .. } => 0,
        Lowering::Partial { plan, .. } => (0..plan.num_warps)
            .filter_map(|w| plan.class_of(w))
            .map(|k| (plan.classes[k].stores.len() + plan.classes[k].loads.len()) as u64)
            .sum(),
    }
}

/// The names of the plain, lane-predicated and transposed partial
/// candidates through the shared layout of candidate `shared`.
fn partial_names(shared: &str) -> [&'static str; 3] {
    match shared {
        "partial_triton" => [
            "partial_triton",
            "partial_predicated_triton",
            "partial_transposed_triton",
        ],
        "partial_paper_swizzle" => [
            "partial_paper_swizzle",
            "partial_predicated_paper_swizzle",
            "partial_transposed_paper_swizzle",
        ],
        "partial_searched_swizzle" => [
            "partial_searched_swizzle",
            "partial_predicated_searched_swizzle",
            "partial_transposed_searched_swizzle",
        ],
        _ => [
            "given_layout_partial",
            "given_layout_predicated",
            "given_layout_transposed",
        ],
    }
}

/// Marks the shared-memory plan of `lowering` (whole, or a staged plan's
/// word stage) warp-private where [`is_warp_private`] proves its buffer is
/// (`lanes` lanes, `warps` warps per CTA).
fn mark_warp_private(lowering: &mut Lowering, lanes: u64, warps: u64) {
    if let Some(p) = lowering.shared_mut() {
        p.warp_private = is_warp_private(p, lanes, warps);
    }
}

pub(crate) fn size(l: &LinearLayout, d: DimName) -> u64 {
    if l.has_in_dim(d) {
        l.in_dim_size(d)
    } else {
        1
    }
}

/// Plans the conversion of `src` to `dst` (distributed layouts of one
/// tensor, `register, lane, warp[, block] → tensor`) of `elem_bits`-bit
/// elements for `target`: the cheapest proved candidate of the module doc.
///
/// Errors: a bit width other than 8, 16, 32 or 64, a target the model does
/// not cover, layouts whose lanes differ from the target's warp size, a
/// conversion between CTAs ([`CodegenError::Unsupported`]), or no candidate
/// proved.
///
/// ```
/// use layout_codegen::planner::{plan, Target};
/// use linear_layout::{DimName, LinearLayout};
/// // 64 elements: 2 registers, 32 lanes; dst swaps the register bit with
/// // lane bit 0: one register-lane transposition, a warp shuffle.
/// let mk = |reg: u64, lane0: u64| {
///     LinearLayout::new(
///         vec![
///             (DimName::REGISTER, vec![vec![reg]]),
///             (DimName::LANE, vec![vec![lane0], vec![4], vec![8], vec![16], vec![32]]),
///             (DimName::WARP, vec![]),
///             (DimName::BLOCK, vec![]),
///         ],
///         vec![(DimName::dim(0), 64)],
///         true,
///     )
///     .unwrap()
/// };
/// let p = plan(&mk(1, 2), &mk(2, 1), 32, &Target::SM90).unwrap();
/// assert_eq!(p.lowering.kind_name(), "shuffle");
/// // Half of each thread's data changes lane: 128 bytes per warp, one
/// // 32-bit shuffle at least.
/// assert_eq!(p.lower_bound.shuffles, 1.0);
/// assert_eq!(p.lower_bound.wavefronts, 0.0);
/// ```
pub fn plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
) -> Result<PlannedConversion> {
    plan_with(src, dst, elem_bits, target, &PlanOptions::default())
}

/// [`plan`] among the candidates `options` admits ([`PlanOptions`]): the
/// others are listed in [`PlannedConversion::candidates`] as refused ("not
/// requested"). With [`Allow::Required`] partial or matrix plans the
/// request fails when no such candidate is proved.
pub fn plan_with(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
    options: &PlanOptions,
) -> Result<PlannedConversion> {
    plan_stages(src, dst, elem_bits, target, options, true)
}

/// [`plan_with`], with the staged candidates ([`staged_candidate`]) when
/// `staged` holds (their second stage is planned without them: after one
/// regroup the words are the other side's, so a second would not apply).
fn plan_stages(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
    options: &PlanOptions,
    staged: bool,
) -> Result<PlannedConversion> {
    check_bitwidth(elem_bits)?;
    target.check()?;
    for (what, l) in [("source", src), ("destination", dst)] {
        if size(l, DimName::LANE) != target.warp_size {
            return Err(CodegenError::Invalid(format!(
                "the {what} layout has {} lanes, the target's warp has {}",
                size(l, DimName::LANE),
                target.warp_size
            )));
        }
    }
    let class = classify(src, dst)?;
    if class == ConversionKind::CrossCta {
        return Err(CodegenError::Unsupported(
            "the conversion moves data between CTAs (block level); cross-CTA plans \
             are not implemented"
                .into(),
        ));
    }
    let config = SimulatorConfig {
        banks: target.banks,
    };
    let warps = total_warps(dst);
    let registers = (size(src, DimName::REGISTER), size(dst, DimName::REGISTER));
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut best: Best = None;
    let mut shared_layouts: Vec<(&'static str, LinearLayout)> = Vec::new();

    let consider = |name: &'static str,
                    planned: Result<Lowering>,
                    candidates: &mut Vec<Candidate>,
                    best: &mut Best| {
        // Our shared-memory plans synchronise each warp alone where the
        // buffer is warp-private (Triton's keeps its CTA barriers).
        let planned = planned.map(|mut lowering| {
            if name != "triton" {
                mark_warp_private(&mut lowering, target.warp_size, size(dst, DimName::WARP));
            }
            lowering
        });
        let costed = planned.and_then(|lowering| {
            let given = name.starts_with("given_layout");
            if options.through.is_some() != given
                || !options.admits(lowering.kind_name(), uses_matrix(&lowering))
            {
                return Err(CodegenError::Unsupported(format!(
                    "a {} plan was not requested",
                    lowering.kind_name()
                )));
            }
            let mut words = None;
            let mut cost = match &lowering {
                Lowering::Whole { plan } => {
                    let (c, w) = whole_cost(&config, plan, src, dst, target)?;
                    words = w;
                    c
                }
                // The regroup's shuffles and permutes are in the report
                // (per thread): a `shfl.sync` goes through the
                // shared-memory pipe like a wavefront, a `prmt` is one ALU
                // instruction (`ALU_PER_CYCLE`), as in every warp program.
                Lowering::Staged { regroup, then } => {
                    let report = simulate_staged(&config, regroup, then, src, dst)?;
                    report_cost(then, &report, dst, target)
                }
                Lowering::Partial { plan, words } => {
                    match words {
                        Some(w) => {
                            let (a, b, _) = word_layouts(w)?;
                            simulate_partial(plan, &a, &b)?
                        }
                        None => simulate_partial(plan, src, dst)?,
                    };
                    partial_cost(plan, target.banks)
                }
            };
            if cost.scratch_bytes > target.smem_bytes_per_cta {
                return Err(CodegenError::Unsupported(format!(
                    "needs {} bytes of shared memory per CTA, the target has {}",
                    cost.scratch_bytes, target.smem_bytes_per_cta
                )));
            }
            (cost.src_registers, cost.dst_registers) = registers;
            Ok((lowering, cost, words))
        });
        match costed {
            Ok((lowering, cost, words)) => {
                let cycles = cost.cycles();
                candidates.push(Candidate {
                    name,
                    kind: Some(lowering.kind_name()),
                    cycles: Some(cycles),
                    refused: None,
                });
                // Equal cycles within one class: fewer shared-memory
                // instructions (the same bytes in wider vectors); else the
                // earlier candidate (a partial plan never wins a tie against
                // a whole-CTA one: its register pressure and warp-class code
                // are not in the model, and the 2026-11-25 H200 trial of
                // `TRANSPOSED_STAYING_BITS` measured it slower there).
                let issued = shared_instructions(&lowering, warps);
                let strict = options.matrix == Allow::Allowed && uses_matrix(&lowering);
                let better = best.as_ref().is_none_or(|b| {
                    wins_over(
                        cycles,
                        b.2.cycles(),
                        lowering.kind_name() == b.1.kind_name()
                            && issued < shared_instructions(&b.1, warps),
                        strict,
                    )
                });
                if better {
                    *best = Some((candidates.len() - 1, lowering, cost, words));
                }
            }
            Err(e) => candidates.push(Candidate {
                name,
                kind: None,
                cycles: None,
                refused: Some(e.to_string()),
            }),
        }
    };

    if let Some(l) = &options.through {
        // A request for one buffer layout: no other candidate is planned.
        consider(
            "given_layout",
            plan_through_shared(src, dst, elem_bits, l).map(|s| Lowering::Whole {
                plan: ConversionPlan::SharedMemory(Box::new(s)),
            }),
            &mut candidates,
            &mut best,
        );
        shared_layouts.push(("given_layout", l.clone()));
    } else {
        let triton = plan_conversion_triton(src, dst, elem_bits);
        if let Ok(ConversionPlan::SharedMemory(s)) = &triton {
            shared_layouts.push(("partial_triton", s.shared_layout.clone()));
        }
        consider(
            "triton",
            triton.map(|plan| Lowering::Whole { plan }),
            &mut candidates,
            &mut best,
        );
        if class == ConversionKind::SharedMemory {
            consider(
                "shuffle_rounds",
                rounds_plan(src, dst).map(|shuffles| Lowering::Whole {
                    plan: ConversionPlan::WarpShuffle { shuffles },
                }),
                &mut candidates,
                &mut best,
            );
            consider(
                "shuffle_program",
                shuffle_plan(src, dst, elem_bits)
                    .map_err(|e| CodegenError::Unsupported(e.to_string()))
                    .map(|p| Lowering::Whole {
                        plan: ConversionPlan::WarpProgram(Box::new(p.program)),
                    }),
                &mut candidates,
                &mut best,
            );
        }
        if !matches!(
            class,
            ConversionKind::NoOp | ConversionKind::RegisterPermutation
        ) {
            let paper = plan_paper_swizzle(src, dst, elem_bits);
            if let Ok(s) = &paper {
                shared_layouts.push(("partial_paper_swizzle", s.shared_layout.clone()));
            }
            consider(
                "paper_swizzle",
                paper.map(|s| Lowering::Whole {
                    plan: ConversionPlan::SharedMemory(Box::new(s)),
                }),
                &mut candidates,
                &mut best,
            );
            let searched = search_shared_layout(src, dst, elem_bits, target.banks);
            if let Ok((l, _)) = &searched {
                shared_layouts.push(("partial_searched_swizzle", l.clone()));
            }
            consider(
                "searched_swizzle",
                searched
                    .and_then(|(l, _)| plan_through_shared(src, dst, elem_bits, &l))
                    .map(|s| Lowering::Whole {
                        plan: ConversionPlan::SharedMemory(Box::new(s)),
                    }),
                &mut candidates,
                &mut best,
            );
        }
    }
    // Staged plans for conversions that leave their warps: in-warp ones
    // have the warp programs, whose packed-word form
    // ([`WordProgram::from_program`]) moves sub-word elements with fewer
    // permutes than a regroup followed by register moves.
    if staged
        && options.through.is_none()
        && matches!(elem_bits, 8 | 16)
        && moved_levels(src, dst)?.contains(&DimName::WARP)
    {
        for (name, at) in [
            ("regroup_first", RegroupAt::Before),
            ("regroup_last", RegroupAt::After),
        ] {
            let planned = staged_candidate(src, dst, elem_bits, target, options, at);
            consider(name, planned, &mut candidates, &mut best);
        }
    }
    if class == ConversionKind::SharedMemory && options.partial.considered() {
        for (name, smem) in &shared_layouts {
            let names = partial_names(name);
            let form = SplitInput::new(src, dst, smem, elem_bits);
            let planned = form.plan(plan_split).and_then(|l| match &l {
                Lowering::Partial { plan, .. } if plan.cost.staying_elements == 0 => {
                    Err(CodegenError::Unsupported(
                        "every element crosses warps: the full shared-memory plan".into(),
                    ))
                }
                _ => Ok(l),
            });
            let refused = planned.is_err();
            consider(names[0], planned, &mut candidates, &mut best);
            // Where staying depends on the lane (or the source register
            // does), the lane-predicated form of the same split, and the
            // form with transposed staying moves (one shuffle per staying
            // register, the reader's register chosen by its lane) where a
            // warp admits them.
            if !refused || options.split_form == Some(SplitForm::Plain) {
                continue;
            }
            // Lane masks are costed for 32 banks only.
            let masked = |planned: SplitPlanner| {
                if target.banks == 32 {
                    form.plan(planned)
                } else {
                    Err(CodegenError::Unsupported(
                        "lane-predicated partial plans are costed for 32 banks only".into(),
                    ))
                }
            };
            let transposed = match options.split_form {
                Some(SplitForm::Transposed) => masked(plan_split_transposed),
                Some(_) => Err(CodegenError::Unsupported(
                    "transposed staying moves were not requested".into(),
                )),
                None => match transposed_refusal(src, dst, elem_bits) {
                    None => masked(plan_split_transposed),
                    Some(why) => Err(CodegenError::Unsupported(why)),
                },
            };
            // A request for transposed staying moves takes the predicated
            // form only where no warp admits them.
            let predicated = match (options.split_form, &transposed) {
                (Some(SplitForm::Transposed), Ok(_)) => Err(CodegenError::Unsupported(
                    "transposed staying moves were requested and are planned".into(),
                )),
                _ => masked(plan_split_predicated),
            };
            consider(names[1], predicated, &mut candidates, &mut best);
            consider(names[2], transposed, &mut candidates, &mut best);
        }
    }
    // Matrix-instruction plans: where they are only allowed, after every
    // vector candidate, taken only where strictly cheaper (`better` above)
    // and not searched where the best plan so far is at the floor or at
    // the least any whole-CTA plan costs (no matrix plan can beat it).
    let bound = lower_bound(src, dst, elem_bits, target)?;
    // A whole-CTA plan stores and loads every byte of the tile at best at
    // `WAVEFRONT_BYTES` per wavefront, and where data crosses warps it
    // waits at a CTA barrier: no matrix plan costs less.
    let cross_warp = moved_levels(src, dst)?.contains(&DimName::WARP);
    let tile_bytes = dst.total_out_dim_size() * u64::from(elem_bits) / 8;
    let whole_floor = (2 * tile_bytes).div_ceil(WAVEFRONT_BYTES) as f64 / warps as f64
        + if cross_warp { BARRIER_COST } else { 0.0 };
    let at_floor = best
        .as_ref()
        .is_some_and(|b| b.2.cycles() <= bound.cycles.max(whole_floor));
    if options.matrix.considered()
        && (options.matrix == Allow::Required || elem_bits == MATRIX_DEFAULT_BITS)
        && options.through.is_none()
        && options.partial != Allow::Required
        && options.shared
        && !matches!(
            class,
            ConversionKind::NoOp | ConversionKind::RegisterPermutation
        )
        && !(options.matrix == Allow::Allowed && at_floor)
    {
        for (name, plans) in matrix_candidates(src, dst, elem_bits, &shared_layouts) {
            // A group stands as its cheapest proved plan (costed again
            // against the others), or as its first refusal.
            let mut first_error = None;
            let mut ranked = Vec::new();
            for p in plans {
                match p.and_then(|l| Ok((matrix_rank(&l, dst, target, cross_warp)?, l))) {
                    Ok(r) => ranked.push(r),
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            // The rank is the plan's cost before its proof: the first plan
            // the simulator proves, in rank order, is the group's cheapest.
            ranked.sort_by_key(|r| r.0);
            let mut group: Vec<Candidate> = Vec::new();
            let mut group_best: Best = None;
            for (_, l) in ranked {
                consider(name, Ok(l), &mut group, &mut group_best);
                if group_best.is_some() {
                    break;
                }
            }
            let standing = match (group_best, first_error) {
                (Some((_, lowering, ..)), _) => Ok(lowering),
                (None, Some(e)) => Err(e),
                (None, None) => Err(CodegenError::Unsupported(format!(
                    "no matrix plan of the group was proved ({})",
                    group
                        .first()
                        .and_then(|c| c.refused.as_deref())
                        .unwrap_or("none planned")
                ))),
            };
            consider(name, standing, &mut candidates, &mut best);
        }
    }
    // Last, so that it is taken only where strictly cheaper than every
    // other candidate (ties keep the earlier).
    if options.through.is_none()
        && matches!(
            class,
            ConversionKind::WarpShuffle | ConversionKind::SharedMemory
        )
    {
        consider(
            "balanced_program",
            balanced_candidate(src, dst, elem_bits),
            &mut candidates,
            &mut best,
        );
    }
    let Some((index, lowering, cost, words)) = best else {
        // Candidates the request excluded are not reasons.
        let why: Vec<String> = candidates
            .iter()
            .filter_map(|c| {
                let r = c.refused.as_deref().unwrap_or("?");
                (!r.ends_with("was not requested")).then(|| format!("{}: {r}", c.name))
            })
            .collect();
        return Err(CodegenError::Unsupported(format!(
            "no candidate plan was proved: {}",
            why.join("; ")
        )));
    };
    let cycles = cost.cycles();
    let above_bound = if bound.cycles > 0.0 {
        cycles / bound.cycles
    } else if cycles > 0.0 {
        f64::INFINITY
    } else {
        1.0
    };
    Ok(PlannedConversion {
        class,
        candidate: candidates[index].name,
        lowering,
        words,
        cost,
        cycles,
        lower_bound: bound,
        above_bound,
        candidates,
    })
}

/// The balanced warp program ([`BalancedPrograms`]) that [`whole_cost`]
/// would cost least: ranked by its in-warp cycles
/// ([`crate::cost::shuffle_cycles`]) as elements or, for 8/16-bit
/// elements, as its packed-word form ([`WordProgram::from_program`])
/// where that is cheaper, the programs built one at a time. Only the one
/// returned is proved (by `consider`, through [`whole_cost`], which falls
/// back to the element program if its word form failed the check).
/// Errors: the conversion leaves its warps.
fn balanced_candidate(src: &LinearLayout, dst: &LinearLayout, elem_bits: u32) -> Result<Lowering> {
    let programs = BalancedPrograms::new(src, dst, elem_bits)
        .map_err(|e| CodegenError::Unsupported(e.to_string()))?;
    let in_warp = |shuffles: usize, alu: usize| shuffle_cycles(shuffles as u64, alu as u64, 0);
    // 32-bit programs run as they are: the first is the cheapest.
    let tried = if elem_bits == 32 { 1 } else { programs.len() };
    let mut best: Option<(f64, WarpProgram)> = None;
    for p in (0..tried).filter_map(|i| programs.program(i)) {
        let c = p.cost;
        let element = in_warp(c.shuffles, c.selects + c.prmt);
        let words = WordProgram::from_program(&p.program).map(|w| {
            let n = w.cost();
            in_warp(n.shuffles, n.permutes)
        });
        let cycles = words.map_or(element, |w| w.min(element));
        if best.as_ref().is_none_or(|b| cycles < b.0) {
            best = Some((cycles, p.program));
        }
    }
    let (_, program) =
        best.ok_or_else(|| CodegenError::Unsupported("no balanced program".into()))?;
    Ok(Lowering::Whole {
        plan: ConversionPlan::WarpProgram(Box::new(program)),
    })
}

/// The staged candidate with the regroup at `at` ([`crate::regroup`]):
/// the regroup `src → I` ([`regroup_before`]) or `I → dst`
/// ([`regroup_after`]), and the planner's whole-CTA answer for the other
/// stage (`I → dst` or `src → I`) under `options` without partial plans.
/// Errors: the regroup does not apply, or the other stage has no plan.
pub fn staged_candidate(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
    options: &PlanOptions,
    at: RegroupAt,
) -> Result<Lowering> {
    let regroup = match at {
        RegroupAt::Before => regroup_before(src, dst, elem_bits)?,
        RegroupAt::After => regroup_after(src, dst, elem_bits)?,
    };
    let inter = &regroup.intermediate_layout;
    let (a, b) = match at {
        RegroupAt::Before => (inter, dst),
        RegroupAt::After => (src, inter),
    };
    // The word stage moves whole words: planned, as before matrix plans
    // were candidates of the default, without them.
    let whole = PlanOptions {
        partial: Allow::Never,
        matrix: match options.matrix {
            Allow::Allowed => Allow::Never,
            m => m,
        },
        ..options.clone()
    };
    let then = plan_stages(a, b, elem_bits, target, &whole, false)?;
    match then.lowering {
        Lowering::Whole { plan } => Ok(Lowering::Staged {
            regroup: Box::new(regroup),
            then: plan,
        }),
        other => Err(CodegenError::Unsupported(format!(
            "the word stage of the regroup was planned as a {} plan, not a whole-CTA one",
            other.kind_name()
        ))),
    }
}

/// The predicted cost of a partial plan, wavefronts counted by
/// [`crate::wavefront`] with `banks` banks on every warp's accesses;
/// staying shuffles packed `32 / bitwidth` elements of one source lane to a
/// 32-bit `shfl.sync` ([`crate::partial::PartialCost::packed_shuffles`]);
/// one barrier when any warp loads.
pub fn partial_cost(plan: &PartialCrossWarpPlan, banks: u64) -> PredictedCost {
    let mut c = PredictedCost {
        warps: plan.num_warps,
        shuffles: plan.cost.packed_shuffles,
        selects: plan.cost.selects,
        register_moves: plan.cost.register_moves,
        scratch_bytes: plan.scratch_elems * u64::from(plan.bitwidth.max(8)) / 8,
        src_registers: plan.src_registers,
        dst_registers: plan.dst_registers,
        ..Default::default()
    };
    let mut loads = false;
    for w in 0..plan.num_warps {
        let Some(k) = plan.class_of(w).map(|i| &plan.classes[i]) else {
            continue;
        };
        let wf = |a, runs: &dyn Fn(u64) -> bool| {
            vector_access_wavefronts(a, plan.num_lanes, w, plan.bitwidth, banks, runs)
        };
        for (i, a) in k.stores.iter().enumerate() {
            c.store_wavefronts += wf(a, &|l| k.stores_in(i, l));
        }
        for (i, a) in k.loads.iter().enumerate() {
            c.load_wavefronts += wf(a, &|l| k.loads_in(i, l));
        }
        loads |= !k.loads.is_empty();
    }
    c.barriers = loads as u64;
    c
}

/// Wavefronts of one vector [`Access`] (no matrix instruction) executed by
/// the lanes `runs` of warp `warp` with `lanes` lanes, `bitwidth`-bit
/// elements and `banks` banks: the access's element addresses turned into
/// bytes and counted by [`phases_of`]; a predicated access (some lanes do
/// not run it, 32 banks) by
/// [`crate::wavefront::predicated_access_wavefronts`].
fn vector_access_wavefronts(
    access: &Access,
    lanes: u64,
    warp: u64,
    bitwidth: u32,
    banks: u64,
    runs: &dyn Fn(u64) -> bool,
) -> u64 {
    let bytes = u64::from(bitwidth.max(8)) / 8;
    let vec_bytes = access.registers.len() as u64 * bytes;
    if (0..lanes).all(runs) {
        let starts: Vec<u64> = (0..lanes)
            .map(|l| access.address.eval(l, warp) * bytes)
            .collect();
        return phases_of(banks, &starts, vec_bytes).iter().sum();
    }
    let starts: Vec<Option<u64>> = (0..lanes)
        .map(|l| runs(l).then(|| access.address.eval(l, warp) * bytes))
        .collect();
    crate::wavefront::predicated_access_wavefronts(&starts, vec_bytes)
        .iter()
        .sum()
}

/// Whether a lowering stores or loads with `stmatrix` / `ldmatrix`.
pub fn uses_matrix(lowering: &Lowering) -> bool {
    match lowering {
        Lowering::Whole {
            plan: ConversionPlan::SharedMemory(s),
        }
        | Lowering::Staged {
            then: ConversionPlan::SharedMemory(s),
            ..
        } => s
            .rounds
            .iter()
            .flat_map(|r| r.stores.iter().chain(&r.loads))
            .any(|a| a.matrix.is_some()),
        _ => false,
    }
}

/// The matrix-instruction candidates ([`plan_shared_matrix`]), in groups
/// that each stand as one candidate: one group of one plan through each
/// shared layout of the vector candidates (`layouts`, named as the partial
/// candidates `partial_<name>`); then one group of plans through every
/// layout of the XOR swizzle family ([`xor_swizzle_family`], rank-2
/// tiles), and one through the layouts built for the matrix tile
/// ([`matrix_layout_candidates`]): a layout that suits `stmatrix` /
/// `ldmatrix` need not be one the vector search prefers. A group of many
/// stands by its cheapest proved plan. The groups are planned for tiles
/// of at most [`MATRIX_SEARCH_MAX_ELEMENTS`] elements.
pub(crate) fn matrix_candidates(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    layouts: &[(&'static str, LinearLayout)],
) -> Vec<(&'static str, Vec<Result<Lowering>>)> {
    let whole = |l: &LinearLayout| {
        plan_shared_matrix(src, dst, elem_bits, Some(l)).map(|s| Lowering::Whole {
            plan: ConversionPlan::SharedMemory(Box::new(s)),
        })
    };
    let mut groups: Vec<(&'static str, Vec<Result<Lowering>>)> = layouts
        .iter()
        .map(|(name, l)| {
            let name = match *name {
                "partial_triton" => "matrix_triton",
                "partial_paper_swizzle" => "matrix_paper_swizzle",
                _ => "matrix_searched_swizzle",
            };
            (name, vec![whole(l)])
        })
        .collect();
    let shape: Vec<u64> = src.out_dims().iter().map(|d| d.1).collect();
    if shape.len() != 2 || dst.total_out_dim_size() > MATRIX_SEARCH_MAX_ELEMENTS {
        return groups;
    }
    let family = xor_swizzle_family(&shape, elem_bits).unwrap_or_default();
    let built = matrix_layout_candidates(src, dst);
    // Each distinct layout once (the constructions repeat some).
    let mut seen: Vec<LinearLayout> = layouts.iter().map(|x| x.1.clone()).collect();
    for (name, candidates) in [
        ("matrix_xor_swizzle", family),
        ("matrix_constructed", built),
    ] {
        let mut plans = Vec::new();
        for l in candidates {
            if !seen.contains(&l) {
                plans.push(whole(&l));
                seen.push(l);
            }
        }
        if !plans.is_empty() {
            groups.push((name, plans));
        }
    }
    groups
}

/// Whether a candidate of `cycles` replaces the best so far (`best`
/// cycles): it is cheaper, or it ties and issues fewer shared-memory
/// instructions in the same class (`fewer_in_class`), unless it is a
/// matrix plan that is only allowed (`matrix_allowed_only`): those win no
/// tie, since the suite's `_mx` twins of vector programs with the same
/// wavefronts measured no faster on the H200 (2026-11-25, 0.4–1.6% slower
/// on the four pairs with both programs, BENCHMARKS.md "Every variant").
fn wins_over(cycles: f64, best: f64, fewer_in_class: bool, matrix_allowed_only: bool) -> bool {
    cycles < best || (cycles == best && fewer_in_class && !matrix_allowed_only)
}

/// A whole-CTA shared-memory plan's rank before its proof: its cycles
/// times its warps as its cost will count them (the store and load
/// wavefronts: [`plan_store_wavefronts`], [`plan_load_wavefronts`]; and
/// [`BARRIER_COST`] per barrier and warp, none where the buffer is
/// warp-private: [`mark_warp_private`]), then its shared-memory
/// instructions per thread. `cross_warp`: the conversion moves data
/// across warps.
fn matrix_rank(
    lowering: &Lowering,
    dst: &LinearLayout,
    target: &Target,
    cross_warp: bool,
) -> Result<(u64, u64)> {
    let Lowering::Whole {
        plan: ConversionPlan::SharedMemory(s),
    } = lowering
    else {
        return Err(CodegenError::Invalid(
            "a matrix candidate is a whole-CTA shared-memory plan".into(),
        ));
    };
    let (lanes, warps, blocks) = (
        target.warp_size,
        size(dst, DimName::WARP),
        size(dst, DimName::BLOCK),
    );
    let config = SimulatorConfig {
        banks: target.banks,
    };
    let wavefronts = plan_store_wavefronts(s, lanes, warps, blocks, target.banks)
        + plan_load_wavefronts(&config, s, lanes, warps, blocks)?;
    // A conversion that moves data across warps has no warp-private plan
    // (some element is stored by one warp and loaded by another): the
    // check, which costs more than the rest of the rank, runs only where
    // no data leaves its warp.
    let barriers = if !cross_warp && is_warp_private(s, lanes, warps) {
        0
    } else {
        s.barriers
    };
    let barrier_cost = BARRIER_COST as u64 * barriers * warps * blocks;
    Ok((wavefronts + barrier_cost, shared_instructions(lowering, 1)))
}

/// The best candidate so far: its index, lowering, cost and word form.
type Best = Option<(usize, Lowering, PredictedCost, Option<WordProgram>)>;

/// The predicted cost of the whole-CTA `plan` from the simulator's
/// `report` of it: its counts, with the plan's scratch and, for a
/// shared-memory plan, the store wavefronts of the replicas that store (the
/// replicas of a broadcast source do not).
fn report_cost(
    plan: &ConversionPlan,
    report: &SimulationReport,
    dst: &LinearLayout,
    target: &Target,
) -> PredictedCost {
    let mut c = predicted_cost(report, total_warps(dst));
    if let ConversionPlan::SharedMemory(s) = plan {
        c.scratch_bytes = s.scratch_bytes;
        c.store_wavefronts = plan_store_wavefronts(
            s,
            target.warp_size,
            size(dst, DimName::WARP),
            size(dst, DimName::BLOCK),
            target.banks,
        );
    }
    c
}

/// The predicted cost of a whole-CTA `plan` of `src → dst` on `target`
/// (the simulator proves the plan and counts its instructions and
/// wavefronts; replicas of a broadcast source do not store) and, for a
/// warp program of 8/16-bit elements, its packed-word form when that is
/// what runs: the same program over whole 32-bit words with byte permutes
/// whose selectors depend on the lane ([`WordProgram::from_program`],
/// proved on real words by [`check_word_program`]), taken when its cycles
/// are no more than the element program's. The element program leaves the
/// packing of its inputs and the unpacking of its outputs to the caller
/// (uncounted), so ties go to words. With the word form, the cost counts
/// its shuffles and permutes (`prmt`, one ALU instruction each) and no
/// selects: a select of one of two registers by the lane is a permute with
/// a lane-dependent selector.
pub fn whole_cost(
    config: &SimulatorConfig,
    plan: &ConversionPlan,
    src: &LinearLayout,
    dst: &LinearLayout,
    target: &Target,
) -> Result<(PredictedCost, Option<WordProgram>)> {
    let warps = total_warps(dst);
    let report = simulate_with(config, plan, src, dst)?;
    let c = report_cost(plan, &report, dst, target);
    let ConversionPlan::WarpProgram(p) = plan else {
        return Ok((c, None));
    };
    let words = WordProgram::from_program(p)
        .filter(|w| check_word_program(w, src, dst).is_ok())
        .map(|w| {
            let n = w.cost();
            let wc = PredictedCost {
                shuffles: n.shuffles as u64 * warps,
                selects: 0,
                prmt: n.permutes as u64 * warps,
                ..c.clone()
            };
            (w, wc)
        });
    Ok(match words.filter(|(_, wc)| wc.cycles() <= c.cycles()) {
        Some((w, wc)) => (wc, Some(w)),
        None => (c, None),
    })
}

#[cfg(test)]
mod tests {
    use super::wins_over;

    #[test]
    fn an_allowed_matrix_plan_wins_no_tie() {
        // Cheaper wins, matrix or not; a tie goes to fewer instructions in
        // one class, except for a matrix plan that is only allowed.
        assert!(wins_over(51.0, 52.0, false, true));
        assert!(wins_over(52.0, 52.0, true, false));
        assert!(!wins_over(52.0, 52.0, true, true));
        assert!(!wins_over(52.0, 52.0, false, false));
        assert!(!wins_over(53.0, 52.0, true, false));
    }
}
