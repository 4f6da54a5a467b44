//! Pricing conversions: `layout_codegen`'s plan cost model (cycles of one
//! SM per warp, the cheapest proved plan of [`plan_conversion_best`], or a
//! partial cross-warp plan when that is cheaper), weighted by loop depth.
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
//! ## Partial plans
//! [`layout_codegen::partial::plan_split_optimal`] is a candidate too: its
//! shared-memory issue slots (`partial_units`: wavefronts plus packed
//! shuffles, summed over the CTA's warps) divided by the warps, plus one
//! barrier, are the same units as
//! [`layout_codegen::choice::plan_cost`]; it is taken only when the
//! partial plan is both proved and cheaper.

use crate::assignment::{Assignment, Conversion};
use crate::error::{EngineError, Result};
use crate::ir::Program;
use crate::shape_ops::squeeze;
use layout_codegen::choice::{
    plan_conversion_best, plan_conversion_triton, total_warps, BARRIER_COST,
};
use layout_codegen::conversion::classify;
use layout_codegen::lower_bound::full_shared_floor;
use layout_codegen::partial::plan_split_optimal;
use linear_layout::LinearLayout;
use serde::Serialize;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Weight of one level of loop nesting (see the module doc).
pub const LOOP_WEIGHT: f64 = 10.0;

/// The price of one conversion (unweighted).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Price {
    /// The conversion class (`noop`, `register`, `shuffle`, `shared`, `cross_cta`).
    pub class: &'static str,
    /// The chosen plan (`noop`, `register`, `shuffle`, `shared`, `partial`, ...).
    pub plan: String,
    /// Which planner candidate (`triton`, `shuffle`, `paper_swizzle`, `partial`).
    pub candidate: &'static str,
    /// Cycles per warp of the plan cost model.
    pub cycles: f64,
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
    cache: HashMap<(u64, u32), Vec<Entry>>,
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
    let mut h = std::collections::hash_map::DefaultHasher::new();
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
        // Size-1 out dims hold no bits: the pair without them has the same
        // packed columns and the same price (`tests/price_shortcut.rs`
        // checks every pair against its definition), and is often priced
        // already (a value and its `expand_dims`). An error keeps the
        // value's own shape.
        let p = match (squeeze(src), squeeze(dst)) {
            (Some(s), Some(d)) if s.out_dims() == d.out_dims() => {
                self.price(&s, &d, bits).map_err(|e| match e {
                    EngineError::Plan { value, message, .. } => EngineError::Plan {
                        value,
                        shape: crate::shape_ops::out_shape(dst),
                        message,
                    },
                    e => e,
                })
            }
            _ => price_uncached(src, dst, bits),
        };
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
    let bits = match bits {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        _ => 64,
    };
    let class = classify(src, dst).map_err(|e| plan_err(e.to_string()))?;
    // No data moves (the algebra proves the maps equal, or equal up to a
    // renaming of registers): the plan is that renaming and costs nothing,
    // so no planner runs (`tests/cost_triton.rs` checks the planner agrees
    // on every trivial conversion of the corpora).
    if matches!(class.short_name(), "noop" | "register") {
        return Ok(Price {
            class: class.short_name(),
            plan: class.short_name().to_string(),
            candidate: "triton",
            cycles: 0.0,
        });
    }
    let shared = class.short_name() == "shared";
    let partial = if shared {
        partial_cycles(src, dst, bits)
    } else {
        None
    };
    // Elements cross warps, so no shuffle plan passes the simulator and
    // every other candidate of `plan_conversion_best` moves the whole tile
    // through shared memory, at no less than `full_shared_floor`: a partial
    // plan below that floor wins without them being planned. Triton's plan
    // is still planned (not simulated), so that a conversion its planner
    // refuses is refused as before. `tests/price_shortcut.rs` checks the
    // price against both planners on every pair the engine prices.
    if let Some((cycles, true)) = partial {
        if cycles < full_shared_floor(dst, bits) {
            plan_conversion_triton(src, dst, bits).map_err(|e| plan_err(e.to_string()))?;
            return Ok(partial_price(class.short_name(), cycles));
        }
    }
    let best = plan_conversion_best(src, dst, bits).map_err(|e| plan_err(e.to_string()))?;
    let price = Price {
        class: class.short_name(),
        plan: best.plan.kind_name().to_string(),
        candidate: best.candidate,
        cycles: best.cost,
    };
    Ok(match partial {
        Some((cycles, _)) if cycles < price.cycles => partial_price(price.class, cycles),
        _ => price,
    })
}

/// The price of a partial plan of `cycles`.
fn partial_price(class: &'static str, cycles: f64) -> Price {
    Price {
        class,
        plan: "partial".into(),
        candidate: "partial",
        cycles,
    }
}

/// The cycles of the partial cross-warp plan of a shared-memory
/// conversion ([`plan_split_optimal`], proved), when it is predicted
/// cheaper than the full plan through the same shared layout (module doc),
/// and whether any element crosses warps; `None` when there is no such
/// plan.
fn partial_cycles(src: &LinearLayout, dst: &LinearLayout, bits: u32) -> Option<(f64, bool)> {
    let (plan, _report) = plan_split_optimal(src, dst, bits).ok()?;
    if !plan.cost.cheaper_than_full() {
        return None;
    }
    let loads = plan.cost.load_instructions > 0;
    let cycles = plan.cost.partial_units() as f64 / total_warps(dst).max(1) as f64
        + if loads { BARRIER_COST } else { 0.0 };
    let crosses = plan.cost.staying_elements < plan.cost.elements;
    Some((cycles, crosses))
}
