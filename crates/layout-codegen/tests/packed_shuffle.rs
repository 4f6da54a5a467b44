//! Word form of warp programs for 8/16-bit elements: every rewritten
//! program runs on real 32-bit words with a byte-permute model written
//! from the PTX definition (`check_word_program`), independently of the
//! element-level program it came from.

use layout_codegen::packed_shuffle::{byte_perm, check_word_program, WordInstr, WordProgram};
use layout_codegen::shuffle::{
    check_warp_program, shuffle_plan, triton_shuffle_plan, ShuffleStrategy,
};
use linear_layout::{DimName, LinearLayout};

mod common;
use common::{random_pair, Rng};

const REG: DimName = DimName::REGISTER;
const LANE: DimName = DimName::LANE;

/// `regs` registers -> elements `0..regs`, 32 lanes above them, and the
/// same layout with register bit `k` and lane bit `k` exchanged, `k < swaps`.
fn swap_pair(regs: u64, swaps: usize) -> (LinearLayout, LinearLayout) {
    let d0 = DimName::dim(0);
    let id = LinearLayout::identity_1d;
    let src = id(regs, REG, d0) * id(32, LANE, d0);
    let mut bases = src.all_bases();
    for k in 0..swaps {
        let r = bases[0].1[k].clone();
        bases[0].1[k] = bases[1].1[k].clone();
        bases[1].1[k] = r;
    }
    let dst = LinearLayout::new(bases, src.out_dims(), true).unwrap();
    (src, dst)
}

#[test]
fn byte_perm_follows_the_ptx_definition() {
    let (x, y) = (0x3322_1100u32, 0x7766_5544u32);
    // Identity on x, identity on y, reversed, and a mix.
    assert_eq!(byte_perm(x, y, 0x3210), x);
    assert_eq!(byte_perm(x, y, 0x7654), y);
    assert_eq!(byte_perm(x, y, 0x0123), 0x0011_2233);
    assert_eq!(byte_perm(x, y, 0x5410), 0x5544_1100);
    assert_eq!(byte_perm(x, y, 0x7632), 0x7766_3322);
}

/// Register bit 0 and lane bit 0 swapped on 16-bit elements (the suite's
/// `swap1` case in miniature): one permute builds the word to send, one
/// shuffle per two words, one permute per output word.
#[test]
fn register_lane_swap_of_pairs_costs_two_instructions_per_word() {
    // 4 registers -> elements 0..4, 32 lanes -> elements 4..128.
    let (src, dst) = swap_pair(4, 1);
    let plan = shuffle_plan(&src, &dst, 16).unwrap();
    check_warp_program(&plan.program, &src, &dst).unwrap();
    let w = WordProgram::from_program(&plan.program).expect("a word form");
    check_word_program(&w, &src, &dst).unwrap();
    assert_eq!((w.num_inputs, w.outputs.len()), (2, 2));
    let c = w.cost();
    assert_eq!((c.shuffles, c.permutes), (1, 3), "{w:?}");
    // The element program needs more (it packs and selects).
    let e = plan.cost;
    assert!(e.shuffles + e.selects + e.prmt > 4, "{e:?}");
    // The permutes depend on lane bit 0 only.
    for ins in &w.instrs {
        if let WordInstr::Permute { selector, .. } = ins {
            for l in 0..32 {
                assert_eq!(selector[l], selector[l & 1]);
            }
            assert_ne!(selector[0], selector[1]);
        }
    }
}

#[test]
fn random_pairs_rewrite_to_words_that_convert() {
    let mut rng = Rng(0x005e_ed0f_f00d);
    let (mut rewritten, mut tried, mut ship, mut cheaper) = (0, 0, 0, 0);
    for n in 0..900 {
        let (s, d) = random_pair(&mut rng);
        let bw = [8, 16][n % 2];
        let e = 32 / bw as u64;
        if s.in_dim_size(REG) % e != 0 || d.in_dim_size(REG) % e != 0 {
            continue;
        }
        tried += 1;
        let plan = triton_shuffle_plan(&s, &d, bw).unwrap();
        let w = WordProgram::from_program(&plan.program)
            .unwrap_or_else(|| panic!("pair {n} ({bw} bit): no word form\nsrc {s}\ndst {d}"));
        check_word_program(&w, &s, &d)
            .unwrap_or_else(|err| panic!("pair {n} ({bw} bit): {err}\nsrc {s}\ndst {d}"));
        // 16-bit Ship (one register↔lane transposition, the prmt case of
        // Triton's lowering) never costs more permutes than the element program's
        // selects and packs; Swap programs with lane-dependent gathers from
        // many words may (the emitter then keeps the element program).
        let (c, p) = (w.cost(), plan.cost);
        assert_eq!(c.shuffles, p.shuffles, "pair {n}");
        if plan.strategy == ShuffleStrategy::Ship && bw == 16 {
            assert!(c.permutes <= p.selects + p.prmt, "pair {n}: {c:?} vs {p:?}");
            ship += 1;
        }
        cheaper += usize::from(c.permutes <= p.selects + p.prmt);
        rewritten += 1;
    }
    assert!(
        ship > 25 && cheaper * 10 >= rewritten * 6,
        "{ship} {cheaper}/{rewritten}"
    );
    assert!(tried > 300, "{rewritten}/{tried}");
}

/// The checker is not vacuous: a selector with two nibbles exchanged, or a
/// shuffle reading the wrong lane, is caught.
#[test]
fn the_word_checker_catches_broken_programs() {
    let (src, dst) = swap_pair(4, 1);
    let plan = shuffle_plan(&src, &dst, 16).unwrap();
    let w = WordProgram::from_program(&plan.program).unwrap();
    let mut bad = w.clone();
    for ins in bad.instrs.iter_mut() {
        if let WordInstr::Permute { selector, .. } = ins {
            selector[5] = (selector[5] >> 16) | ((selector[5] & 0xff) << 8) | 0x10;
            break;
        }
    }
    assert!(check_word_program(&bad, &src, &dst).is_err());
    let mut bad = w.clone();
    for ins in bad.instrs.iter_mut() {
        if let WordInstr::Shuffle { mode, .. } = ins {
            *mode = layout_codegen::shuffle::ShflMode::Xor { mask: 2 };
        }
    }
    assert!(check_word_program(&bad, &src, &dst).is_err());
}

/// 8-bit elements: four per word; numbering needs several byte digits
/// (more than 256 distinct elements per warp), all checked.
#[test]
fn eight_bit_words_with_many_elements() {
    let (src, dst) = swap_pair(16, 2);
    let plan = shuffle_plan(&src, &dst, 8).unwrap();
    check_warp_program(&plan.program, &src, &dst).unwrap();
    let w = WordProgram::from_program(&plan.program).expect("a word form");
    check_word_program(&w, &src, &dst).unwrap();
}
