//! Triton caps shared-memory vectors at 128 bits: `getVbasis` truncates the
//! common registers to log2(128 / bitwidth) bases, and every
//! `ld/st.shared` is at most 128 bits wide (`largestVectorisation`'s cap;
//! the newer `getVecBasisLdSt` never extends `V` past a 32-bit word
//! beyond that intersection). Before the cap, the older
//! `intersectAfterBank0` extension could push `V` to 512 bits here.

use layout_codegen::choice::plan_conversion;
use layout_codegen::plan::ConversionPlan;
use layout_codegen::simulator::simulate;
use layout_codegen::swizzle::optimal_swizzling;
use linear_layout::{DimName, LinearLayout};

/// 1-D tensor of 2048 8-bit elements, one warp.
fn layout(regs: &[u64], lanes: &[u64]) -> LinearLayout {
    LinearLayout::new(
        vec![
            (DimName::REGISTER, regs.iter().map(|&r| vec![r]).collect()),
            (DimName::LANE, lanes.iter().map(|&l| vec![l]).collect()),
            (DimName::WARP, vec![]),
            (DimName::BLOCK, vec![]),
        ],
        vec![(DimName::dim(0), 2048)],
        true,
    )
    .unwrap()
}

#[test]
fn eight_bit_vectors_stop_at_128_bits() {
    // src: 64 contiguous registers. dst: 16 contiguous registers, then
    // elements 16 and 32 in lanes 0 and 1. By hand: the common registers
    // are {1, 2, 4, 8} (16 elements = 128 bits, already the cap), and
    // {16, 32} are src registers in dst lanes, which the old extension
    // appended (64 elements = 512 bits).
    let src = layout(&[1, 2, 4, 8, 16, 32], &[64, 128, 256, 512, 1024]);
    let dst = layout(&[1, 2, 4, 8, 64, 128], &[16, 32, 256, 512, 1024]);
    let sw = optimal_swizzling(&src, &dst, 8).unwrap();
    assert_eq!(sw.vector_bases, vec![1, 2, 4, 8]);
    assert_eq!(sw.vector_elems * 8, 128);
    let plan = plan_conversion(&src, &dst, 8).unwrap();
    let ConversionPlan::SharedMemory(p) = &plan else {
        panic!("expected a shared-memory plan, got {}", plan.kind_name());
    };
    assert!(p.store_vec * 8 <= 128 && p.load_vec * 8 <= 128);
    simulate(&plan, &src, &dst).unwrap();
}

#[test]
fn no_swizzle_vector_exceeds_128_bits_for_wide_registers() {
    // Both sides with ≥ 32 contiguous registers, at every bit width:
    // 2^|V| · bitwidth ≤ 128.
    for bits in [8u32, 16, 32, 64] {
        let src = layout(&[1, 2, 4, 8, 16, 32], &[64, 128, 256, 512, 1024]);
        let dst = layout(&[1, 2, 4, 8, 16, 64], &[32, 128, 256, 512, 1024]);
        let sw = optimal_swizzling(&src, &dst, bits).unwrap();
        assert!(
            sw.vector_elems * bits as u64 <= 128,
            "{bits} bits: vector of {} elements",
            sw.vector_elems
        );
    }
}
