//! Staged plans (`Lowering::Staged`, `layout_codegen::regroup`): an
//! in-warp regroup of 8/16-bit elements and a plan of whole words. Each
//! plan the planner returns is proved again by `simulate_staged` (the
//! regroup on real packed words, the word stage by the simulator, every
//! destination register of every thread), lies at or above the floor, and
//! planted mistakes (a byte selector, a shuffle partner, a load's
//! registers) are caught.

use hw_layouts::Encoding;
use layout_codegen::conversion::moved_levels;
use layout_codegen::packed_shuffle::WordInstr;
use layout_codegen::plan::{ConversionPlan, RegroupAt};
use layout_codegen::plan_options::Allow;
use layout_codegen::planner::{plan, plan_with, staged_candidate, Lowering, PlanOptions, Target};
use layout_codegen::shuffle::ShflMode;
use layout_codegen::simulator::{simulate_staged, SimulatorConfig};
use linear_layout::{DimName, LinearLayout};
use proptest::prelude::*;

mod common;
use common::Rng;

fn ll(attr: &str, shape: &[u64]) -> LinearLayout {
    Encoding::parse(attr)
        .and_then(|e| e.to_linear_layout(shape))
        .expect("layout")
}

/// `ho_blocked_T16_128x64_f8` of `bench/gpu/cases.toml`.
fn named_pair() -> (LinearLayout, LinearLayout) {
    let shape = [128, 64];
    (
        ll(
            "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>",
            &shape,
        ),
        ll(
            "#ttg.blocked<{sizePerThread = [16, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [0, 1]}>",
            &shape,
        ),
    )
}

const NVIDIA: SimulatorConfig = SimulatorConfig::NVIDIA;

#[test]
fn named_pair_is_staged_and_proved() {
    let (s, d) = named_pair();
    let p = plan(&s, &d, 8, &Target::SM90).unwrap();
    assert_eq!(p.candidate, "regroup_first");
    let Lowering::Staged { regroup, then } = &p.lowering else {
        panic!("not staged: {}", p.lowering.kind_name());
    };
    assert_eq!(regroup.at, RegroupAt::Before);
    simulate_staged(&NVIDIA, regroup, then, &s, &d).unwrap();
    // By hand (regroup module doc): 16 words per thread are 4 groups of 4,
    // each 3 shuffles and 2·2·4 permutes; over 4 warps.
    assert_eq!(p.cost.shuffles, 4 * 4 * 3);
    assert_eq!(p.cost.prmt, 4 * 4 * 16);
    // The word stage moves 4-byte words: 8 KiB stored and loaded at 128
    // bytes per wavefront = 64 + 64 wavefronts, no conflict.
    assert_eq!((p.cost.store_wavefronts, p.cost.load_wavefronts), (64, 64));
    // max(32 + 12, 64 / 2) + one barrier (4).
    assert_eq!(p.cycles, 48.0);
    let triton = p.candidates.iter().find(|c| c.name == "triton").unwrap();
    assert!(p.cycles < triton.cycles.unwrap());
    assert!(p.cycles >= p.lower_bound.cycles);
}

#[test]
fn planted_mistakes_are_caught() {
    let (s, d) = named_pair();
    let p = plan(&s, &d, 8, &Target::SM90).unwrap();
    let Lowering::Staged { regroup, then } = &p.lowering else {
        panic!("not staged");
    };
    // A wrong byte selector in lane 5 of the first permute.
    let mut bad = regroup.clone();
    if let Some(WordInstr::Permute { selector, .. }) = bad.program.instrs.first_mut() {
        selector[5] = selector[5].rotate_left(4) & 0xffff;
    }
    assert!(simulate_staged(&NVIDIA, &bad, then, &s, &d).is_err());
    // A wrong shuffle partner.
    let mut bad = regroup.clone();
    let sh = bad
        .program
        .instrs
        .iter_mut()
        .find_map(|i| match i {
            WordInstr::Shuffle { mode, .. } => Some(mode),
            _ => None,
        })
        .unwrap();
    *sh = ShflMode::Xor { mask: 16 };
    assert!(simulate_staged(&NVIDIA, &bad, then, &s, &d).is_err());
    // Two loads of the word stage with their registers exchanged.
    let ConversionPlan::SharedMemory(m) = then else {
        panic!("word stage is not through shared memory");
    };
    let mut m = m.clone();
    let loads = &mut m.rounds[0].loads;
    let r0 = loads[0].registers.clone();
    loads[0].registers = loads[1].registers.clone();
    loads[1].registers = r0;
    let bad_then = ConversionPlan::SharedMemory(m);
    assert!(simulate_staged(&NVIDIA, regroup, &bad_then, &s, &d).is_err());
}

#[test]
fn named_pair_backward_regroups_too() {
    let (s, d) = named_pair();
    let p = plan(&d, &s, 8, &Target::SM90).unwrap();
    let (regroup, then) = p.lowering.staged().expect("staged");
    simulate_staged(&NVIDIA, regroup, then, &d, &s).unwrap();
    assert_eq!(p.cycles, 48.0);
    // The regroup after the word stage is proved as well.
    let last = staged_candidate(
        &d,
        &s,
        8,
        &Target::SM90,
        &PlanOptions::default(),
        RegroupAt::After,
    )
    .unwrap();
    let (r, t) = last.staged().unwrap();
    assert_eq!(r.at, RegroupAt::After);
    simulate_staged(&NVIDIA, r, t, &d, &s).unwrap();
}

#[test]
fn suite_pairs_where_the_class_applies() {
    // fresh3_blk8_T_128x64_i8: the regroup applies (48 cycles) but the
    // shared plan's 36 is cheaper: not chosen.
    let shape = [128, 64];
    let s = ll("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>", &shape);
    let d = ll("#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>", &shape);
    let p = plan(&s, &d, 8, &Target::SM90).unwrap();
    let staged = p
        .candidates
        .iter()
        .find(|c| c.name == "regroup_first")
        .unwrap();
    assert!(staged.cycles.unwrap() > p.cycles);
    assert_ne!(p.lowering.kind_name(), "staged");
    let l = staged_candidate(
        &s,
        &d,
        8,
        &Target::SM90,
        &PlanOptions::default(),
        RegroupAt::Before,
    )
    .unwrap();
    let (r, t) = l.staged().unwrap();
    simulate_staged(&NVIDIA, r, t, &s, &d).unwrap();
    // fresh3_blk_to_dotA_k4_w41_64x64_f8: the destination's words
    // (kWidth 4 along k) are source register words already: refused.
    let shape = [64, 64];
    let s = ll("#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>", &shape);
    let d = ll("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 4}>", &shape);
    let refused = staged_candidate(
        &s,
        &d,
        8,
        &Target::SM90,
        &PlanOptions::default(),
        RegroupAt::Before,
    )
    .unwrap_err();
    assert!(refused.to_string().contains("not a lane bit"), "{refused}");
}

#[test]
fn sixteen_bit_pair_is_staged_and_proved() {
    let shape = [128, 64];
    let s = ll("#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>", &shape);
    let d = ll("#ttg.blocked<{sizePerThread = [16, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [0, 1]}>", &shape);
    // Without matrix instructions (with them, a plan through ldmatrix
    // .trans costs less: tests/matrix_default.rs).
    let vector = PlanOptions {
        matrix: Allow::Never,
        ..PlanOptions::default()
    };
    let p = plan_with(&s, &d, 16, &Target::SM90, &vector).unwrap();
    let (r, t) = p.lowering.staged().expect("staged");
    assert_eq!(r.lane_bits, vec![0]);
    simulate_staged(&NVIDIA, r, t, &s, &d).unwrap();
    // 32 words per thread: 16 pairs, one shuffle and 2 + 2 permutes each.
    assert_eq!(p.cost.shuffles, 4 * 16);
    assert_eq!(p.cost.prmt, 4 * 64);
    let triton = p.candidates.iter().find(|c| c.name == "triton").unwrap();
    assert!(p.cycles < triton.cycles.unwrap());
}

/// A random pair of 128×64 layouts (6 register, 5 lane, 2 warp bits, each
/// a distinct unit vector of the tile) whose destination words are source
/// lane bits: `D`'s register bits `0..k` are `k` random lane bits of `S`,
/// every other bit of `D` a random permutation of the rest.
fn random_pair(seed: u64, k: usize) -> (LinearLayout, LinearLayout) {
    let mut rng = Rng(seed | 1);
    let units: Vec<Vec<u64>> = (0..7)
        .map(|i| vec![1 << i, 0])
        .chain((0..6).map(|i| vec![0, 1 << i]))
        .collect();
    let mut s = units.clone();
    rng.shuffle(&mut s);
    let mk = |v: &[Vec<u64>]| {
        LinearLayout::new(
            vec![
                (DimName::REGISTER, v[0..6].to_vec()),
                (DimName::LANE, v[6..11].to_vec()),
                (DimName::WARP, v[11..13].to_vec()),
                (DimName::BLOCK, vec![]),
            ],
            vec![(DimName::dim(0), 128), (DimName::dim(1), 64)],
            true,
        )
        .unwrap()
    };
    let mut lanes: Vec<usize> = (6..11).collect();
    rng.shuffle(&mut lanes);
    let words: Vec<Vec<u64>> = lanes[..k].iter().map(|&i| s[i].clone()).collect();
    let mut rest: Vec<Vec<u64>> = s.iter().filter(|v| !words.contains(v)).cloned().collect();
    rng.shuffle(&mut rest);
    let d: Vec<Vec<u64>> = words.into_iter().chain(rest).collect();
    (mk(&s), mk(&d))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// Where the regroup applies, the staged candidate is proved and costs
    /// at least the floor; the planner's answer is proved too.
    #[test]
    fn random_staged_plans_are_proved_and_above_the_floor(seed in any::<u64>(), wide in any::<bool>()) {
        let (bits, k) = if wide { (16, 1) } else { (8, 2) };
        let (s, d) = random_pair(seed, k);
        let l = staged_candidate(&s, &d, bits, &Target::SM90, &PlanOptions::default(), RegroupAt::Before)
            .unwrap();
        let (r, t) = l.staged().unwrap();
        simulate_staged(&NVIDIA, r, t, &s, &d).unwrap();
        let p = plan(&s, &d, bits, &Target::SM90).unwrap();
        // The planner offers staged plans only to conversions that leave
        // their warps (in-warp ones have the warp programs); the generator
        // keeps `S`'s warp bases in `D`'s warp bits now and then.
        let crosses = moved_levels(&s, &d).unwrap().contains(&DimName::WARP);
        let c = p.candidates.iter().find(|c| c.name == "regroup_first");
        prop_assert_eq!(c.is_some(), crosses, "staged candidates exactly for cross-warp pairs");
        if let Some(c) = c {
            let cycles = c.cycles.expect("the staged candidate is planned");
            prop_assert!(cycles + 1e-9 >= p.lower_bound.cycles);
            prop_assert!(p.cycles <= cycles);
        }
        if let Some((r, t)) = p.lowering.staged() {
            let (a, b) = (&s, &d);
            simulate_staged(&NVIDIA, r, t, a, b).unwrap();
        }
    }
}
