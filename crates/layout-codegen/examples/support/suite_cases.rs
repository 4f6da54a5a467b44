//! The conversion cases of the GPU suite (copied from
//! crates/layout-cuda/src/bin/gpu_suite.rs, `cases()`; the `_smem`
//! variants, the same conversions forced through shared memory there, are
//! left out). Shared by the `triton_vs_ours` example and the `choice_*`
//! tests through `#[path]`.

use hw_layouts::Encoding;
use linear_layout::{DimName, LinearLayout};

const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const BLK_COL: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";
const BLK_ROW8: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>";
const BLK_COL8: &str = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>";
const BLK_WIDE: &str = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>";
const BLK_TALL: &str = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>";
const BLK_LANE_SWAP: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
const DOT_A: &str = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";
const DOT_B: &str = "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";
const WGMMA: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>";
const WGMMA8: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>";

/// (name, tile shape, element bits, source attribute, destination attribute
/// or one of the pseudo-destinations SWAP1, SWAP2, REGPERM).
const CASES: [(&str, [u64; 2], u32, &str, &str); 21] = [
    ("blocked_T_64x64_f16", [64, 64], 16, BLK_ROW, BLK_COL),
    ("blocked_T_128x128_f32", [128, 128], 32, BLK_ROW, BLK_COL),
    ("blocked_T_128x128_f8", [128, 128], 8, BLK_ROW, BLK_COL),
    (
        "blocked_T_128x256_f16_w8",
        [128, 256],
        16,
        BLK_ROW8,
        BLK_COL8,
    ),
    ("wide_to_tall_64x64_f32", [64, 64], 32, BLK_WIDE, BLK_TALL),
    (
        "lane_permute_64x64_f16",
        [64, 64],
        16,
        BLK_ROW,
        BLK_LANE_SWAP,
    ),
    ("blocked_to_mma2_128x128_f16", [128, 128], 16, BLK_ROW, MMA2),
    ("blocked_to_mma2_128x128_f32", [128, 128], 32, BLK_ROW, MMA2),
    ("mma2_to_dotA_64x64_f16", [64, 64], 16, MMA2, DOT_A),
    ("mma2_to_dotB_64x64_f16", [64, 64], 16, MMA2, DOT_B),
    (
        "wgmma_to_blocked_128x128_f32",
        [128, 128],
        32,
        WGMMA,
        BLK_ROW,
    ),
    (
        "wgmma_to_blocked_128x128_f16",
        [128, 128],
        16,
        WGMMA,
        BLK_ROW,
    ),
    (
        "wgmma_to_blocked_128x256_bf16_w8",
        [128, 256],
        16,
        WGMMA8,
        BLK_ROW8,
    ),
    (
        "blocked_to_wgmma_128x128_f16",
        [128, 128],
        16,
        BLK_ROW,
        WGMMA,
    ),
    ("blocked_to_wgmma_128x128_f8", [128, 128], 8, BLK_ROW, WGMMA),
    ("mma2_to_blocked_128x128_f32", [128, 128], 32, MMA2, BLK_COL),
    ("register_perm_64x64_f16", [64, 64], 16, BLK_ROW, "REGPERM"),
    ("swap1_64x64_f16", [64, 64], 16, BLK_ROW, "SWAP1"),
    ("swap1_64x64_f32", [64, 64], 32, BLK_ROW, "SWAP1"),
    ("swap1_128x128_f8", [128, 128], 8, BLK_ROW, "SWAP1"),
    ("swap2_64x64_f32", [64, 64], 32, BLK_ROW, "SWAP2"),
];

/// One conversion case.
pub struct SuiteCase {
    pub name: &'static str,
    pub bits: u32,
    pub src: LinearLayout,
    pub dst: LinearLayout,
}

/// The cases, layouts built (panics name the case: these are fixed inputs).
pub fn suite_cases() -> Vec<SuiteCase> {
    CASES
        .iter()
        .map(|&(name, shape, bits, src_t, dst_t)| {
            let src = Encoding::parse(src_t)
                .and_then(|e| e.to_linear_layout(&shape))
                .unwrap_or_else(|e| panic!("{name}: source: {e}"));
            let swaps = match dst_t {
                "SWAP1" => 1,
                "SWAP2" => 2,
                _ => 0,
            };
            let dst = if swaps > 0 {
                // Swap register basis k with lane basis k for k < swaps.
                let mut bases = src.all_bases();
                for k in 0..swaps {
                    let r = bases[0].1[k].clone();
                    bases[0].1[k] = bases[1].1[k].clone();
                    bases[1].1[k] = r;
                }
                LinearLayout::new(bases, src.out_dims(), true).expect("swapped")
            } else if dst_t == "REGPERM" {
                // Same thread owns the same elements; registers reversed.
                let mut rev = src.bases(DimName::REGISTER);
                rev.reverse();
                let mut bases = src.all_bases();
                bases[0].1 = rev;
                LinearLayout::new(bases, src.out_dims(), true).expect("permuted")
            } else {
                Encoding::parse(dst_t)
                    .and_then(|e| e.to_linear_layout(&shape))
                    .unwrap_or_else(|e| panic!("{name}: destination: {e}"))
            };
            SuiteCase {
                name,
                bits,
                src,
                dst,
            }
        })
        .collect()
}
