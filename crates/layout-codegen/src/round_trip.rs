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

use crate::error::Result;
use crate::plan::ConversionPlan;
use crate::plan_options::PlanOptions;
use crate::planner::{plan_with, uses_matrix, PlannedConversion, Target};
use crate::swizzle_search::search_shared_layout;
use linear_layout::LinearLayout;

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
