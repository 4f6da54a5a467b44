//! Our planner: the cheapest of several candidate plans under a cost model
//! computed from the [`crate::simulator`]'s report, next to Triton's choice
//! ([`crate::choice::plan_conversion_triton`]).
//!
//! ## Candidates
//! 1. Triton 3.9's plan: its class ([`crate::conversion::classify`]) and,
//!    through shared memory, its swizzle
//!    ([`crate::swizzle::optimal_swizzling`]).
//! 2. A warp-shuffle plan when Triton's rules send the conversion to shared
//!    memory but the data only moves between lanes of a warp (Triton's
//!    shuffle criterion also requires at most one register↔lane
//!    transposition), in both forms: a warp program
//!    ([`crate::shuffle::shuffle_plan`]: Ship/Swap with `prmt` packing,
//!    the paper's rounds with `selp`, general `shfl.idx` rounds) and the
//!    one-step rounds plan; each kept only if the simulator proves it.
//!    (For Triton's shuffle class, Triton's own plan is already the cheaper
//!    of the two forms, see `shuffle_rounds`.)
//! 3. Through shared memory with the paper's construction
//!    ([`crate::swizzle::paper_swizzle_candidates`]); the candidates are
//!    ranked by their exact wavefronts (warp 0 of each access, times the
//!    warps: XORing every lane's offset with one constant permutes words and
//!    banks alike, so every warp and every access costs what its lane
//!    pattern costs), and the best one is simulated.
//!
//! No-op and register-permutation conversions keep Triton's plan (nothing
//! is cheaper than moving no data).
//!
//! ## Cost model
//! [`plan_cost`] is the roofline of [`crate::cost`] applied to the
//! simulator's report; ties go to Triton's plan. The planner of every class,
//! partial plans included, is [`crate::planner::plan`].

use crate::bank_conflicts::remove_broadcast_registers;
use crate::conversion::minimal_cvt_layout;
use crate::conversion::{classify, ConversionKind};
use crate::cost::PredictedCost;
use crate::error::{check_bitwidth, CodegenError, Result};
use crate::plan::{Access, ConversionPlan, Round, SharedMemoryPlan};
use crate::shared_conversion::{
    accesses, analytic_conflicts, broadcast_copies, cta_local, plan_shared, refuse_cross_cta,
    side_map,
};
use crate::shuffle::shuffle_plan;
use crate::shuffle_rounds::plan_shuffle;
use crate::shuffle_rounds::rounds_plan;
use crate::simulator::{access_wavefronts, simulate, SimulationReport};
use crate::swizzle::{optimal_swizzling, paper_swizzle_candidates};
use linear_layout::{DimName, LinearLayout};
use serde::Serialize;

pub use crate::cost::{shuffle_cycles, ALU_PER_CYCLE, BARRIER_COST};

/// A plan with its simulated report and its cost.
#[derive(Clone, Debug, Serialize)]
pub struct CostedPlan {
    /// The plan.
    pub plan: ConversionPlan,
    /// The simulator's report (the plan is proved correct).
    pub report: SimulationReport,
    /// The model's cycles per warp ([`plan_cost`]).
    pub cost: f64,
    /// Which candidate: `"triton"`, `"shuffle"` or `"paper_swizzle"`.
    pub candidate: &'static str,
}

/// The cost model of [`crate::cost`] for a simulator report; `warps` is
/// the number of warps of all CTAs.
pub fn plan_cost(report: &SimulationReport, warps: u64) -> f64 {
    predicted_cost(report, warps).cycles()
}

/// The counts of [`crate::cost::PredictedCost`] from a simulator report
/// (per-thread instruction counts times `warps`; registers and scratch
/// left 0 for the caller).
pub fn predicted_cost(report: &SimulationReport, warps: u64) -> PredictedCost {
    PredictedCost {
        warps,
        store_wavefronts: report.store_wavefronts,
        load_wavefronts: report.load_wavefronts,
        shuffles: report.shuffles * warps,
        selects: report.selects * warps,
        prmt: report.prmt * warps,
        barriers: report.barriers,
        warp_barriers: report.warp_barriers,
        register_moves: report.register_moves * warps,
        ..Default::default()
    }
}

fn in_size(l: &LinearLayout, d: DimName) -> u64 {
    if l.has_in_dim(d) {
        l.in_dim_size(d)
    } else {
        1
    }
}

/// Warps of all CTAs of `dst` (the divisor of [`plan_cost`]).
pub fn total_warps(dst: &LinearLayout) -> u64 {
    in_size(dst, DimName::WARP) * in_size(dst, DimName::BLOCK)
}

fn costed(
    plan: ConversionPlan,
    src: &LinearLayout,
    dst: &LinearLayout,
    candidate: &'static str,
) -> Result<CostedPlan> {
    let report = simulate(&plan, src, dst)?;
    let cost = plan_cost(&report, total_warps(dst));
    Ok(CostedPlan {
        plan,
        report,
        cost,
        candidate,
    })
}

/// Plans the conversion of `src` to `dst` as Triton 3.9 does: the same as
/// [`plan_conversion_triton`]. Our own, possibly cheaper choice is
/// [`plan_conversion_best`].
pub fn plan_conversion(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<ConversionPlan> {
    plan_conversion_triton(src, dst, bitwidth)
}

/// Triton 3.9's choice for the conversion of `src` to `dst` (distributed
/// layouts of the same tensor) with `bitwidth`-bit elements: its class
/// ([`classify`]: no-op, register permutation, warp shuffles, shared
/// memory) and, through shared memory, its swizzle
/// ([`crate::swizzle::optimal_swizzling`]: Triton's `optimalSwizzlingLdSt`,
/// vector `ld.shared` / `st.shared` accesses).
///
/// Not modelled: on NVIDIA targets Triton 3.9's `optimalSwizzling` also
/// scores `ldmatrix` / `stmatrix` (and `.trans`) instruction tiles and takes
/// them where they have fewer conflicts; `optimalSwizzlingLdSt` is its
/// fallback and its AMD path. Where Triton takes matrix tiles this plan (and
/// its cost, the planner's `triton_cost`) overstates what Triton runs: the
/// engine oracle's `transpose` and `matmul_trans` kernels carry
/// `ldmatrix.x4` in Triton 3.9's PTX, and on the H200 Triton 3.6 ran the
/// suite's `fresh7_*` epilogues within 5% of plans this model prices at
/// less than half of its Triton plan (2026-11-29,
/// `bench/gpu/results/2026-11-29-h200/fresh7/`).
/// Several CTAs are fine as long as no data crosses them (each CTA runs the
/// same plan on its own elements); conversions that move data between CTAs
/// are an explicit [`CodegenError::Unsupported`].
pub fn plan_conversion_triton(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<ConversionPlan> {
    check_bitwidth(bitwidth)?;
    let kind = classify(src, dst)?;
    match kind {
        ConversionKind::CrossCta => Err(CodegenError::Unsupported(
            "the conversion moves data between CTAs (block level); cross-CTA plans \
             are not implemented"
                .into(),
        )),
        ConversionKind::NoOp => Ok(ConversionPlan::NoOp {
            registers: dst.in_dim_size(DimName::REGISTER),
        }),
        ConversionKind::RegisterPermutation => {
            // minimal layout: dst register -> src register.
            let m = minimal_cvt_layout(src, dst)?;
            let n = dst.in_dim_size(DimName::REGISTER);
            let src_register = (0..n)
                .map(|r| {
                    let out = m.apply(&[(DimName::REGISTER, r)])?;
                    Ok(out
                        .iter()
                        .find(|(d, _)| *d == DimName::REGISTER)
                        .map_or(0, |x| x.1))
                })
                .collect::<Result<Vec<u64>>>()?;
            Ok(ConversionPlan::RegisterPermutation { src_register })
        }
        ConversionKind::WarpShuffle => plan_shuffle(src, dst, bitwidth),
        ConversionKind::SharedMemory => Ok(ConversionPlan::SharedMemory(Box::new(plan_shared(
            src, dst, bitwidth, None,
        )?))),
    }
}

/// Triton's plan ([`plan_conversion_triton`]), simulated and costed.
pub fn plan_conversion_triton_costed(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<CostedPlan> {
    costed(
        plan_conversion_triton(src, dst, bitwidth)?,
        src,
        dst,
        "triton",
    )
}

/// Our plan: the cheapest candidate of the module doc under [`plan_cost`],
/// simulated (every returned plan is proved by the simulator). Never
/// costlier than [`plan_conversion_triton_costed`], which is a candidate
/// and wins ties.
pub fn plan_conversion_best(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<CostedPlan> {
    let mut best = plan_conversion_triton_costed(src, dst, bitwidth)?;
    let kind = classify(src, dst)?;
    if matches!(
        kind,
        ConversionKind::NoOp | ConversionKind::RegisterPermutation
    ) {
        return Ok(best);
    }
    let mut consider = |c: Result<CostedPlan>| {
        if let Ok(c) = c {
            if c.cost < best.cost {
                best = c;
            }
        }
    };
    if kind == ConversionKind::SharedMemory {
        // Warp-local but outside Triton's shuffle criterion: shuffles may
        // still be cheaper. A conversion that crosses warps fails the
        // planner or the simulator and is dropped.
        // Both output forms of the shuffle planner are candidates (the
        // simulator decides; one may be refused where the other passes).
        consider(rounds_plan(src, dst).and_then(|shuffles| {
            costed(
                ConversionPlan::WarpShuffle { shuffles },
                src,
                dst,
                "shuffle",
            )
        }));
        if let Ok(p) = shuffle_plan(src, dst, bitwidth) {
            consider(costed(
                ConversionPlan::WarpProgram(Box::new(p.program)),
                src,
                dst,
                "shuffle",
            ));
        }
    }
    consider(plan_paper_swizzle(src, dst, bitwidth).and_then(|p| {
        costed(
            ConversionPlan::SharedMemory(Box::new(p)),
            src,
            dst,
            "paper_swizzle",
        )
    }));
    Ok(best)
}

/// The shared-memory plan through the best of the paper's swizzle
/// candidates ([`paper_swizzle_candidates`]), ranked by exact wavefronts
/// (see the module doc); the first of equal ones wins.
pub fn plan_paper_swizzle(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<SharedMemoryPlan> {
    check_bitwidth(bitwidth)?;
    refuse_cross_cta(src, dst)?;
    let (s, t) = cta_local(src, dst)?;
    // Each candidate is ranked by `estimated_wavefronts` of its plan,
    // computed from the plan's first access per side and the number of
    // accesses alone (`ranked_wavefronts`); only the winner's plan is
    // built.
    let (s_free, t_free) = (
        remove_broadcast_registers(&s)?,
        remove_broadcast_registers(&t)?,
    );
    let nlanes = in_size(&t, DimName::LANE);
    let mut best: Option<(u64, LinearLayout)> = None;
    for shared in paper_swizzle_candidates(&s, &t, bitwidth)? {
        let wf = ranked_wavefronts(&s_free, &t_free, bitwidth, &shared, nlanes)?;
        if best.as_ref().is_none_or(|b| wf < b.0) {
            best = Some((wf, shared));
        }
    }
    let shared = best.map(|b| b.1).ok_or_else(|| {
        CodegenError::Invalid("the paper's construction produced no shared layout".into())
    })?;
    let mut plan = plan_local(&s, &t, bitwidth, &shared)?;
    plan.lower_bound_log2 = lower_bound(&s, &t, bitwidth);
    Ok(plan)
}

/// [`estimated_wavefronts`] of [`plan_local`]`(src, dst, bitwidth,
/// shared)` without building the plan (`src_free`, `dst_free`: the sides
/// with broadcast registers removed). Each side's one round has
/// `2^(registers - vector registers)` accesses, the first of which
/// (register group 0) has address constant 0, the side map's lane and
/// warp columns, and `2^(vector registers)` registers; the errors are
/// `plan_local`'s (the side maps).
fn ranked_wavefronts(
    src_free: &LinearLayout,
    dst_free: &LinearLayout,
    bitwidth: u32,
    shared: &LinearLayout,
    nlanes: u64,
) -> Result<u64> {
    let bytes = (bitwidth as u64).max(8) / 8;
    let off_mask = (1u64 << shared.total_in_dim_size_log2()) - 1;
    let side = |free: &LinearLayout| -> Result<u64> {
        let map = side_map(free, shared)?;
        let nvec = crate::vectorize::vector_groups(&map.reg, &map.lane, &map.warp, bitwidth)
            .0
            .len();
        let address = crate::plan::Address {
            constant: 0,
            lane: map.lane.iter().map(|c| c & off_mask).collect(),
            warp: map.warp.iter().map(|c| c & off_mask).collect(),
        };
        let starts: Vec<u64> = (0..nlanes).map(|l| address.eval(l, 0) * bytes).collect();
        let one: u64 = access_wavefronts(&starts, (1u64 << nvec) * bytes)
            .iter()
            .sum();
        Ok(one << (map.reg.len() - nvec))
    };
    Ok(side(src_free)? + side(dst_free)?)
}

/// The paper's lower bound of Triton's vector choice (see
/// [`crate::swizzle::SwizzleResult::lower_bound_log2`]), 0 when Triton's
/// swizzle does not apply.
fn lower_bound(s: &LinearLayout, t: &LinearLayout, bitwidth: u32) -> u32 {
    optimal_swizzling(s, t, bitwidth)
        .map(|sw| sw.lower_bound_log2)
        .unwrap_or(0)
}

/// Wavefronts per warp of all accesses of `plan` (see the module doc): the
/// accesses of one side share their lane and warp parts and differ by an
/// aligned constant, which permutes words and banks alike, so each side
/// costs its number of accesses times the wavefronts of its first one in
/// warp 0.
#[cfg(test)]
fn estimated_wavefronts(plan: &SharedMemoryPlan, nlanes: u64, bitwidth: u32) -> u64 {
    let bytes = (bitwidth as u64).max(8) / 8;
    let side = |accesses: &[Access]| -> u64 {
        let Some(a) = accesses.first() else {
            return 0;
        };
        let starts: Vec<u64> = (0..nlanes).map(|l| a.address.eval(l, 0) * bytes).collect();
        let one: u64 = access_wavefronts(&starts, a.registers.len() as u64 * bytes)
            .iter()
            .sum();
        one * accesses.len() as u64
    };
    plan.rounds
        .iter()
        .map(|r| side(&r.stores) + side(&r.loads))
        .sum()
}

/// A one-round shared-memory plan through the given swizzled layout
/// `shared` (`offset → tensor`, a bijection onto the CTA-local tensor of
/// [`cta_local`]): every thread stores its (broadcast-free) source
/// registers at `shared⁻¹(element)`, one barrier, every thread loads its
/// destination registers, then broadcast copies. Each side's vector is the
/// longest run of registers `r_0, r_1, …` with `r_i` at offset bit `i`
/// (up to 128 bits) that no other register, lane or warp bit touches below.
pub fn plan_through_shared(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
    shared: &LinearLayout,
) -> Result<SharedMemoryPlan> {
    check_bitwidth(bitwidth)?;
    let (s, t) = cta_local(src, dst)?;
    let mut plan = plan_local(&s, &t, bitwidth, shared)?;
    plan.lower_bound_log2 = lower_bound(&s, &t, bitwidth);
    Ok(plan)
}

/// [`plan_through_shared`] for CTA-local layouts, `lower_bound_log2` left 0.
fn plan_local(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
    shared: &LinearLayout,
) -> Result<SharedMemoryPlan> {
    let off_bits = shared.in_dim_size_log2(DimName::OFFSET);
    let side = |full: &LinearLayout| -> Result<(Vec<Access>, u64, Vec<u64>)> {
        let map = side_map(&remove_broadcast_registers(full)?, shared)?;
        // Vector registers (the largest clean run of offsets 1, 2, 4, …).
        let vec_regs = crate::vectorize::vector_groups(&map.reg, &map.lane, &map.warp, bitwidth).0;
        // One round: the map's values are `shared`'s whole input (offset and
        // any block bits), all of them kept in the address.
        let all_bits = shared.total_in_dim_size_log2();
        let accesses = accesses(full, &map, &vec_regs, all_bits, 1).remove(0);
        Ok((accesses, 1u64 << vec_regs.len(), map.lane))
    };
    let (stores, store_vec, store_lanes) = side(src)?;
    let (loads, load_vec, load_lanes) = side(dst)?;
    let copies = broadcast_copies(dst);
    let bytes = (bitwidth as u64).max(8) / 8;
    Ok(SharedMemoryPlan {
        shared: shared.bases_json(),
        shared_layout: shared.clone(),
        bitwidth,
        store_vec,
        load_vec,
        scratch_elems: 1u64 << off_bits,
        scratch_bytes: (1u64 << off_bits) * bytes,
        rounds: vec![Round { stores, loads }],
        copies,
        barriers: 1,
        warp_private: false,
        store_conflicts: analytic_conflicts(&store_lanes, store_vec, bitwidth),
        load_conflicts: analytic_conflicts(&load_lanes, load_vec, bitwidth),
        lower_bound_log2: 0,
        note: Some("shared layout from the paper's swizzle construction".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hw_layouts::Encoding;

    fn ll(attr: &str, shape: &[u64]) -> LinearLayout {
        Encoding::parse(attr)
            .unwrap()
            .to_linear_layout(shape)
            .unwrap()
    }

    const BLK: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
    const BLK_T: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>";
    const MMA: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>";
    const DOT_A: &str = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";

    /// The ranking without plans ([`ranked_wavefronts`]) is the ranking of
    /// the built plans ([`estimated_wavefronts`] of [`plan_local`]) for
    /// every candidate of several pairs, widths and shapes (with broadcast
    /// registers and lanes where the tensor is smaller than the CTA).
    #[test]
    fn ranking_without_plans_equals_ranking_of_plans() {
        let mut checked = 0;
        for shape in [[64u64, 64], [16, 16], [128, 32]] {
            for (a, b) in [
                (BLK, MMA),
                (MMA, BLK),
                (BLK, BLK_T),
                (BLK_T, DOT_A),
                (MMA, DOT_A),
            ] {
                for bits in [8, 16, 32, 64] {
                    let (src, dst) = (ll(a, &shape), ll(b, &shape));
                    let (s, t) = cta_local(&src, &dst).unwrap();
                    let (sf, tf) = (
                        remove_broadcast_registers(&s).unwrap(),
                        remove_broadcast_registers(&t).unwrap(),
                    );
                    let n = in_size(&t, DimName::LANE);
                    let Ok(cands) = paper_swizzle_candidates(&s, &t, bits) else {
                        continue;
                    };
                    for shared in cands {
                        let plan = plan_local(&s, &t, bits, &shared).unwrap();
                        assert_eq!(
                            ranked_wavefronts(&sf, &tf, bits, &shared, n).unwrap(),
                            estimated_wavefronts(&plan, n, bits),
                            "{a} -> {b} {shape:?} {bits} bits"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }
}
