//! Property tests: random pairs of random distributed layouts are planned and
//! every plan is proved by the simulator; simulated conflicts equal the
//! analytic count. 4 batches × 300 pairs of permutation-type layouts (single-bit or zero
//! bases), 300 pairs with mixed bases and 200 pairs over 4 CTAs = 1700
//! pairs.

mod common;
use common::{mix_bits, random_distributed, random_shape, with_blocks, Rng};
use layout_codegen::bank_conflicts::{bank_conflicts, exact_bank_conflicts};
use layout_codegen::choice::plan_conversion;
use layout_codegen::conversion::{classify, ConversionKind};
use layout_codegen::plan::ConversionPlan;
use layout_codegen::shared_conversion::plan_via_shared_memory;
use layout_codegen::shuffle::WarpInstr;
use layout_codegen::simulator::simulate;
use layout_codegen::CodegenError;
use linear_layout::{DimName, LinearLayout};

fn batch(seed: u64, n: usize) {
    batch_with(seed, n, 0, 0)
}

fn batch_with(seed: u64, n: usize, mix_ops: usize, blocks: u32) {
    let mut rng = Rng(seed);
    let mut kinds = std::collections::BTreeMap::new();
    let mut triton_checked = 0;
    let mut rounds_plans = 0;
    let mut program_plans = 0;
    for case in 0..n {
        let bits = 5 + rng.below(6) as u32; // 32 .. 1024 elements
        let rank = 1 + rng.below(3) as usize;
        let shape = random_shape(&mut rng, bits, rank);
        let bw = [8u32, 16, 32, 64][rng.below(4) as usize];
        let warps = rng.below(3) as usize;
        let zeros_s = rng.below(3) as usize;
        let zeros_d = rng.below(3) as usize;
        // Lanes fixed at 5 bits (32 threads); broadcast fills missing bits.
        let extra = (5 + warps).saturating_sub(bits as usize);
        let src = random_distributed(&mut rng, &shape, 5, warps, zeros_s + extra);
        let dst = random_distributed(&mut rng, &shape, 5, warps, zeros_d + extra);
        // Mixed bases (non-permutation layouts): each side gets its own
        // invertible change of tensor bits, so bases mix dims and bits.
        let (src, dst) = if mix_ops > 0 {
            (
                mix_bits(&mut rng, &src, mix_ops),
                mix_bits(&mut rng, &dst, mix_ops),
            )
        } else {
            (src, dst)
        };
        // CTAs: the same block bases on both sides (a block-local conversion).
        let (src, mut dst) = if blocks > 0 {
            let bc = rng.below(1 << blocks) as u32 & rng.below(1 << blocks) as u32;
            (with_blocks(&src, blocks, bc), with_blocks(&dst, blocks, bc))
        } else {
            (src, dst)
        };
        // Bias towards cheap classes now and then: dst = src with a few swaps.
        if rng.below(4) == 0 {
            dst = src.clone();
            let mut regs = dst.bases(DimName::REGISTER);
            let n = regs.len();
            if n > 1 {
                regs.swap(0, n - 1);
            }
            dst = LinearLayout::new(
                vec![
                    (DimName::REGISTER, regs),
                    (DimName::LANE, dst.bases(DimName::LANE)),
                    (DimName::WARP, dst.bases(DimName::WARP)),
                    (DimName::BLOCK, dst.bases(DimName::BLOCK)),
                ],
                dst.out_dims(),
                true,
            )
            .unwrap();
        }
        let ctx =
            format!("seed {seed:#x} case {case}: shape {shape:?} bw {bw}\nsrc {src}\ndst {dst}");
        let plan = plan_conversion(&src, &dst, bw).unwrap_or_else(|e| panic!("{ctx}\n{e}"));
        *kinds.entry(plan.kind_name()).or_insert(0) += 1;
        let rep = simulate(&plan, &src, &dst).unwrap_or_else(|e| panic!("{ctx}\n{e}"));
        assert_eq!(
            rep.registers_checked,
            32 * (1 << warps) * (1 << blocks) * dst.in_dim_size(DimName::REGISTER),
            "{ctx}"
        );
        if let ConversionPlan::WarpShuffle { .. } = &plan {
            // Triton's shuffle class has at most one register-lane
            // transposition: at most 2 shuffles per destination register,
            // and exactly one (the paper's rounds) without broadcast.
            let nreg = dst.in_dim_size(DimName::REGISTER);
            assert!(rep.shuffles <= 2 * nreg, "{ctx}");
            let no_zeros = |l: &LinearLayout| {
                [DimName::REGISTER, DimName::LANE]
                    .iter()
                    .all(|&d| l.packed_bases(d).iter().all(|&c| c != 0))
            };
            if no_zeros(&src) && no_zeros(&dst) {
                assert_eq!(rep.shuffles + rep.register_moves, nreg, "{ctx}");
                rounds_plans += 1;
            }
        }
        if let ConversionPlan::WarpProgram(prog) = &plan {
            // A warp program: the simulator's counts are bounded by the
            // program's own instructions (a shuffle from a lane's own
            // value counts as a move), and Triton's shuffle class needs at
            // most 2 shuffles per destination register.
            let count =
                |f: fn(&WarpInstr) -> bool| prog.instrs.iter().filter(|i| f(i)).count() as u64;
            let n_shfl = count(|i| matches!(i, WarpInstr::Shuffle { .. }));
            let n_sel = count(|i| matches!(i, WarpInstr::Select { .. }));
            assert!(rep.shuffles <= n_shfl && rep.selects <= n_sel, "{ctx}");
            assert!(
                rep.shuffles <= 2 * dst.in_dim_size(DimName::REGISTER),
                "{ctx}"
            );
            program_plans += 1;
        }
        if let ConversionPlan::SharedMemory(p) = &plan {
            // Linear plans: every phase costs the same.
            assert_eq!(rep.max_store_conflicts, rep.min_store_conflicts, "{ctx}");
            assert_eq!(rep.max_load_conflicts, rep.min_load_conflicts, "{ctx}");
            assert_eq!(rep.max_store_conflicts, p.store_conflicts, "{ctx}\nstores");
            assert_eq!(rep.max_load_conflicts, p.load_conflicts, "{ctx}\nloads");
            // One round: the scratch layout is a shared layout of the whole
            // tensor, and Triton's bankConflictsMemDesc applies to both sides.
            // One round: the scratch layout is a shared layout of the whole
            // tensor, and Triton's bankConflictsMemDesc applies to both
            // sides (it refuses allocations smaller than one bank row of
            // vectors, and may see less than the hardware for sub-word lanes).
            if p.rounds.len() == 1 {
                let smem = &p.shared_layout;
                if let (Ok(w), Ok(r)) = (
                    exact_bank_conflicts(&src, smem, bw),
                    exact_bank_conflicts(&dst, smem, bw),
                ) {
                    assert_eq!(w, p.store_conflicts, "{ctx}\nexact store");
                    assert_eq!(r, p.load_conflicts, "{ctx}\nexact load");
                    triton_checked += 1;
                    if let (Ok(tw), Ok(tr)) = (
                        bank_conflicts(&src, smem, bw),
                        bank_conflicts(&dst, smem, bw),
                    ) {
                        assert!(
                            tw <= w && tr <= r,
                            "{ctx}\nTriton counts more than hardware"
                        );
                    }
                }
            }
        }
        let kind = classify(&src, &dst).unwrap();
        assert_ne!(kind, ConversionKind::CrossCta);
        assert_eq!(kind.short_name(), plan.kind_name(), "{ctx}");
        // Every class also converts correctly through shared memory.
        if !matches!(plan, ConversionPlan::SharedMemory(_)) {
            let p = plan_via_shared_memory(&src, &dst, bw).unwrap_or_else(|e| panic!("{ctx}\n{e}"));
            let p = ConversionPlan::SharedMemory(Box::new(p));
            simulate(&p, &src, &dst).unwrap_or_else(|e| panic!("{ctx}\nvia shared: {e}"));
        }
    }
    println!(
        "seed {seed:#x}: {n} pairs proved, classes {kinds:?}, {triton_checked} cross-checked \
         with exact_bank_conflicts, {rounds_plans} one-shuffle-per-register plans, {program_plans} warp programs"
    );
}

#[test]
fn random_pairs_batch_1() {
    batch(0x1111_2222_3333_4444, 300);
}
#[test]
fn random_pairs_batch_2() {
    batch(0x5555_6666_7777_8888, 300);
}
#[test]
fn random_pairs_batch_3() {
    batch(0x9999_aaaa_bbbb_cccc, 300);
}
#[test]
fn random_pairs_batch_4() {
    batch(0xdddd_eeee_ffff_0001, 300);
}

#[test]
fn random_mixed_pairs_batch() {
    batch_with(0x0bad_cafe_f00d_0001, 300, 4, 0);
}

#[test]
fn random_multi_cta_pairs_batch() {
    batch_with(0x0c7a_0c7a_0c7a_0001, 200, 0, 2);
}

/// The large run (10 000 more pairs: single-bit, mixed-basis and 4-CTA
/// layouts), behind `--ignored` to keep CI short:
/// `cargo test --release -p layout-codegen --test simulator_props -- --ignored`.
#[test]
#[ignore]
fn random_pairs_large_run() {
    for k in 0..20u64 {
        batch(0x1234_5678_0000_0000 ^ k, 300);
        batch_with(0x8765_4321_0000_0000 ^ k, 100, 4, 0);
        batch_with(0x0f0f_0f0f_0000_0000 ^ k, 100, 0, 2);
    }
}

/// A broken plan is caught, and the error names the first wrong register.
#[test]
fn a_wrong_plan_fails_naming_the_register() {
    let mut rng = Rng(42);
    let shape = vec![32, 32];
    loop {
        let src = random_distributed(&mut rng, &shape, 5, 1, 0);
        let dst = random_distributed(&mut rng, &shape, 5, 1, 0);
        let mut plan = plan_conversion(&src, &dst, 16).unwrap();
        let ConversionPlan::SharedMemory(p) = &mut plan else {
            continue;
        };
        // Swap the first two registers of the first load.
        let loads = &mut p.rounds[0].loads;
        if loads[0].registers.len() < 2 {
            if loads.len() < 2 {
                continue;
            }
            let (a, b) = (loads[0].registers[0], loads[1].registers[0]);
            loads[0].registers[0] = b;
            loads[1].registers[0] = a;
        } else {
            loads[0].registers.swap(0, 1);
        }
        match simulate(&plan, &src, &dst) {
            Err(CodegenError::WrongElement { register, .. }) => {
                assert!(register < dst.in_dim_size(DimName::REGISTER));
                return;
            }
            other => panic!("expected a wrong element, got {other:?}"),
        }
    }
}

/// Cross-CTA conversions are refused explicitly.
#[test]
fn cross_cta_is_unsupported() {
    let d0 = DimName::dim(0);
    let mk = |lane: u64, block: u64| {
        LinearLayout::new(
            vec![
                (DimName::REGISTER, vec![]),
                (DimName::LANE, vec![vec![lane]]),
                (DimName::WARP, vec![]),
                (DimName::BLOCK, vec![vec![block]]),
            ],
            vec![(d0, 4)],
            true,
        )
        .unwrap()
    };
    let err = plan_conversion(&mk(1, 2), &mk(2, 1), 32).unwrap_err();
    assert!(matches!(err, CodegenError::Unsupported(_)), "{err}");
}
