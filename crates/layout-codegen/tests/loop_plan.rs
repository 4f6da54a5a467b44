//! The benchmark kernel's loop plan (`layout_codegen::loop_plan`): the
//! scratch schedule it chooses is race-free by `first_race` and needs every
//! barrier it has; its CTAs per SM equal a residency computed by hand from
//! the SM's limits (the arithmetic is written out beside each case, with
//! the numbers of `SmLimits::SM90`: 65536 registers, 2048 threads, 32 CTAs
//! and 232448 bytes of shared memory per SM, registers in multiples of 8,
//! at most 255); the unroll bound for warp-specialised loops holds; and a
//! planted wrong schedule is caught.

use hw_layouts::Encoding;
use layout_codegen::loop_plan::{
    choose_schedule, plan_loop, plan_partial_loop, LoopPlan, MAX_UNROLLED_WARP_COPIES,
};
use layout_codegen::loop_schedule::{
    first_needless_barrier, first_race, Direction, Schedule, Step,
};
use layout_codegen::plan_options::PlanOptions;
use layout_codegen::plan_options::SplitForm;
use layout_codegen::round_trip::{plan_partial_round_trip, plan_round_trip_words};
use layout_codegen::target::{SmLimits, Target};
use linear_layout::LinearLayout;

const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const BLK_COL: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";
const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
const DOT_A: &str = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";
const MMA2_W42: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 8]}>";
const DOT_A_W42: &str = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 8]}>, kWidth = 2}>";
/// BLK_ROW with register basis 0 and lane basis 0 exchanged: a warp
/// shuffle both ways.
const SWAP1_64X64: &str = "#ttg.linear<{register = [[0, 4], [0, 2], [0, 16], [0, 32], [32, 0]], lane = [[0, 1], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>";

fn layout(t: &str, shape: [u64; 2]) -> LinearLayout {
    Encoding::parse(t)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap()
}

fn whole(s: &str, d: &str, shape: [u64; 2], bits: u32) -> LoopPlan {
    let (src, dst) = (layout(s, shape), layout(d, shape));
    let rt = plan_round_trip_words(&src, &dst, bits, &Target::SM90, &PlanOptions::whole()).unwrap();
    plan_loop(&rt, &src, &dst, bits, &SmLimits::SM90).unwrap()
}

fn partial(s: &str, d: &str, shape: [u64; 2], bits: u32, specialise: bool) -> LoopPlan {
    let (src, dst) = (layout(s, shape), layout(d, shape));
    let options = PlanOptions {
        split_form: Some(SplitForm::Plain),
        ..PlanOptions::partial_only()
    };
    let rt = plan_partial_round_trip(&src, &dst, bits, &Target::SM90, &options).unwrap();
    plan_partial_loop(&rt, &src, &dst, bits, specialise, &SmLimits::SM90).unwrap()
}

/// The schedule is race-free as a loop, and removing any one of its
/// barriers opens a race (each barrier is needed).
fn assert_race_free_and_minimal(s: &Schedule) {
    let acc = s.accesses();
    assert_eq!(first_race(&acc), None, "{s:?}");
    assert_eq!(first_needless_barrier(&acc), None, "{s:?}");
}

/// `(buffers, barriers per iteration, unroll)`.
fn shape_of(s: &Schedule) -> (u32, usize, usize) {
    (s.buffers(), s.barriers(), s.unroll())
}

/// 64×64 16-bit transpose, 4 warps (128 threads), both directions through
/// shared memory. By hand: 32 registers per thread of 16 bits = 16 words,
/// one copy: need = ⌈1.3·16⌉ + 32 = 53, under the floor of 128. A cap of
/// 128 holds for 65536 / (128·k) ≥ 128, k ≤ 4. One buffer is the tile,
/// 64·64·2 = 8192 B (232448 / 8192 = 28 CTAs by shared memory); two are
/// 16384 B (14 CTAs): k = 4 either way, so two buffers, one barrier per
/// conversion.
#[test]
fn transpose_64x64_f16_takes_two_buffers_at_four_ctas() {
    let lp = whole(BLK_ROW, BLK_COL, [64, 64], 16);
    assert_eq!(lp.threads, 128);
    assert_eq!((lp.buffer_bytes, lp.scratch_bytes), (8192, 16384));
    assert_eq!(lp.registers, 53);
    assert_eq!(lp.min_blocks, Some(4));
    assert_eq!(shape_of(&lp.schedule), (2, 2, 1));
    assert_eq!(lp.schedule.uses_scratch(), (true, true));
    assert_race_free_and_minimal(&lp.schedule);
}

/// 128×128 32-bit transpose, 4 warps. By hand: 128 registers of 32 bits,
/// one copy: need = ⌈1.3·128⌉ + 32 = ⌈166.4⌉ + 32 = 199. Caps: k = 2 gives
/// min(65536 / 256, 255) = 255 ≥ 199; k = 3 gives ⌊170.7⌋ → 168 < 199. One
/// buffer is 128·128·4 = 65536 B (232448 / 65536 = 3 CTAs): k = 2. Two
/// would be 131072 B, one CTA by shared memory: fewer than 2, so one
/// buffer and two barriers per conversion.
#[test]
fn transpose_128x128_f32_keeps_one_buffer_at_two_ctas() {
    let lp = whole(BLK_ROW, BLK_COL, [128, 128], 32);
    assert_eq!((lp.buffer_bytes, lp.scratch_bytes), (65536, 65536));
    assert_eq!(lp.registers, 199);
    assert_eq!(lp.min_blocks, Some(2));
    assert_eq!(shape_of(&lp.schedule), (1, 4, 1));
    assert_race_free_and_minimal(&lp.schedule);
}

/// 128×128 16-bit transpose, 4 warps. By hand: 128 registers of 16 bits =
/// 64 words: need = ⌈83.2⌉ + 32 = 116, floor 128, so k ≤ 4 by registers.
/// One buffer is 32768 B (7 CTAs by shared memory): k = 4. Two would be
/// 65536 B (3 CTAs): k = 3 < 4, so one buffer (the measured 1.4% loss of
/// a CTA per SM is not taken).
#[test]
fn transpose_128x128_f16_does_not_trade_a_cta_for_a_buffer() {
    let lp = whole(BLK_ROW, BLK_COL, [128, 128], 16);
    assert_eq!((lp.buffer_bytes, lp.scratch_bytes), (32768, 32768));
    assert_eq!(lp.registers, 116);
    assert_eq!(lp.min_blocks, Some(4));
    assert_eq!(shape_of(&lp.schedule), (1, 4, 1));
    assert_race_free_and_minimal(&lp.schedule);
}

/// 64×64 32-bit register↔lane swap: a warp shuffle both ways, no scratch.
/// By hand: 32 registers, two copies: need = ⌈1.3·64⌉ + 32 = 116, floor
/// 128: k ≤ 4 by registers, 32 by CTAs, no shared memory: k = 4.
#[test]
fn a_shuffle_round_trip_has_no_scratch_and_two_live_copies() {
    let lp = whole(BLK_ROW, SWAP1_64X64, [64, 64], 32);
    assert_eq!(lp.footprint.copies, 2);
    assert_eq!((lp.buffer_bytes, lp.scratch_bytes), (0, 0));
    assert_eq!(lp.registers, 116);
    assert_eq!(lp.min_blocks, Some(4));
    assert_eq!(shape_of(&lp.schedule), (0, 0, 1));
    assert_eq!(lp.schedule.uses_scratch(), (false, false));
}

/// A partial round trip whose way back stays in registers (mma v2
/// accumulators → their dot operand A, 4 warps, warp-specialised): only
/// the forward direction uses scratch, so turn-taking spans two
/// iterations: two buffers, the body unrolled by two, one barrier per
/// iteration. Four warp copies are within `MAX_UNROLLED_WARP_COPIES`.
#[test]
fn a_partial_round_trip_with_one_shared_direction_unrolls_by_two() {
    let lp = partial(MMA2, DOT_A, [64, 64], 16, true);
    assert_eq!(lp.schedule.uses_scratch(), (true, false));
    assert_eq!(lp.footprint.copies, 2);
    assert_eq!(shape_of(&lp.schedule), (2, 1, 2));
    assert_eq!(lp.scratch_bytes, 2 * lp.buffer_bytes);
    assert_race_free_and_minimal(&lp.schedule);
}

/// The same pair on 8 warps: the residency allows two buffers (by hand:
/// 256 threads, a cap of 128 needs 65536 / (256·k) ≥ 128, k ≤ 2, and the
/// data is small enough for the floor), so the run-time-branch loop takes
/// them, unrolled; one copy of the loop per warp would unroll 8 copies,
/// more than `MAX_UNROLLED_WARP_COPIES`, so that loop keeps one buffer.
#[test]
fn eight_specialised_warp_copies_are_not_unrolled() {
    const { assert!(8 > MAX_UNROLLED_WARP_COPIES) };
    let branch = partial(MMA2_W42, DOT_A_W42, [64, 64], 16, false);
    let special = partial(MMA2_W42, DOT_A_W42, [64, 64], 16, true);
    assert_eq!(branch.threads, 256);
    assert_eq!(branch.min_blocks, Some(2));
    assert_eq!(branch.schedule.uses_scratch(), (true, false));
    assert_eq!(shape_of(&branch.schedule), (2, 1, 2));
    assert_eq!(shape_of(&special.schedule), (1, 2, 1));
    assert_eq!(special.scratch_bytes, special.buffer_bytes);
    assert_eq!(special.min_blocks, Some(2));
    for lp in [&branch, &special] {
        assert_race_free_and_minimal(&lp.schedule);
    }
}

/// Every choice `choose_schedule` can make, for every residency the SM
/// could give one and two buffers, is race-free and barrier-minimal; two
/// buffers are taken exactly when they cost no CTA, are 16-byte aligned
/// and need no refused unroll.
#[test]
fn every_chosen_schedule_is_race_free() {
    let residencies = [None, Some(2), Some(3), Some(4)];
    for f in [false, true] {
        for b in [false, true] {
            for unroll_ok in [false, true] {
                for bytes in [0u64, 8, 4096] {
                    for one in residencies {
                        for two in residencies {
                            // The residency of `x` bytes: `one` up to one
                            // buffer, `two` above (for 0 bytes, two
                            // buffers are 0 bytes too).
                            let blocks = |x: u64| if x > bytes { two } else { one };
                            let two = if bytes > 0 { two } else { one };
                            let (s, total) = choose_schedule((f, b), bytes, unroll_ok, blocks);
                            assert_race_free_and_minimal(&s);
                            let want_two = (f || b)
                                && bytes % 16 == 0
                                && one.is_some()
                                && two == one
                                && (unroll_ok || f == b);
                            assert_eq!(s.buffers() == 2, want_two, "{f} {b} {unroll_ok} {bytes}");
                            assert_eq!(total, bytes * if want_two { 2 } else { 1 });
                            assert_eq!(s.uses_scratch(), (f, b));
                        }
                    }
                }
            }
        }
    }
}

/// Mutations of a chosen schedule that the checker must catch: the
/// two-buffer transpose's second buffer folded into the first (one buffer
/// without its trailing barriers), and the unrolled partial loop not
/// unrolled (every iteration on buffer 0, no trailing barrier).
#[test]
fn planted_wrong_schedules_race() {
    let lp = whole(BLK_ROW, BLK_COL, [64, 64], 16);
    let mut folded = lp.schedule.clone();
    for st in &mut folded.steps {
        st.buffer = st.buffer.map(|_| 0);
    }
    assert!(first_race(&folded.accesses()).is_some());
    let not_unrolled = Schedule {
        steps: vec![
            Step {
                direction: Direction::Forward,
                buffer: Some(0),
                barrier_after: false,
            },
            Step {
                direction: Direction::Backward,
                buffer: None,
                barrier_after: false,
            },
        ],
    };
    assert!(first_race(&not_unrolled.accesses()).is_some());
}
