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
//! elements), and [`plan_partial_round_trip`] returns both directions'
//! answers when the planner chose partial cross-warp plans (on shared
//! words where they apply): an emitter translates either answer and
//! decides nothing.

use crate::error::{CodegenError, Result};
use crate::packed_shuffle::WordProgram;
use crate::partial::PartialCrossWarpPlan;
use crate::plan::ConversionPlan;
use crate::plan_options::{Allow, PlanOptions};
use crate::planner::{plan_with, uses_matrix, Lowering, PlannedConversion, Target};
use crate::shared_words::{plan_shared_words, SharedWordPlan};
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
    // The pair through one buffer layout, by whole-CTA plans as the
    // independent pair's.
    let given = PlanOptions {
        through: Some(layout),
        partial: Allow::Never,
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
    /// planner runs ([`PlannedConversion::words`]): they
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
    } else if let (Some(f), Some(b)) = (fwd.words.as_ref(), bwd.words.as_ref()) {
        RoundTripWords::WarpWords(Box::new((f.clone(), b.clone())))
    } else {
        let tile: u64 = src.out_dims().iter().map(|d| d.1).product();
        let one_round = |p: &PlannedConversion| match p.lowering.whole() {
            Some(ConversionPlan::SharedMemory(m))
                if m.rounds.len() == 1 && m.scratch_elems == tile && !uses_matrix(&p.lowering) =>
            {
                Some((m.shared_layout.clone(), m.warp_private))
            }
            _ => None,
        };
        match (one_round(&fwd), one_round(&bwd)) {
            (Some((f, fp)), Some((b, bp))) if f == b => plan_shared_words(src, dst, &f, elem_bits)?
                .map_or(RoundTripWords::Elements, |p| {
                    RoundTripWords::SharedWords(Box::new(SharedWordPlan {
                        warp_private: fp && bp,
                        ..p
                    }))
                }),
            _ => RoundTripWords::Elements,
        }
    };
    Ok(RoundTrip { fwd, bwd, words })
}

/// Both directions of a round trip as partial cross-warp plans
/// ([`plan_partial_round_trip`]): the planner's two answers.
#[derive(Clone, Debug)]
pub struct PartialRoundTrip {
    /// `src → dst`: of the elements, or of the packed words `fwd_words`.
    pub fwd: PartialCrossWarpPlan,
    /// `dst → src`: of the elements, or of the packed words `bwd_words`.
    pub bwd: PartialCrossWarpPlan,
    /// The packing of `src → dst`'s words (its `src` packs the source
    /// layout's registers, its `dst` the destination's;
    /// [`crate::planner::Lowering::Partial`]), `None` for a plan of elements.
    pub fwd_words: Option<SharedWordPlan>,
    /// The same for `dst → src` (its `src` packs the destination layout's
    /// registers).
    pub bwd_words: Option<SharedWordPlan>,
    /// The planner's candidate names of the two answers.
    pub candidates: (&'static str, &'static str),
}

/// Plans `src → dst` and `dst → src` of `elem_bits`-bit elements with
/// [`plan_with`] under `options` and returns the two answers when both are
/// partial cross-warp plans ([`crate::planner::Lowering::Partial`], each
/// on packed words where the planner put it there); an error that names
/// the other class otherwise. With [`PlanOptions::partial_only`] (or
/// [`PlanOptions::partial_through`]) both directions are asked for the
/// class. At least one direction must keep some but not all of its
/// elements in their warps.
pub fn plan_partial_round_trip(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
    options: &PlanOptions,
) -> Result<PartialRoundTrip> {
    let partial = |a: &LinearLayout, b: &LinearLayout, d: &str| {
        let p = plan_with(a, b, elem_bits, target, options)
            .map_err(|e| CodegenError::Invalid(format!("{d}: {e}")))?;
        let candidate = p.candidate;
        match p.lowering {
            Lowering::Partial { plan, words } => Ok((*plan, words.map(|w| *w), candidate)),
            other => Err(CodegenError::Unsupported(format!(
                "{d}: the planner chose a {} plan ({candidate}), not a partial cross-warp one",
                other.kind_name()
            ))),
        }
    };
    let (fwd, fwd_words, cf) = partial(src, dst, "src → dst")?;
    let (bwd, bwd_words, cb) = partial(dst, src, "dst → src")?;
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
    Ok(PartialRoundTrip {
        fwd,
        bwd,
        fwd_words,
        bwd_words,
        candidates: (cf, cb),
    })
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
