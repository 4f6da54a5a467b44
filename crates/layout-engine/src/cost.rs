//! Pricing conversions: the planner's answer
//! ([`layout_codegen::planner::plan`], the one the CUDA emitter,
//! `linlayout cuda` and `linlayout convert` use: every plan class on one
//! cost scale, cycles of one SM per warp), weighted by loop depth.
//!
//! ## Loop weight
//! A conversion inside `d` nested loops costs `LOOP_WEIGHT^d` times its
//! plan cost, with [`LOOP_WEIGHT`] = 10. Trip counts are runtime values
//! (the oracle's loops run `K / BLOCK_K` or `N / BLOCK_N` times), so a
//! static weight is a convention; 10 per level is the classic one of
//! spill-cost heuristics in register allocators (Chaitin-style
//! `10^depth`), large enough that no saving outside a loop pays for a
//! conversion inside it in any record of the corpus, yet finite so that
//! many conversions outside still count. Both assignments compared in
//! `--compare` are weighted alike.
//!
//! ## The target
//! The planner's [`Target`] follows the layouts' warp: 32 lanes is
//! [`Target::SM90`] (the engine's sm80 and sm90), 64 lanes
//! [`Target::CDNA3`] (gfx942: 64 LDS banks, 64 KiB per workgroup).
//!
//! ## Shortcuts (each gives the planner's answer)
//! * A conversion the algebra proves trivial (no-op or register
//!   renaming) costs 0 without planning (`tests/cost_triton.rs` checks the
//!   planner agrees on every trivial conversion of the corpora).
//! * [`layout_codegen::planner::plan_at_floor`]: a partial cross-warp plan
//!   that provably beats every other candidate is taken without planning
//!   them (its module doc has the proof; `tests/price_shortcut.rs` checks
//!   every price against [`plan`] on every pair the corpora price).
//!
//! ## Beyond the target's shared memory
//! The planner plans a whole-tile conversion in one round through a
//! buffer of the whole tile, and refuses a plan whose buffer exceeds the
//! target's shared memory (a 128×128 tensor of 64-bit pointers needs 128
//! KiB, gfx942 has 64 KiB). Triton splits such a conversion into rounds
//! over the same shared layout, moving the same bytes with more barriers.
//! The engine then prices the planner's answer for the target without the
//! limit, and [`Price::note`] says so.

use crate::assignment::{Assignment, Conversion};
use crate::error::{EngineError, Result};
use crate::ir::Program;
use layout_codegen::conversion::classify;
use layout_codegen::planner::{plan, plan_at_floor, Target};
use linear_layout::LinearLayout;
use serde::Serialize;
use std::hash::{Hash, Hasher};

/// Weight of one level of loop nesting (see the module doc).
pub const LOOP_WEIGHT: f64 = 10.0;

/// The price of one conversion (unweighted).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Price {
    /// Triton's class of the conversion (`noop`, `register`, `shuffle`,
    /// `shared`, `cross_cta`).
    pub class: &'static str,
    /// The kind of the planner's plan (`noop`, `register`, `shuffle`,
    /// `warp_program`, `shared`, `partial`, ...:
    /// [`layout_codegen::planner::Lowering::kind_name`]).
    pub plan: String,
    /// The planner's chosen candidate
    /// ([`layout_codegen::planner::Candidate::name`]: `triton`,
    /// `shuffle_rounds`, `searched_swizzle`, `partial_triton`, ...).
    pub candidate: &'static str,
    /// Cycles per warp of the plan cost model.
    pub cycles: f64,
    /// Why the price is not the planner's answer for the target as it is
    /// (module doc: beyond the target's shared memory); `None` when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Price {
    /// No data moves (Triton's `isConvertLayoutTrivial`).
    pub fn trivial(&self) -> bool {
        matches!(self.class, "noop" | "register")
    }
}

/// A memoising pricer (the same pair of layouts recurs many times).
///
/// Entries are keyed by a fingerprint of the pair and the element width
/// class (8, 16, 32 or 64 bits) and compared in full within a bucket, so a
/// lookup clones no layout.
#[derive(Default)]
pub struct Pricer {
    cache: foldhash::HashMap<(u64, u32), Vec<Entry>>,
}

/// A priced pair of [`Pricer`]'s cache.
type Entry = (LinearLayout, LinearLayout, Result<Price>);

/// The element width class the plan cost model distinguishes.
fn width_class(bits: u32) -> u32 {
    match bits {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

fn fingerprint(src: &LinearLayout, dst: &LinearLayout) -> u64 {
    use std::hash::BuildHasher;
    let mut h = foldhash::fast::FixedState::default().build_hasher();
    src.hash(&mut h);
    dst.hash(&mut h);
    h.finish()
}

impl Pricer {
    /// A fresh pricer.
    pub fn new() -> Pricer {
        Pricer::default()
    }

    /// The price of converting `src → dst` for `bits`-bit elements.
    pub fn price(&mut self, src: &LinearLayout, dst: &LinearLayout, bits: u32) -> Result<Price> {
        let key = (fingerprint(src, dst), width_class(bits));
        if let Some(p) = self.cached(key, src, dst) {
            return p.clone();
        }
        let p = price_uncached(src, dst, bits);
        self.cache
            .entry(key)
            .or_default()
            .push((src.clone(), dst.clone(), p.clone()));
        p
    }

    fn cached(
        &self,
        key: (u64, u32),
        src: &LinearLayout,
        dst: &LinearLayout,
    ) -> Option<&Result<Price>> {
        self.cache
            .get(&key)?
            .iter()
            .find(|(s, d, _)| s == src && d == dst)
            .map(|e| &e.2)
    }

    /// A lower bound on [`Self::price`]`(src, dst, bits)` from what is
    /// already priced, without planning: the largest price of the same
    /// pair at a narrower or equal element width (a plan moving wider
    /// elements in the same pattern moves at least as many bytes; checked
    /// on every conversion of the corpus by `tests/cost_triton.rs`), else
    /// 0.
    pub fn lower_bound(&self, src: &LinearLayout, dst: &LinearLayout, bits: u32) -> f64 {
        let h = fingerprint(src, dst);
        [8, 16, 32, 64]
            .into_iter()
            .filter(|&b| b <= width_class(bits))
            .filter_map(|b| match self.cached((h, b), src, dst) {
                Some(Ok(p)) => Some(p.cycles),
                _ => None,
            })
            .fold(0.0, f64::max)
    }

    /// Every pair priced so far: source, destination, element width class
    /// (8, 16, 32 or 64 bits) and price (for tests that check prices
    /// against their definition).
    pub fn priced(
        &self,
    ) -> impl Iterator<Item = (&LinearLayout, &LinearLayout, u32, &Result<Price>)> {
        self.cache
            .iter()
            .flat_map(|(&(_, bits), e)| e.iter().map(move |(s, d, p)| (s, d, bits, p)))
    }

    /// Every conversion of an assignment with its weighted price; the
    /// total is [`total_cost`].
    pub fn price_all(&mut self, p: &Program, a: &Assignment) -> Result<Vec<(Conversion, Price)>> {
        crate::assignment::conversions(p, a)?
            .into_iter()
            .map(|c| {
                let pr = self
                    .price(&c.src.ll, &c.dst.ll, c.bits)
                    .map_err(|e| match e {
                        EngineError::Plan { shape, message, .. } => EngineError::Plan {
                            value: p.values[c.value].name.clone(),
                            shape,
                            message,
                        },
                        e => e,
                    })?;
                Ok((c, pr))
            })
            .collect()
    }
}

/// `cycles · LOOP_WEIGHT^depth`.
pub fn weighted(cycles: f64, depth: usize) -> f64 {
    cycles * LOOP_WEIGHT.powi(depth.min(16) as i32)
}

/// The total weighted cost of priced conversions.
pub fn total_cost(priced: &[(Conversion, Price)]) -> f64 {
    // `+ 0.0`: the empty sum is -0.0; report 0.
    priced
        .iter()
        .map(|(c, p)| weighted(p.cycles, c.depth))
        .sum::<f64>()
        + 0.0
}

fn price_uncached(src: &LinearLayout, dst: &LinearLayout, bits: u32) -> Result<Price> {
    let shape = crate::shape_ops::out_shape(dst);
    let plan_err = |m: String| EngineError::Plan {
        value: String::new(),
        shape: shape.clone(),
        message: m,
    };
    let bits = width_class(bits);
    let class = classify(src, dst).map_err(|e| plan_err(e.to_string()))?;
    // No data moves (the algebra proves the maps equal, or equal up to a
    // renaming of registers): the plan is that renaming and costs nothing.
    if matches!(class.short_name(), "noop" | "register") {
        return Ok(Price {
            class: class.short_name(),
            plan: class.short_name().to_string(),
            candidate: "triton",
            cycles: 0.0,
            note: None,
        });
    }
    let target = planner_target(src);
    let (planned, note) = match plan_at_floor(src, dst, bits, &target) {
        Some(p) => (p, None),
        None => match plan(src, dst, bits, &target) {
            Ok(p) => (p, None),
            Err(e) => beyond_shared_memory(src, dst, bits, &target)
                .ok_or_else(|| plan_err(e.to_string()))?,
        },
    };
    Ok(Price {
        class: class.short_name(),
        plan: planned.lowering.kind_name().to_string(),
        candidate: planned.candidate,
        cycles: planned.cycles,
        note,
    })
}

/// The planner's answer for `target` without its shared-memory limit,
/// when that answer needs more shared memory than the target has (module
/// doc), with the note saying so; `None` otherwise.
fn beyond_shared_memory(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
    target: &Target,
) -> Option<(layout_codegen::planner::PlannedConversion, Option<String>)> {
    let unbounded = Target {
        smem_bytes_per_cta: u64::MAX,
        ..*target
    };
    let p = plan(src, dst, bits, &unbounded).ok()?;
    (p.cost.scratch_bytes > target.smem_bytes_per_cta).then(|| {
        let note = format!(
            "the plan's buffer of {} bytes exceeds the target's {} bytes of shared memory; \
             priced as one round (Triton splits it into rounds)",
            p.cost.scratch_bytes, target.smem_bytes_per_cta
        );
        (p, Some(note))
    })
}

/// The planner's target of a layout (module doc): a 64-lane warp is a
/// CDNA3 wave, else SM90.
pub fn planner_target(l: &LinearLayout) -> Target {
    let lanes = if l.has_in_dim(linear_layout::DimName::LANE) {
        l.in_dim_size(linear_layout::DimName::LANE)
    } else {
        1
    };
    if lanes == 64 {
        Target::CDNA3
    } else {
        Target::SM90
    }
}
