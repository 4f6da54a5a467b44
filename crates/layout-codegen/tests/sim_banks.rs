//! The 32- and 64-bank shared-memory models of the simulator, on small
//! access patterns whose wavefronts are derived by hand in the comments
//! (word `w` = byte address / 4 is in bank `w mod B`; a phase costs the
//! largest number of distinct words in one bank).

use layout_codegen::plan::ConversionPlan;
use layout_codegen::shared_conversion::plan_shared_matrix;
use layout_codegen::simulator::{
    access_wavefronts, access_wavefronts_with, simulate, simulate_with, SimulatorConfig,
};
use layout_codegen::CodegenError;
use linear_layout::{DimName, LinearLayout};

const NV: SimulatorConfig = SimulatorConfig::NVIDIA;
const AMD: SimulatorConfig = SimulatorConfig::AMD_LDS;

fn starts(lanes: u64, stride_bytes: u64) -> Vec<u64> {
    (0..lanes).map(|l| l * stride_bytes).collect()
}

#[test]
fn thirty_two_bit_accesses() {
    // 64 lanes × 4 B, consecutive words 0..63.
    // 64 banks: max(1, 64·4/256) = 1 phase; 64 words in 64 distinct banks: 1.
    // 32 banks: max(1, 32·4/128) = 1 phase of all 64 lanes; banks w mod 32
    // hold 2 words each: 2.
    assert_eq!(
        access_wavefronts_with(&AMD, &starts(64, 4), 4).unwrap(),
        vec![1]
    );
    assert_eq!(
        access_wavefronts_with(&NV, &starts(64, 4), 4).unwrap(),
        vec![2]
    );
    // 64 lanes, stride 2 words (words 0, 2, .., 126).
    // 64 banks: banks 2l mod 64 = the 32 even banks, 2 words each: 2.
    // 32 banks: banks 2l mod 32 = 16 even banks, 4 words each: 4.
    assert_eq!(
        access_wavefronts_with(&AMD, &starts(64, 8), 4).unwrap(),
        vec![2]
    );
    assert_eq!(
        access_wavefronts_with(&NV, &starts(64, 8), 4).unwrap(),
        vec![4]
    );
    // 32 lanes, stride 32 words: 32 banks, all in bank 0: 32; 64 banks:
    // words 32 l are in banks 0 and 32 alternately, 16 words each: 16.
    assert_eq!(
        access_wavefronts_with(&NV, &starts(32, 128), 4).unwrap(),
        vec![32]
    );
    assert_eq!(
        access_wavefronts_with(&AMD, &starts(32, 128), 4).unwrap(),
        vec![16]
    );
    // 32 lanes, stride 64 words: bank 0 in both models: 32.
    assert_eq!(
        access_wavefronts_with(&NV, &starts(32, 256), 4).unwrap(),
        vec![32]
    );
    assert_eq!(
        access_wavefronts_with(&AMD, &starts(32, 256), 4).unwrap(),
        vec![32]
    );
    // All lanes read one word: a broadcast, 1 in both.
    assert_eq!(access_wavefronts_with(&NV, &[12; 32], 4).unwrap(), vec![1]);
    assert_eq!(access_wavefronts_with(&AMD, &[12; 64], 4).unwrap(), vec![1]);
    // The NVIDIA default is the 32-bank model.
    assert_eq!(access_wavefronts(&starts(64, 8), 4), vec![4]);
}

#[test]
fn sixty_four_bit_accesses() {
    // 32 lanes × 8 B contiguous (words 0..63).
    // 64 banks: max(1, 32·8/256) = 1 phase; 64 words, 64 banks: 1.
    // 32 banks: 32·8/128 = 2 phases of 16 lanes, each 32 consecutive words
    // in 32 banks: 1, 1.
    assert_eq!(
        access_wavefronts_with(&AMD, &starts(32, 8), 8).unwrap(),
        vec![1]
    );
    assert_eq!(
        access_wavefronts_with(&NV, &starts(32, 8), 8).unwrap(),
        vec![1, 1]
    );
    // 64 lanes × 8 B contiguous (words 0..127).
    // 64 banks: 64·8/256 = 2 phases of 32 lanes, each 64 consecutive words:
    // 1, 1. 32 banks: 2 phases of 32 lanes, each 64 words in 32 banks: 2, 2.
    assert_eq!(
        access_wavefronts_with(&AMD, &starts(64, 8), 8).unwrap(),
        vec![1, 1]
    );
    assert_eq!(
        access_wavefronts_with(&NV, &starts(64, 8), 8).unwrap(),
        vec![2, 2]
    );
    // 32 lanes × 8 B at stride 16 B (words 4l, 4l+1).
    // 64 banks, one phase: banks (4l mod 64, 4l+1 mod 64): lanes l and l+16
    // share, 2 words per bank: 2. 32 banks, phases of lanes 0-15 and 16-31:
    // in a phase banks 4l mod 32 repeat for l and l+8: 2, 2.
    assert_eq!(
        access_wavefronts_with(&AMD, &starts(32, 16), 8).unwrap(),
        vec![2]
    );
    assert_eq!(
        access_wavefronts_with(&NV, &starts(32, 16), 8).unwrap(),
        vec![2, 2]
    );
}

#[test]
fn one_twenty_eight_bit_accesses() {
    // 64 lanes × 16 B contiguous (words 0..255).
    // 64 banks: 64·16/256 = 4 phases of 16 lanes = 64 consecutive words: 1
    // each. 32 banks: 32·16/128 = 4 phases of 64/4 = 16 lanes, 64 words
    // over 32 banks: 2 each.
    assert_eq!(
        access_wavefronts_with(&AMD, &starts(64, 16), 16).unwrap(),
        vec![1; 4]
    );
    assert_eq!(
        access_wavefronts_with(&NV, &starts(64, 16), 16).unwrap(),
        vec![2; 4]
    );
    // 32 lanes × 16 B contiguous: 64 banks, 2 phases of 16 lanes (64 words):
    // 1, 1; 32 banks, 4 phases of 8 lanes (32 words): 1 each.
    assert_eq!(
        access_wavefronts_with(&AMD, &starts(32, 16), 16).unwrap(),
        vec![1; 2]
    );
    assert_eq!(
        access_wavefronts_with(&NV, &starts(32, 16), 16).unwrap(),
        vec![1; 4]
    );
    // 32 lanes × 16 B at stride 32 B (words 8l..8l+3).
    // 64 banks: phase of lanes 0-15 covers words 8l+{0..3}, banks mod 64
    // repeat for l and l+8: 2, 2. 32 banks: phase of 8 lanes, banks 8l mod
    // 32 repeat for l and l+4: 2 each.
    assert_eq!(
        access_wavefronts_with(&AMD, &starts(32, 32), 16).unwrap(),
        vec![2; 2]
    );
    assert_eq!(
        access_wavefronts_with(&NV, &starts(32, 32), 16).unwrap(),
        vec![2; 4]
    );
}

fn layout(reg: &[u64], lane: &[u64]) -> LinearLayout {
    let b = |xs: &[u64]| xs.iter().map(|&x| vec![x]).collect::<Vec<_>>();
    LinearLayout::new(
        vec![
            (DimName::REGISTER, b(reg)),
            (DimName::LANE, b(lane)),
            (DimName::WARP, vec![]),
        ],
        vec![(DimName::dim(0), 128)],
        true,
    )
    .unwrap()
}

/// A wave64 conversion of 128 32-bit elements through an identity scratch:
/// the source has register base 64 and lanes 1..32 (lane `l` stores
/// registers 0 and 1 at offsets `l` and `64 + l`: two 1-element stores of
/// 64 consecutive words each), the destination register base 1 and lanes
/// 2..64 (lane `l` loads offsets `2l, 2l + 1`: one 2-element load of 128
/// consecutive words).
/// * 64 banks: each store is one 256-byte phase over 64 banks: 1 + 1; the
///   load is `64·8/256 = 2` phases of 64 words: 1 + 1.
/// * 32 banks: each store is one phase of 64 words over 32 banks: 2 + 2;
///   the load `32·8/128 = 2` phases of 32 lanes, 64 words: 2 + 2.
#[test]
fn a_wave64_plan_in_both_models() {
    let src = layout(&[64], &[1, 2, 4, 8, 16, 32]);
    let dst = layout(&[1], &[2, 4, 8, 16, 32, 64]);
    let id = LinearLayout::identity_1d(128, DimName::OFFSET, DimName::dim(0));
    let p = ConversionPlan::SharedMemory(Box::new(
        plan_shared_matrix(&src, &dst, 32, Some(&id)).unwrap(),
    ));
    let amd = simulate_with(&AMD, &p, &src, &dst).unwrap();
    assert_eq!((amd.store_instructions, amd.load_instructions), (2, 1));
    assert_eq!((amd.store_wavefronts, amd.load_wavefronts), (2, 2));
    assert_eq!(
        amd.store_conflict_wavefronts + amd.load_conflict_wavefronts,
        0
    );
    let nv = simulate_with(&NV, &p, &src, &dst).unwrap();
    assert_eq!((nv.store_wavefronts, nv.load_wavefronts), (4, 4));
    assert_eq!((nv.max_store_conflicts, nv.max_load_conflicts), (1, 1));
    // `simulate` is the 32-bank model.
    assert_eq!(simulate(&p, &src, &dst).unwrap(), nv);
    assert_eq!(amd.registers_checked, 64 * 2);
}

#[test]
fn other_bank_counts_are_refused() {
    let src = layout(&[64], &[1, 2, 4, 8, 16, 32]);
    let dst = layout(&[1], &[2, 4, 8, 16, 32, 64]);
    let p = ConversionPlan::NoOp { registers: 2 };
    let e = simulate_with(&SimulatorConfig { banks: 48 }, &p, &src, &dst).unwrap_err();
    assert!(
        matches!(e, CodegenError::Invalid(ref m) if m.contains("48")),
        "{e}"
    );
}
