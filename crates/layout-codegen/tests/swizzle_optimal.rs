//! The swizzled layout of `optimal_swizzling` against an exhaustive search
//! over every possible segment space (≤ 10 offset bits), and against the
//! paper's lower bound (Lemma 9.5).

mod common;
use common::{mix_bits, random_distributed, random_shape, Rng};
use layout_codegen::bank_conflicts::span_intersection_dim;
use layout_codegen::swizzle::{exhaustive_min_conflicts, optimal_swizzling, paper_conflicts_log2};

#[test]
fn swizzle_is_optimal_against_exhaustive_search() {
    check(0x5eed_1234_abcd_0001, 0);
}

/// The same with mixed bases (each basis a combination of tensor bits).
#[test]
fn swizzle_is_optimal_for_mixed_bases() {
    check(0x5eed_1234_abcd_0002, 3);
}

fn check(seed: u64, mix_ops: usize) {
    let mut rng = Rng(seed);
    let mut checked = 0;
    let mut with_conflicts = 0;
    let cases = if mix_ops == 0 { 60 } else { 30 };
    for case in 0..cases {
        // 7..=10 offset bits (7..=8 with mixed bases: their vectors are
        // shorter, so the segment search space is larger).
        let bits = 7 + (case % if mix_ops == 0 { 4 } else { 2 }) as u32;
        let rank = 1 + (case % 3);
        let shape = random_shape(&mut rng, bits, rank);
        let bw = [8u32, 16, 32][case % 3];
        let warps = rng.below(3) as usize;
        let mut src = random_distributed(&mut rng, &shape, 5, warps, 0);
        let mut dst = random_distributed(&mut rng, &shape, 5, warps, 0);
        if mix_ops > 0 {
            src = mix_bits(&mut rng, &src, mix_ops);
            dst = mix_bits(&mut rng, &dst, mix_ops);
        }
        let r = optimal_swizzling(&src, &dst, bw).unwrap();
        let v = &r.vector_bases;
        let seg = &r.row_bases;
        let w = paper_conflicts_log2(v, seg, &r.tile_src);
        let rd = paper_conflicts_log2(v, seg, &r.tile_dst);
        let (best_max, best_sum) =
            exhaustive_min_conflicts(v, &r.tile_src, &r.tile_dst, bits, seg.len());
        assert_eq!(
            w.max(rd),
            best_max,
            "case {case}: worse side not minimal {r:?}"
        );
        assert_eq!(w + rd, best_sum, "case {case}: total not minimal");
        assert_eq!(
            r.lower_bound_log2, best_max,
            "case {case}: lower bound {r:?}"
        );
        // Triton's measure (segment ∩ tile) equals the paper's for
        // single-bit bases (with mixed bases it can see fewer).
        if mix_ops == 0 {
            assert_eq!(r.write_conflicts, (1 << w) - 1, "case {case}");
            assert_eq!(r.read_conflicts, (1 << rd) - 1, "case {case}");
        }
        // The layout is a bijection offset -> tensor.
        assert!(r.shared.is_invertible());
        assert_eq!(span_intersection_dim(v, seg), 0);
        checked += 1;
        with_conflicts += (best_max > 0) as usize;
    }
    println!("swizzle: {checked} cases optimal ({with_conflicts} with unavoidable conflicts)");
    assert!(
        with_conflicts > 0,
        "the sample should include unavoidable conflicts"
    );
}
