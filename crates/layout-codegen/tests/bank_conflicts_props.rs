//! Random register layouts against random shared layouts: the exact formula
//! equals the brute-force wavefront count, and Triton's formula never counts
//! more than the hardware (and counts the same when no lane offset mixes
//! sub-word bits with others).

mod common;
use common::{mix_bits, random_distributed, random_shape, Rng};
use layout_codegen::bank_conflicts::{
    bank_conflicts, brute_force_bank_conflicts, exact_bank_conflicts,
};
use linear_layout::{DimName, LinearLayout};

/// A random shared layout: offset bits are a random permutation of the
/// tensor's unit bits, optionally mixed (an XOR swizzle).
fn random_shared(rng: &mut Rng, shape: &[u64], mix: usize) -> LinearLayout {
    // A distributed layout with everything in registers is an offset map.
    let all_regs = random_distributed(rng, shape, 0, 0, 0);
    let all_regs = if mix > 0 {
        mix_bits(rng, &all_regs, mix)
    } else {
        all_regs
    };
    LinearLayout::new(
        vec![
            (DimName::OFFSET, all_regs.bases(DimName::REGISTER)),
            (DimName::BLOCK, vec![]),
        ],
        all_regs.out_dims(),
        true,
    )
    .unwrap()
}

#[test]
fn exact_formula_equals_brute_force() {
    let mut rng = Rng(0xba4c_0f1c_7000_0001);
    let (mut equal_triton, mut n) = (0, 0);
    for case in 0..400 {
        let bits = 7 + rng.below(5) as u32; // 128 .. 2048 elements
        let rank = 1 + rng.below(3) as usize;
        let shape = random_shape(&mut rng, bits, rank);
        let bw = [8u32, 16, 32, 64][rng.below(4) as usize];
        let warps = rng.below(3) as usize;
        let zeros = rng.below(3) as usize;
        let reg = random_distributed(&mut rng, &shape, 5, warps, zeros);
        let reg = if case % 3 == 0 {
            mix_bits(&mut rng, &reg, 3)
        } else {
            reg
        };
        let smem = random_shared(&mut rng, &shape, (case % 2) * 3);
        let ctx = format!("case {case}: shape {shape:?} bw {bw}\nreg {reg}\nsmem {smem}");
        let brute =
            brute_force_bank_conflicts(&reg, &smem, bw).unwrap_or_else(|e| panic!("{ctx}\n{e}"));
        assert_eq!(brute.max_conflicts, brute.min_conflicts, "{ctx}");
        let exact = exact_bank_conflicts(&reg, &smem, bw).unwrap();
        assert_eq!(exact, brute.max_conflicts, "{ctx}");
        // Triton's formula (when Triton accepts the sizes).
        if let Ok(t) = bank_conflicts(&reg, &smem, bw) {
            assert!(t <= exact, "{ctx}\nTriton {t} > hardware {exact}");
            equal_triton += (t == exact) as usize;
            n += 1;
        }
    }
    println!("exact = brute force on 400 cases; Triton's count equal on {equal_triton}/{n}");
    assert!(n > 300);
}
