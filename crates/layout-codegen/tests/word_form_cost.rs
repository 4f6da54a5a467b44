//! The planner costs a warp program of 8/16-bit elements by the form that
//! runs: its packed-word program (whole 32-bit words through `shfl.sync`,
//! every select or repack one `prmt` with a lane-dependent selector) where
//! that is no dearer than the element program. Expected counts are derived
//! here by hand from the data movement, not read from the planner.

use hw_layouts::Encoding;
use layout_codegen::cost::PredictedCost;
use layout_codegen::cost::ALU_PER_CYCLE;
use layout_codegen::packed_shuffle::check_word_program;
use layout_codegen::packed_shuffle::WordProgram;
use layout_codegen::plan::ConversionPlan;
use layout_codegen::planner::{plan, whole_cost, Target};
use layout_codegen::shuffle::triton_shuffle_plan;
use layout_codegen::simulator::SimulatorConfig;
use linear_layout::LinearLayout;

const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";

fn layout(enc: &str, shape: [u64; 2]) -> LinearLayout {
    Encoding::parse(enc)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap()
}

/// `l` with register basis 0 and lane basis 0 exchanged.
fn swap_r0_l0(l: &LinearLayout) -> LinearLayout {
    let mut b = l.all_bases();
    let r = b[0].1[0].clone();
    b[0].1[0] = b[1].1[0].clone();
    b[1].1[0] = r;
    LinearLayout::new(b, l.out_dims(), true).unwrap()
}

/// How the planner costs Triton's warp program (its `triton` candidate)
/// of `src → dst`; the planner's choice may be cheaper
/// (`balanced_program`), never dearer.
fn triton_program_cost(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
) -> (PredictedCost, Option<WordProgram>) {
    let program = triton_shuffle_plan(src, dst, bits).unwrap().program;
    let plan = ConversionPlan::WarpProgram(Box::new(program));
    let cost = whole_cost(&SimulatorConfig::default(), &plan, src, dst, &Target::SM90).unwrap();
    let chosen = plan_cycles(src, dst, bits);
    assert!(chosen <= cost.0.cycles(), "{chosen} > {}", cost.0.cycles());
    cost
}

fn plan_cycles(src: &LinearLayout, dst: &LinearLayout, bits: u32) -> f64 {
    plan(src, dst, bits, &Target::SM90).unwrap().cycles
}

#[test]
fn a_packed_half_swap_is_costed_as_its_word_program() {
    // 64x64 f16 over 4 warps: 32 registers = 16 words per thread. Register
    // bit 0 is the half inside a word; exchanging it with lane bit 0 moves
    // one half of every word to the partner lane `lane ^ 1`:
    // * to send: the 16 halves the partner needs, two per word: 8 words,
    //   each built by one permute of two source words, then 8 shuffles;
    // * to receive: each of the 16 destination words is its own half and
    //   the partner's: one permute each.
    // 8 shuffles and 8 + 16 = 24 permutes per warp, ALU-bound:
    // max(8, 24 / ALU_PER_CYCLE) = 12 cycles per warp.
    let src = layout(BLK_ROW, [64, 64]);
    let dst = swap_r0_l0(&src);
    let (cost, words) = triton_program_cost(&src, &dst, 16);
    let w = words.as_ref().expect("the word form runs");
    check_word_program(w, &src, &dst).unwrap();
    let warps = 4;
    assert_eq!(cost.shuffles, 8 * warps);
    assert_eq!(cost.prmt, 24 * warps);
    assert_eq!(cost.selects, 0);
    assert_eq!(cost.cycles(), (8f64).max(24.0 / ALU_PER_CYCLE));
    assert_eq!(cost.cycles(), 12.0);
    // The same exchange of 8-bit data at 128x128 (128 registers = 32
    // words per thread): 2 of a word's 4 bytes leave, 16 shuffles, 16
    // permutes to build them and 32 to merge: 24 cycles.
    let src8 = layout(BLK_ROW, [128, 128]);
    let (cost8, words8) = triton_program_cost(&src8, &swap_r0_l0(&src8), 8);
    assert!(words8.is_some());
    assert_eq!((cost8.shuffles, cost8.prmt), (16 * warps, 48 * warps));
    assert_eq!(cost8.cycles(), 24.0);
}

#[test]
fn thirty_two_bit_programs_keep_their_element_cost() {
    // f32: one register per element, no words. 16 of the 32 registers
    // move (16 shuffles); each shuffle's source is a select by the lane
    // bit, and each of the 32 destination registers a select between kept
    // and received: 48 selects, max(16, 48 / 2) = 24.
    let src = layout(BLK_ROW, [64, 64]);
    let (cost, words) = triton_program_cost(&src, &swap_r0_l0(&src), 32);
    assert!(words.is_none());
    assert_eq!((cost.shuffles, cost.selects), (16 * 4, 48 * 4));
    assert_eq!(cost.cycles(), 24.0);
}

#[test]
fn an_mma_accumulator_to_its_b_operand_reaches_the_floor_on_words() {
    // bf16 mma v2 accumulators (warps [1, 4]) to the B operand of the same
    // mma (kWidth 2): an in-warp exchange whose word program moves as many
    // bytes per shuffle as the floor allows.
    let shape = [64, 64];
    let src = layout(
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 4], instrShape = [16, 8]}>",
        shape,
    );
    let dst = layout(
        "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 4], instrShape = [16, 8]}>, kWidth = 2}>",
        shape,
    );
    let p = plan(&src, &dst, 16, &Target::SM90).unwrap();
    assert!(p.words.is_some());
    assert!(
        p.above_bound <= 1.0 + 1e-9,
        "{} above its floor",
        p.above_bound
    );
}
