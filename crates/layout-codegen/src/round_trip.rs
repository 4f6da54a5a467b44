//! Both directions of a round trip `src → dst → src` (a benchmark loop, or
//! a kernel that converts and converts back), planned together.
//!
//! Each direction is planned by [`plan_with`] on its own. When both go
//! through shared memory by one-round vector plans, the pair is also
//! planned through one buffer layout, layout-codegen's shared-layout search
//! for `src → dst` ([`search_shared_layout`]), in both directions (request
//! [`PlanOptions::through`]); that pair is taken when its predicted cycles
//! together are no more than the independent pair's. One layout for both
//! directions is what lets an emitter keep 8/16-bit data packed in shared
//! 4-byte words on both sides (every shared word one register word of one
//! thread): with the independent choices the two directions may tie on
//! different layouts (e.g. the paper's construction for `src → dst` and
//! for `dst → src`), and the words would have to be repacked.
//!
//! [`plan_round_trip_words`] adds that word form to the pair
//! ([`RoundTripWords`]: warp programs on words, shared words, or
//! elements), and [`plan_partial_round_trip`] plans both directions as
//! partial cross-warp conversions (on shared words where they apply): an
//! emitter translates either answer and decides nothing.

use crate::error::{CodegenError, Result};
use crate::packed_shuffle::WordProgram;
use crate::partial::{
    plan_split, plan_split_predicated, plan_split_transposed, PartialCrossWarpPlan,
};
use crate::plan::ConversionPlan;
use crate::plan_options::PlanOptions;
use crate::planner::{plan_with, preferred_word_program, uses_matrix, PlannedConversion, Target};
use crate::shared_words::{plan_shared_words, word_layouts, SharedWordPlan};
use crate::swizzle_search::search_shared_layout;
use linear_layout::{DimName, LinearLayout};

/// The plans of `src → dst` and `dst → src` (module doc), both under
/// `options`.
pub fn plan_round_trip(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
    options: &PlanOptions,
) -> Result<(PlannedConversion, PlannedConversion)> {
    let fwd = plan_with(src, dst, elem_bits, target, options)?;
    let bwd = plan_with(dst, src, elem_bits, target, options)?;
    let one_round = |p: &PlannedConversion| {
        matches!(p.lowering.whole(), Some(ConversionPlan::SharedMemory(m)) if m.rounds.len() == 1)
            && !uses_matrix(&p.lowering)
    };
    if !one_round(&fwd) || !one_round(&bwd) || options.through.is_some() {
        return Ok((fwd, bwd));
    }
    let Ok((layout, _)) = search_shared_layout(src, dst, elem_bits, target.banks) else {
        return Ok((fwd, bwd));
    };
    let given = PlanOptions {
        through: Some(layout),
        ..options.clone()
    };
    let pair = plan_with(src, dst, elem_bits, target, &given)
        .and_then(|f| Ok((f, plan_with(dst, src, elem_bits, target, &given)?)));
    match pair {
        Ok((f, b)) if f.cycles + b.cycles <= fwd.cycles + bwd.cycles => Ok((f, b)),
        _ => Ok((fwd, bwd)),
    }
}

/// How a round trip's two conversions hold 8/16-bit data between them
/// ([`plan_round_trip_words`]).
#[derive(Clone, Debug)]
pub enum RoundTripWords {
    /// Element arrays: the two plans as they are.
    Elements,
    /// Both directions are warp programs whose packed-word form the
    /// planner prefers ([`crate::planner::preferred_word_program`]): they
    /// run on consecutive words (`32 / bits` consecutive registers per
    /// word), forward then backward.
    WarpWords(Box<(WordProgram, WordProgram)>),
    /// Both directions go through one shared layout by one-round vector
    /// plans over the whole tile, and every shared 4-byte word is one
    /// register word on both sides ([`crate::shared_words`]): both run on
    /// those words, each side packed by the register bits of its words.
    SharedWords(Box<SharedWordPlan>),
}

/// Both directions of a round trip and the packed-word form they run in.
#[derive(Clone, Debug)]
pub struct RoundTrip {
    /// `src → dst`.
    pub fwd: PlannedConversion,
    /// `dst → src`.
    pub bwd: PlannedConversion,
    /// The word form of the pair (8/16-bit data only; else
    /// [`RoundTripWords::Elements`]).
    pub words: RoundTripWords,
}

/// [`plan_round_trip`] and the word form its pair runs in
/// ([`RoundTripWords`]): warp programs on words where the planner prefers
/// both word programs, else shared words where both plans are one-round
/// vector plans over the whole tile through one shared layout and the
/// shared words are register words on both sides, else elements.
pub fn plan_round_trip_words(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
    options: &PlanOptions,
) -> Result<RoundTrip> {
    let (fwd, bwd) = plan_round_trip(src, dst, elem_bits, target, options)?;
    let words = if !matches!(elem_bits, 8 | 16) {
        RoundTripWords::Elements
    } else if let (Some(f), Some(b)) = (preferred_word_program(&fwd), preferred_word_program(&bwd))
    {
        RoundTripWords::WarpWords(Box::new((f.clone(), b.clone())))
    } else {
        let tile: u64 = src.out_dims().iter().map(|d| d.1).product();
        let one_round = |p: &PlannedConversion| match p.lowering.whole() {
            Some(ConversionPlan::SharedMemory(m))
                if m.rounds.len() == 1 && m.scratch_elems == tile && !uses_matrix(&p.lowering) =>
            {
                Some(m.shared_layout.clone())
            }
            _ => None,
        };
        match (one_round(&fwd), one_round(&bwd)) {
            (Some(f), Some(b)) if f == b => plan_shared_words(src, dst, &f, elem_bits)?
                .map_or(RoundTripWords::Elements, |p| {
                    RoundTripWords::SharedWords(Box::new(p))
                }),
            _ => RoundTripWords::Elements,
        }
    };
    Ok(RoundTrip { fwd, bwd, words })
}

/// Both directions of a round trip as partial cross-warp plans
/// ([`plan_partial_round_trip`]), and the shared words they run on.
#[derive(Clone, Debug)]
pub struct PartialRoundTrip {
    /// `src → dst` ([`crate::partial::plan_split`], or its lane-predicated
    /// form), on words when `words` is set.
    pub fwd: PartialCrossWarpPlan,
    /// `dst → src`.
    pub bwd: PartialCrossWarpPlan,
    /// For 8/16-bit elements whose shared 4-byte words are register words
    /// on both sides: the packing, and `fwd`/`bwd` are the 32-bit partial
    /// plans of the word layouts ([`crate::shared_words::word_layouts`]):
    /// stores, loads, staying moves and shuffles move whole words.
    pub words: Option<SharedWordPlan>,
}

/// Which partial planners [`plan_partial_round_trip`] may use for a
/// direction the plain class ([`crate::partial::plan_split`]) refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialForm {
    /// None: the direction is refused.
    Plain,
    /// [`crate::partial::plan_split_predicated`].
    Predicated,
    /// [`crate::partial::plan_split_transposed`] where a warp admits
    /// transposed staying moves, else the predicated form.
    Transposed,
}

/// Plans `src → dst` and `dst → src` of `elem_bits`-bit elements as
/// partial cross-warp conversions through `smem` (offset → tensor; `None`:
/// the shared layout of fewest wavefronts,
/// [`search_shared_layout`], or row-major where the search finds none):
/// each direction by [`crate::partial::plan_split`] (it may also keep
/// everything in its warps, e.g. a replicated A operand back to its mma
/// accumulators) or, where that refuses because staying depends on the
/// lane, by the partial planner `form` names (none for
/// [`PartialForm::Plain`]). At least one direction must
/// keep some but not all of its elements in their warps. 8/16-bit elements
/// whose shared words are register words on both sides
/// ([`plan_shared_words`]) are planned as the 32-bit conversion of the
/// packed words. Rank-2 tiles of 8, 16 or 32-bit elements.
pub fn plan_partial_round_trip(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: Option<&LinearLayout>,
    elem_bits: u32,
    form: PartialForm,
) -> Result<PartialRoundTrip> {
    if !matches!(elem_bits, 8 | 16 | 32) {
        return Err(CodegenError::Invalid(format!(
            "partial cross-warp round trips take 8, 16 and 32-bit elements, not {elem_bits}"
        )));
    }
    let shape: Vec<u64> = src.out_dims().iter().map(|d| d.1).collect();
    let smem = match smem {
        Some(l) => l.clone(),
        None => search_shared_layout(src, dst, elem_bits, 32)
            .map_or_else(|_| row_major(&shape), |x| x.0),
    };
    let words = match elem_bits {
        8 | 16 => plan_shared_words(src, dst, &smem, elem_bits)?,
        _ => None,
    };
    let (psrc, pdst, psmem, pbits) = match &words {
        Some(p) => {
            let (a, b, c) = word_layouts(p)?;
            (a, b, c, 32)
        }
        None => (src.clone(), dst.clone(), smem, elem_bits),
    };
    let split = |a: &LinearLayout, b: &LinearLayout| {
        plan_split(a, b, &psmem, pbits).or_else(|e| match form {
            PartialForm::Plain => Err(e),
            PartialForm::Predicated => plan_split_predicated(a, b, &psmem, pbits),
            PartialForm::Transposed => plan_split_transposed(a, b, &psmem, pbits)
                .or_else(|_| plan_split_predicated(a, b, &psmem, pbits)),
        })
    };
    let context = |d: &str, e: CodegenError| CodegenError::Invalid(format!("{d}: {e}"));
    let fwd = split(&psrc, &pdst).map_err(|e| context("src → dst", e))?;
    let bwd = split(&pdst, &psrc).map_err(|e| context("dst → src", e))?;
    let mixed = |p: &PartialCrossWarpPlan| {
        p.cost.staying_elements > 0 && p.cost.staying_elements < p.cost.elements
    };
    if !mixed(&fwd) && !mixed(&bwd) {
        return Err(CodegenError::Invalid(format!(
            "neither direction is a partial cross-warp conversion \
             (src → dst keeps {} of {} elements in their warps, dst → src {} of {})",
            fwd.cost.staying_elements,
            fwd.cost.elements,
            bwd.cost.staying_elements,
            bwd.cost.elements
        )));
    }
    Ok(PartialRoundTrip { fwd, bwd, words })
}

/// Row-major shared layout `offset → (dim0, dim1, …)` of `shape` (last dim
/// fastest: offset bit 0 is the lowest bit of the last dim); empty for an
/// empty shape.
pub fn row_major(shape: &[u64]) -> LinearLayout {
    let id = |d: usize| LinearLayout::identity_1d(shape[d], DimName::OFFSET, DimName::dim(d));
    let Some(last) = shape.len().checked_sub(1) else {
        return LinearLayout::empty();
    };
    let l = (0..last).rev().fold(id(last), |l, d| l * id(d));
    let dims: Vec<DimName> = (0..shape.len()).map(DimName::dim).collect();
    l.transpose_outs(&dims).expect("the layout's own dims")
}
