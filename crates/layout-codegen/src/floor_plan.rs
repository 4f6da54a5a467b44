//! [`plan_at_floor`]: the planner's answer ([`crate::planner::plan`]) for a
//! conversion whose partial cross-warp plan through Triton's shared layout
//! provably wins, found without planning the other candidates.
//!
//! ## Why the answer is the planner's
//! [`crate::planner::plan`] takes the cheapest proved candidate in the order
//! `triton`, `shuffle_rounds`, `shuffle_program`, `paper_swizzle`,
//! `searched_swizzle`, then the partial candidates `partial_triton`,
//! `partial_paper_swizzle`, `partial_searched_swizzle` (with their
//! lane-predicated and transposed forms); a later candidate replaces the
//! best only when it is cheaper, or as cheap, of the same class and issuing
//! fewer shared-memory instructions. Let `P` be `partial_triton` (planned
//! and proved as the planner does: on packed words where those exist), of
//! `c` cycles and `i` instructions. When
//!
//! 1. some element crosses warps (`P` keeps fewer elements in their warp
//!    than there are) and some stays, and both shuffle candidates refuse
//!    (they are planned here, as the planner plans them);
//! 2. `c < full_shared_floor(dst)` ([`crate::lower_bound::full_shared_floor`]):
//!    Triton's, the paper's and the searched whole-tile plans all cost at
//!    least that floor, so none is as cheap as `P`;
//! 3. `c ≤ lower_bound(src, dst).cycles` ([`crate::lower_bound::lower_bound`],
//!    a floor of every plan): no later candidate is cheaper;
//! 4. `i ≤ shared_instruction_floor(src, dst)`
//!    ([`crate::partial::shared_instruction_floor`], a floor of the
//!    instructions of every partial plan): no later partial candidate as
//!    cheap issues fewer instructions;
//!
//! the planner's answer is `P`, with the same cycles, cost and lower bound.
//! Otherwise [`plan_at_floor`] answers `None` and the caller plans in full.
//! `layout-engine`'s `tests/price_shortcut.rs` checks the answer against
//! [`crate::planner::plan`] on every conversion its corpora price.

use crate::choice::{plan_conversion_triton, total_warps};
use crate::conversion::{classify, ConversionKind};
use crate::error::{check_bitwidth, CodegenError, Result};
use crate::lower_bound::{full_shared_floor, lower_bound};
use crate::partial::{plan_split, shared_instruction_floor, simulate_partial};
use crate::plan::ConversionPlan;
use crate::planner::{
    partial_cost, shared_instructions, size, Candidate, Lowering, PlannedConversion, SplitInput,
};
use crate::shared_words::word_layouts;
use crate::shuffle::shuffle_plan;
use crate::shuffle_rounds::rounds_plan;
use crate::target::Target;
use linear_layout::{DimName, LinearLayout};

/// The planner's answer when the partial plan through Triton's shared
/// layout provably wins (module doc), else `None` (also for input the
/// planner refuses: [`crate::planner::plan`] then names the problem).
///
/// ```
/// use layout_codegen::planner::{plan, plan_at_floor, Target};
/// use hw_layouts::Encoding;
/// let ll = |a: &str| Encoding::parse(a).unwrap().to_linear_layout(&[64, 64]).unwrap();
/// // Warps split rows 2 × 2 → 4 × 1: half of warps 0 and 3 stays.
/// let src = ll("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>");
/// let dst = ll("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>");
/// let full = plan(&src, &dst, 32, &Target::SM90).unwrap();
/// if let Some(fast) = plan_at_floor(&src, &dst, 32, &Target::SM90) {
///     assert_eq!((fast.candidate, fast.cycles), (full.candidate, full.cycles));
/// }
/// ```
pub fn plan_at_floor(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
) -> Option<PlannedConversion> {
    at_floor(src, dst, elem_bits, target).ok().flatten()
}

fn at_floor(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
) -> Result<Option<PlannedConversion>> {
    check_bitwidth(elem_bits)?;
    target.check()?;
    if size(src, DimName::LANE) != target.warp_size || size(dst, DimName::LANE) != target.warp_size
    {
        return Ok(None);
    }
    let class = classify(src, dst)?;
    if class != ConversionKind::SharedMemory {
        return Ok(None);
    }
    let Ok(ConversionPlan::SharedMemory(triton)) = plan_conversion_triton(src, dst, elem_bits)
    else {
        return Ok(None);
    };
    // Condition 1: the shuffle candidates refuse, as in the planner.
    let rounds = rounds_plan(src, dst).err();
    let program = shuffle_plan(src, dst, elem_bits).err();
    let (Some(rounds), Some(program)) = (rounds, program) else {
        return Ok(None);
    };
    let form = SplitInput::new(src, dst, &triton.shared_layout, elem_bits);
    let lowering = form.plan(plan_split)?;
    let Lowering::Partial { plan, words } = &lowering else {
        return Ok(None);
    };
    if plan.cost.staying_elements == 0 || plan.cost.staying_elements == plan.cost.elements {
        return Ok(None);
    }
    match words {
        Some(w) => {
            let (a, b, _) = word_layouts(w)?;
            simulate_partial(plan, &a, &b)?
        }
        None => simulate_partial(plan, src, dst)?,
    };
    let mut cost = partial_cost(plan, target.banks);
    if cost.scratch_bytes > target.smem_bytes_per_cta {
        return Ok(None);
    }
    (cost.src_registers, cost.dst_registers) =
        (size(src, DimName::REGISTER), size(dst, DimName::REGISTER));
    let cycles = cost.cycles();
    // Conditions 2 to 4.
    let floor = full_shared_floor(dst, elem_bits, target);
    let bound = lower_bound(src, dst, elem_bits, target)?;
    let issued = shared_instructions(&lowering, total_warps(dst));
    if !(cycles < floor
        && cycles <= bound.cycles
        && issued <= shared_instruction_floor(src, dst, elem_bits)?)
    {
        return Ok(None);
    }
    let not_planned = |name: &'static str, why: String| Candidate {
        name,
        kind: None,
        cycles: None,
        refused: Some(why),
    };
    let whole = format!(
        "not planned: a whole-tile plan costs at least {floor} cycles (full_shared_floor), \
         the partial plan {cycles}"
    );
    let partial = format!(
        "not planned: no partial plan costs less than {} cycles (lower_bound) or issues fewer \
         than {issued} shared-memory instructions (shared_instruction_floor)",
        bound.cycles
    );
    let candidates = vec![
        not_planned("triton", whole.clone()),
        not_planned("shuffle_rounds", rounds.to_string()),
        not_planned(
            "shuffle_program",
            CodegenError::Unsupported(program.to_string()).to_string(),
        ),
        not_planned("paper_swizzle", whole.clone()),
        not_planned("searched_swizzle", whole),
        Candidate {
            name: "partial_triton",
            kind: Some("partial"),
            cycles: Some(cycles),
            refused: None,
        },
        not_planned("partial_paper_swizzle", partial.clone()),
        not_planned("partial_searched_swizzle", partial),
    ];
    let above_bound = if bound.cycles > 0.0 {
        cycles / bound.cycles
    } else {
        1.0
    };
    Ok(Some(PlannedConversion {
        class,
        candidate: "partial_triton",
        lowering,
        words: None,
        cost,
        cycles,
        lower_bound: bound,
        above_bound,
        candidates,
    }))
}
