//! The balanced warp programs (`shuffle::balanced_shuffle_plans`, the
//! planner's `balanced_program`): every program is proved by the warp
//! model (`check_warp_program`, the destination layout evaluated directly)
//! and, for 8/16-bit elements, its packed-word form on real words
//! (`check_word_program`); counts for a one-bit register↔lane exchange are
//! derived by hand from its register pairs; planted mistakes are caught;
//! the planner takes the candidate only where it is strictly cheaper.

use hw_layouts::Encoding;
use layout_codegen::packed_shuffle::{check_word_program, WordProgram};
use layout_codegen::planner::{plan, Target};
use layout_codegen::shuffle::{
    balanced_shuffle_plan, balanced_shuffle_plans, check_warp_program, LanePredicate, ShflMode,
    ShuffleError, WarpCheckError, WarpInstr, WarpProgram,
};
use linear_layout::LinearLayout;
use proptest::prelude::*;

mod common;
use common::{mix_bits, random_pair, Rng};

fn ll(attr: &str, shape: &[u64]) -> LinearLayout {
    Encoding::parse(attr)
        .and_then(|e| e.to_linear_layout(shape))
        .expect("layout")
}

/// `BLK_ROW` of `bench/gpu/cases.toml`.
const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
/// `SWAP1_64x64`: `BLK_ROW` with register basis 0 and lane basis 0 exchanged.
const SWAP1_64: &str = "#ttg.linear<{register = [[0, 4], [0, 2], [0, 16], [0, 32], [32, 0]], lane = [[0, 1], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>";
/// `SWAP1_128x128`.
const SWAP1_128: &str = "#ttg.linear<{register = [[0, 4], [0, 2], [0, 16], [0, 32], [0, 64], [32, 0], [64, 0]], lane = [[0, 1], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>";
/// `SWAP2_64x64`: register bases 0, 1 and lane bases 0, 1 exchanged.
const SWAP2_64: &str = "#ttg.linear<{register = [[0, 4], [0, 8], [0, 16], [0, 32], [32, 0]], lane = [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>";
/// `ho_swap_r1l2_64x64_f16`'s destination: register basis 1 <-> lane basis 2.
const SWAP_R1L2_64: &str = "#ttg.linear<{register = [[0, 1], [1, 0], [0, 16], [0, 32], [32, 0]], lane = [[0, 4], [0, 8], [0, 2], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>";
/// `fresh3_blk_to_dotA_k4_w41_64x64_f8`.
const BLK16: &str = "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>";
const DOT_A_K4: &str = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 4}>";

/// The suite's in-warp pairs: (name, src, dst, bits).
fn suite_pairs() -> Vec<(&'static str, LinearLayout, LinearLayout, u32)> {
    let s64 = [64, 64];
    let s128 = [128, 128];
    vec![
        ("swap1_64x64_f16", ll(BLK_ROW, &s64), ll(SWAP1_64, &s64), 16),
        ("swap1_64x64_f32", ll(BLK_ROW, &s64), ll(SWAP1_64, &s64), 32),
        (
            "swap1_128x128_f8",
            ll(BLK_ROW, &s128),
            ll(SWAP1_128, &s128),
            8,
        ),
        ("swap2_64x64_f32", ll(BLK_ROW, &s64), ll(SWAP2_64, &s64), 32),
        (
            "ho_swap_r1l2_64x64_f16",
            ll(BLK_ROW, &s64),
            ll(SWAP_R1L2_64, &s64),
            16,
        ),
        (
            "fresh3_blk_to_dotA_k4_w41_64x64_f8",
            ll(BLK16, &s64),
            ll(DOT_A_K4, &s64),
            8,
        ),
    ]
}

/// Every balanced program of the pair is proved, and so is the word form
/// of an 8/16-bit one.
fn prove_all(s: &LinearLayout, d: &LinearLayout, bits: u32, what: &str) {
    let plans = balanced_shuffle_plans(s, d, bits).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(!plans.is_empty(), "{what}");
    for p in plans {
        check_warp_program(&p.program, s, d).unwrap_or_else(|e| panic!("{what}: {e}"));
        if bits < 32 {
            if let Some(w) = WordProgram::from_program(&p.program) {
                check_word_program(&w, s, d).unwrap_or_else(|e| panic!("{what} words: {e}"));
            }
        }
    }
}

#[test]
fn suite_swap_pairs_are_proved_with_their_word_forms() {
    for (name, s, d, bits) in suite_pairs() {
        prove_all(&s, &d, bits, name);
    }
}

/// `swap1_64x64_f32`: 32 registers per thread, register bit 0 exchanged
/// with lane bit 0, so `P = 16` register pairs. A pair costs 1 shuffle and
/// 3 selects as Ship (select, `shfl.bfly`, two selects), 2 and 2 as
/// shuffle-then-select. With `a` Ship pairs: `2P − a` shuffles and `2P + a`
/// selects, `max(2P − a, (2P + a) / 2)` cycles; the best `a` is found here
/// by trying every one.
#[test]
fn swap1_f32_counts_follow_from_the_register_pairs() {
    let (s, d) = (ll(BLK_ROW, &[64, 64]), ll(SWAP1_64, &[64, 64]));
    let pairs = 32 / 2;
    let cycles = |a: usize| ((2 * pairs - a) as f64).max((2 * pairs + a) as f64 / 2.0);
    let a = (0..=pairs)
        .min_by(|&x, &y| cycles(x).total_cmp(&cycles(y)))
        .unwrap();
    assert_eq!((a, cycles(a)), (11, 21.5));
    let p = balanced_shuffle_plan(&s, &d, 32).unwrap();
    check_warp_program(&p.program, &s, &d).unwrap();
    assert_eq!(
        (p.cost.shuffles, p.cost.selects, p.cost.prmt),
        (2 * pairs - a, 2 * pairs + a, 0)
    );
    // Every pair as Ship is among the programs: Triton's counts.
    let all = balanced_shuffle_plans(&s, &d, 32).unwrap();
    assert!(all
        .iter()
        .any(|p| (p.cost.shuffles, p.cost.selects) == (pairs, 3 * pairs)));
    assert!(all
        .iter()
        .any(|p| (p.cost.shuffles, p.cost.selects) == (2 * pairs, 2 * pairs)));
    // The planner: 4 warps run the same program, 21.5 cycles against
    // Triton's 24 (16 shuffles, 48 selects).
    let planned = plan(&s, &d, 32, &Target::SM90).unwrap();
    assert_eq!(planned.candidate, "balanced_program");
    assert_eq!(planned.cycles, cycles(a));
    assert_eq!(planned.cost.shuffles, 4 * (2 * pairs - a) as u64);
    assert_eq!(planned.cost.selects, 4 * (2 * pairs + a) as u64);
    let triton = planned.candidates.iter().find(|c| c.name == "triton");
    assert_eq!(triton.and_then(|c| c.cycles), Some(24.0));
}

/// `swap2_64x64_f32` as two one-bit exchanges in a row: 2 × 16 pairs, `a`
/// of them Ship: `64 − a` shuffles, `64 + a` selects; best at `a = 21`
/// (43 shuffles, 85 selects: 43 cycles) where Triton's Swap needs 24
/// shuffles and 128 selects (64 cycles).
#[test]
fn swap2_f32_runs_as_two_balanced_exchanges() {
    let (s, d) = (ll(BLK_ROW, &[64, 64]), ll(SWAP2_64, &[64, 64]));
    let pairs = 2 * 16;
    let cycles = |a: usize| ((2 * pairs - a) as f64).max((2 * pairs + a) as f64 / 2.0);
    let best = (0..=pairs).map(cycles).fold(f64::INFINITY, f64::min);
    assert_eq!(best, 43.0);
    let p = balanced_shuffle_plan(&s, &d, 32).unwrap();
    check_warp_program(&p.program, &s, &d).unwrap();
    let got = (p.cost.shuffles as f64).max(p.cost.selects as f64 / 2.0);
    assert_eq!(got, best);
    assert_eq!(p.cost.shuffles + p.cost.selects, 2 * 2 * pairs);
}

/// Replaces the first instruction `edit` changes; panics if none does.
fn mutate(prog: &WarpProgram, edit: impl Fn(&mut WarpInstr) -> bool) -> WarpProgram {
    let mut bad = prog.clone();
    assert!(bad.instrs.iter_mut().any(edit), "nothing to mutate");
    bad
}

#[test]
fn planted_mistakes_are_caught() {
    let (s, d) = (ll(BLK_ROW, &[64, 64]), ll(SWAP1_64, &[64, 64]));
    let prog = balanced_shuffle_plan(&s, &d, 32).unwrap().program;
    check_warp_program(&prog, &s, &d).unwrap();
    // A select keyed on the wrong value of M(lane).
    let wrong_predicate = mutate(&prog, |i| match i {
        WarpInstr::Select {
            cond: LanePredicate::Equals { value, .. },
            ..
        } => {
            *value ^= 1;
            true
        }
        _ => false,
    });
    // A butterfly with the wrong xor mask.
    let wrong_mask = mutate(&prog, |i| match i {
        WarpInstr::Shuffle {
            mode: ShflMode::Xor { mask },
            ..
        } => {
            *mask ^= 2;
            true
        }
        _ => false,
    });
    // A merged shuffle's sender selecting the other register.
    let wrong_sender = mutate(&prog, |i| match i {
        WarpInstr::Select {
            if_true, if_false, ..
        } => {
            std::mem::swap(if_true, if_false);
            true
        }
        _ => false,
    });
    for (what, bad) in [
        ("predicate", wrong_predicate),
        ("xor mask", wrong_mask),
        ("sender", wrong_sender),
    ] {
        match check_warp_program(&bad, &s, &d) {
            Err(WarpCheckError::WrongValue { .. }) => {}
            other => panic!("wrong {what} not caught: {other:?}"),
        }
    }
}

/// The word form of a 16-bit program is checked on real words: a wrong
/// butterfly mask there is caught too.
#[test]
fn planted_word_mistake_is_caught() {
    let (s, d) = (ll(BLK_ROW, &[64, 64]), ll(SWAP1_64, &[64, 64]));
    let prog = balanced_shuffle_plan(&s, &d, 16).unwrap().program;
    let mut w = WordProgram::from_program(&prog).unwrap();
    check_word_program(&w, &s, &d).unwrap();
    let flipped = w.instrs.iter_mut().any(|i| match i {
        layout_codegen::packed_shuffle::WordInstr::Shuffle {
            mode: ShflMode::Xor { mask },
            ..
        } => {
            *mask ^= 4;
            true
        }
        _ => false,
    });
    assert!(flipped);
    assert!(check_word_program(&w, &s, &d).is_err());
}

/// The suite's pairs in the planner: the balanced candidate is taken only
/// where strictly cheaper than every other proved candidate, and then its
/// program is proved again here.
#[test]
fn planner_takes_balanced_only_when_strictly_cheaper() {
    for (name, s, d, bits) in suite_pairs() {
        check_planner(&s, &d, bits, name);
    }
}

fn check_planner(s: &LinearLayout, d: &LinearLayout, bits: u32, what: &str) {
    let p = plan(s, d, bits, &Target::SM90).unwrap_or_else(|e| panic!("{what}: {e}"));
    let balanced = p
        .candidates
        .iter()
        .find(|c| c.name == "balanced_program")
        .and_then(|c| c.cycles);
    let others = p
        .candidates
        .iter()
        .filter(|c| c.name != "balanced_program")
        .filter_map(|c| c.cycles)
        .fold(f64::INFINITY, f64::min);
    if p.candidate == "balanced_program" {
        assert!(balanced.unwrap() < others, "{what}");
        let Some(layout_codegen::plan::ConversionPlan::WarpProgram(prog)) = p.lowering.whole()
        else {
            panic!("{what}: not a warp program");
        };
        check_warp_program(prog, s, d).unwrap_or_else(|e| panic!("{what}: {e}"));
        if let Some(w) = &p.words {
            check_word_program(w, s, d).unwrap_or_else(|e| panic!("{what}: {e}"));
        }
    } else if let Some(b) = balanced {
        assert!(b >= p.cycles, "{what}");
    }
}

/// A random in-warp pair (same warp bases); with `mixed`, both layouts'
/// bases are mixed by one random invertible map (not distributed any
/// more, the conversion unchanged).
fn random_in_warp(seed: u64, mixed: bool) -> (LinearLayout, LinearLayout) {
    let mut rng = Rng(seed | 1);
    let (s, d) = random_pair(&mut rng);
    if !mixed {
        return (s, d);
    }
    let m = Rng(rng.next() | 1);
    (
        mix_bits(&mut Rng(m.0), &s, 4),
        mix_bits(&mut Rng(m.0), &d, 4),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Random in-warp pairs (distributed or not, registers broadcast or
    /// not), 32-, 16- and 8-bit: every balanced program and word form is
    /// proved.
    #[test]
    fn random_in_warp_pairs_are_proved(seed in any::<u64>(), mixed in any::<bool>(), w in 0usize..3) {
        let bits = [32, 16, 8][w];
        let (s, d) = random_in_warp(seed, mixed);
        // Warp-local means `C = dst⁻¹ ∘ src` trivial over warps; a
        // broadcast source may leave that choice to `invert_and_compose`.
        prop_assume!(!matches!(
            balanced_shuffle_plans(&s, &d, bits),
            Err(ShuffleError::NotWarpLocal { .. })
        ));
        prove_all(&s, &d, bits, &format!("seed {seed}, mixed {mixed}, {bits} bit\nsrc {s}\ndst {d}"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// The planner on random in-warp pairs, 32- and 16-bit: the balanced
    /// candidate wins only when strictly cheaper, and what it returns is
    /// proved.
    #[test]
    fn random_in_warp_pairs_in_the_planner(seed in any::<u64>(), wide in any::<bool>()) {
        let bits = if wide { 32 } else { 16 };
        let (s, d) = random_in_warp(seed, false);
        check_planner(&s, &d, bits, &format!("seed {seed}, {bits} bit\nsrc {s}\ndst {d}"));
    }
}
