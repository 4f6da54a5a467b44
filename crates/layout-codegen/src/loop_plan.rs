//! What the benchmark kernel around a round trip's two conversions needs
//! decided, from the planner's answers: the scratch schedule of the loop
//! `R × { cvt_fwd ; cvt_bwd }` (one buffer or two, the barriers, the
//! unroll), the shared memory it takes, the registers the kernel keeps
//! live and the CTAs per SM its `__launch_bounds__` asks for.
//!
//! [`plan_loop`] reads a whole-CTA round trip ([`RoundTrip`]),
//! [`plan_partial_loop`] a partial one ([`PartialRoundTrip`]); both return
//! a [`LoopPlan`], which an emitter writes out as it is. The rules:
//!
//! * **Which directions use scratch**: a whole-CTA plan through shared
//!   memory (or the shared words of [`RoundTripWords::SharedWords`]); a
//!   partial plan that moves some element out of its warp.
//! * **Buffer size**: the larger of the two plans' scratch (the shared
//!   words use the whole tile, as their one-round plans do; a partial
//!   plan's scratch elements at its value width).
//! * **Registers** ([`Footprint`], [`crate::occupancy`]): the larger
//!   layout's registers; one copy through shared memory, two for warp
//!   shuffles and partial plans; as packed words where the kernel holds
//!   8/16-bit data in words ([`LoopPlan::packed`]).
//! * **One buffer or two** ([`choose_schedule`]), and the unroll that
//!   turn-taking needs when one direction alone uses scratch, bounded for
//!   warp-specialised loops by [`MAX_UNROLLED_WARP_COPIES`].
//! * **CTAs per SM**: [`min_blocks`] for the scratch the schedule takes.
//!
//! ```
//! use hw_layouts::Encoding;
//! use layout_codegen::loop_plan::plan_loop;
//! use layout_codegen::loop_schedule::first_race;
//! use layout_codegen::plan_options::PlanOptions;
//! use layout_codegen::round_trip::plan_round_trip_words;
//! use layout_codegen::target::{SmLimits, Target};
//! let ll = |t: &str| Encoding::parse(t).unwrap().to_linear_layout(&[64, 64]).unwrap();
//! let src = ll("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>");
//! let dst = ll("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>");
//! let rt = plan_round_trip_words(&src, &dst, 16, &Target::SM90, &PlanOptions::whole()).unwrap();
//! let lp = plan_loop(&rt, &src, &dst, 16, &SmLimits::SM90).unwrap();
//! // A transpose: both directions through shared memory, two 8 KiB
//! // buffers taken in turn, one barrier per conversion, four CTAs per SM.
//! assert_eq!((lp.schedule.buffers(), lp.schedule.barriers()), (2, 2));
//! assert_eq!((lp.buffer_bytes, lp.scratch_bytes, lp.min_blocks), (8192, 16384, Some(4)));
//! assert_eq!(first_race(&lp.schedule.accesses()), None);
//! ```
//!
//! [`RoundTripWords::SharedWords`]: crate::round_trip::RoundTripWords::SharedWords

use crate::error::{CodegenError, Result};
use crate::loop_schedule::Schedule;
use crate::occupancy::{min_blocks, Footprint};
use crate::partial::PartialCrossWarpPlan;
use crate::plan::ConversionPlan;
use crate::planner::PlannedConversion;
use crate::round_trip::{PartialRoundTrip, RoundTrip, RoundTripWords};
use crate::target::SmLimits;
use linear_layout::{DimName, LinearLayout};
use serde::Serialize;

/// The most warps whose warp-specialised loop copies (one copy of the
/// benchmark loop per warp, the warp id a compile-time constant) are
/// unrolled by two for alternating scratch buffers. Unrolling doubles the
/// code of every copy: on the H200, 8 warps' unrolled copies ran 4.6×
/// slower (`wgmma_to_dotA_128x128_f16_w8_partial`, 1.10 → 5.11 µs, about
/// 4100 SASS instructions), 4 warps' 4–5% faster (the two-buffer trial at
/// commit `aecad22`).
pub const MAX_UNROLLED_WARP_COPIES: u64 = 4;

/// Everything the benchmark kernel of a round trip needs besides the two
/// conversions: an emitter translates it and decides nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LoopPlan {
    /// The loop body: the buffer each conversion uses (`None`: no shared
    /// memory), the barrier after it, the unroll.
    pub schedule: Schedule,
    /// Bytes of one scratch buffer: buffer `b` starts `b · buffer_bytes`
    /// into the kernel's shared memory (a multiple of 16 when there are two).
    pub buffer_bytes: u64,
    /// The kernel's shared memory: `buffer_bytes` times the buffers the
    /// schedule uses (at least one).
    pub scratch_bytes: u64,
    /// Threads per CTA.
    pub threads: u32,
    /// What the kernel keeps live per thread (the register model's input).
    pub footprint: Footprint,
    /// The register model's registers per thread
    /// ([`Footprint::needed_registers`]).
    pub registers: u64,
    /// The `minBlocksPerMultiprocessor` of `__launch_bounds__`
    /// ([`min_blocks`] for `scratch_bytes`); `None`: no bound, ptxas
    /// chooses.
    pub min_blocks: Option<u32>,
    /// Whether the register model counts the kernel's 8/16-bit data as
    /// packed 32-bit words (see [`plan_loop`]).
    pub packed: bool,
}

/// The schedule of a loop whose forward and backward conversions do or do
/// not use scratch (`shared`), with `buffer_bytes` per buffer, and the
/// shared memory it then takes: two buffers taken in turn (one barrier per
/// conversion instead of two) when `blocks` (the CTAs per SM a scratch
/// size allows, [`min_blocks`]) is no lower for twice the scratch, the
/// second buffer stays 16-byte aligned for vector accesses (`buffer_bytes`
/// a multiple of 16), and, if turn-taking needs the body unrolled by two
/// (one direction in shared memory), `unroll_ok`. H200, 2026-11-21 (the
/// two-buffer trial at commit `aecad22`): 3–5% less time per conversion on
/// the 64×64 and 8-bit 128×128 cases, 1.4% on a 128×128 16-bit one that
/// lost a CTA per SM (not taken by this rule).
///
/// ```
/// use layout_codegen::loop_plan::choose_schedule;
/// // 8 KiB buffers and a residency that drops only above 32 KiB: two.
/// let blocks = |b: u64| Some(if b <= 32768 { 4 } else { 2 });
/// let (s, total) = choose_schedule((true, true), 8192, true, blocks);
/// assert_eq!((s.buffers(), total), (2, 16384));
/// // 32 KiB buffers: a second one would cost CTAs, so one.
/// let (s, total) = choose_schedule((true, true), 32768, true, blocks);
/// assert_eq!((s.buffers(), s.barriers(), total), (1, 4, 32768));
/// ```
pub fn choose_schedule(
    shared: (bool, bool),
    buffer_bytes: u64,
    unroll_ok: bool,
    blocks: impl Fn(u64) -> Option<u32>,
) -> (Schedule, u64) {
    let one = blocks(buffer_bytes);
    let two = (shared.0 || shared.1)
        && buffer_bytes.is_multiple_of(16)
        && one.is_some()
        && blocks(buffer_bytes.saturating_mul(2)) == one
        && (unroll_ok || shared.0 == shared.1);
    let schedule = Schedule::new(shared.0, shared.1, two);
    let total = buffer_bytes.saturating_mul(schedule.buffers().max(1) as u64);
    (schedule, total)
}

/// The [`LoopPlan`] of the kernel around a whole-CTA round trip `rt` of
/// `src ↔ dst` ([`crate::round_trip::plan_round_trip_words`]) of
/// `elem_bits`-bit elements on an SM with `limits`.
///
/// The register model counts 8/16-bit data as packed words
/// ([`LoopPlan::packed`]) where the kernel held it in words before every
/// kernel held it so (the rule the occupancy calibration was measured
/// under): around word-form warp programs ([`RoundTripWords::WarpWords`]),
/// shared words ([`RoundTripWords::SharedWords`]), and 16-bit data whose
/// two layouts pair the same elements (equal register basis 0: each pair
/// moves as one 32-bit word). Counting `swap1_128x128_f8`'s word-form
/// shuffles as words gives `__launch_bounds__(128, 4)` instead of no
/// bound: 0.999 → 0.926 µs per conversion (H200, 2026-11-21, commit
/// `46d9830`).
pub fn plan_loop(
    rt: &RoundTrip,
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    limits: &SmLimits,
) -> Result<LoopPlan> {
    let (ns, nd) = registers(src, dst);
    let threads = threads(src)?;
    let tile: u64 = src.out_dims().iter().map(|d| d.1).product();
    let (fwd, bwd) = (&rt.fwd, &rt.bwd);
    let shared = (uses_scratch(fwd), uses_scratch(bwd));
    let copies = if shuffles(fwd) || shuffles(bwd) { 2 } else { 1 };
    let scratch_of = |p: &PlannedConversion| match whole_stage(p) {
        Some(ConversionPlan::SharedMemory(m)) => m.scratch_bytes,
        _ => 0,
    };
    let bytes = match &rt.words {
        RoundTripWords::SharedWords(_) => tile.saturating_mul(elem_bits as u64) / 8,
        _ => scratch_of(fwd).max(scratch_of(bwd)),
    };
    let pairs = |l: &LinearLayout| l.basis(DimName::REGISTER, 0);
    let packed16 =
        elem_bits == 16 && ns.is_multiple_of(2) && nd.is_multiple_of(2) && pairs(src) == pairs(dst);
    let packed = packed16 || !matches!(rt.words, RoundTripWords::Elements);
    let elements = match &rt.words {
        RoundTripWords::SharedWords(p) => p.src.num_words().max(p.dst.num_words()),
        _ if packed => (ns.max(nd).saturating_mul(elem_bits as u64)).div_ceil(32),
        _ => ns.max(nd),
    };
    let footprint = Footprint {
        elements,
        bits: if packed { 32 } else { elem_bits },
        copies,
    };
    Ok(finish(
        shared, bytes, true, threads, footprint, packed, limits,
    ))
}

/// The [`LoopPlan`] of the kernel around a partial cross-warp round trip
/// `rt` of `src ↔ dst` ([`crate::round_trip::plan_partial_round_trip`]) of
/// `elem_bits`-bit elements on an SM with `limits`; `specialise_warps`:
/// the loop is instantiated once per warp, so an unrolled body is taken
/// only up to [`MAX_UNROLLED_WARP_COPIES`] warps. Staying and moving data
/// are live together: two copies, as words where `rt` runs on words.
pub fn plan_partial_loop(
    rt: &PartialRoundTrip,
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    specialise_warps: bool,
    limits: &SmLimits,
) -> Result<LoopPlan> {
    let (ns, nd) = registers(src, dst);
    let threads = threads(src)?;
    let crosses = |p: &PartialCrossWarpPlan| p.cost.staying_elements < p.cost.elements;
    let shared = (crosses(&rt.fwd), crosses(&rt.bwd));
    // Each direction's values: 32-bit words where it runs on words.
    let scratch_bytes =
        |p: &PartialCrossWarpPlan| p.scratch_elems.saturating_mul(u64::from(p.bitwidth)) / 8;
    let bytes = scratch_bytes(&rt.fwd).max(scratch_bytes(&rt.bwd));
    let packed = rt.fwd_words.is_some() || rt.bwd_words.is_some();
    let footprint = match packed {
        true => Footprint {
            elements: (ns.max(nd) * u64::from(elem_bits)).div_ceil(32),
            bits: 32,
            copies: 2,
        },
        false => Footprint {
            elements: ns.max(nd),
            bits: elem_bits,
            copies: 2,
        },
    };
    let unroll_ok = !specialise_warps || src.in_dim_size(DimName::WARP) <= MAX_UNROLLED_WARP_COPIES;
    Ok(finish(
        shared, bytes, unroll_ok, threads, footprint, packed, limits,
    ))
}

/// The schedule ([`choose_schedule`]) and the CTAs per SM for its scratch.
fn finish(
    shared: (bool, bool),
    bytes: u64,
    unroll_ok: bool,
    threads: u32,
    footprint: Footprint,
    packed: bool,
    limits: &SmLimits,
) -> LoopPlan {
    let blocks = |b: u64| min_blocks(limits, threads, b, &footprint);
    let (schedule, scratch_bytes) = choose_schedule(shared, bytes, unroll_ok, blocks);
    LoopPlan {
        schedule,
        buffer_bytes: bytes,
        scratch_bytes,
        threads,
        footprint,
        registers: footprint.needed_registers(),
        min_blocks: blocks(scratch_bytes),
        packed,
    }
}

/// Registers per thread of the source and destination layouts.
fn registers(src: &LinearLayout, dst: &LinearLayout) -> (u64, u64) {
    (
        src.in_dim_size(DimName::REGISTER),
        dst.in_dim_size(DimName::REGISTER),
    )
}

/// Threads per CTA of a distributed layout: lanes × warps.
fn threads(l: &LinearLayout) -> Result<u32> {
    let t = l
        .in_dim_size(DimName::LANE)
        .saturating_mul(l.in_dim_size(DimName::WARP));
    u32::try_from(t)
        .map_err(|_| CodegenError::Invalid(format!("{t} threads per CTA do not fit a kernel")))
}

/// The whole-CTA plan of a direction: the plan itself, or a staged
/// lowering's word stage ([`crate::planner::Lowering::Staged`]).
fn whole_stage(p: &PlannedConversion) -> Option<&ConversionPlan> {
    p.lowering
        .whole()
        .or_else(|| p.lowering.staged().map(|s| s.1))
}

/// Whether a whole-CTA round trip's direction (or a staged one's word
/// stage) stores into and loads from scratch (a partial lowering does
/// too).
fn uses_scratch(p: &PlannedConversion) -> bool {
    match whole_stage(p) {
        Some(plan) => matches!(plan, ConversionPlan::SharedMemory(_)),
        None => true,
    }
}

/// Whether a direction is a warp-shuffle plan or has a regroup (source
/// and destination, or intermediate, live at once).
fn shuffles(p: &PlannedConversion) -> bool {
    p.lowering.staged().is_some()
        || matches!(
            p.lowering.whole(),
            Some(ConversionPlan::WarpShuffle { .. } | ConversionPlan::WarpProgram(_))
        )
}
