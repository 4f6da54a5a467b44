//! Warp programs of packed words (`layout_codegen::word_quotient`): an
//! 8/16-bit in-warp conversion whose register words are the same words on
//! both sides runs the 32-bit program of the words. The element layouts
//! here are built from a 32-bit pair by giving every word `32 / bits` new
//! low coordinate bits, so the quotient is known independently of the
//! library's; the chosen word program is proved by the word checker (a
//! run on real packed values), and a planted mistake fails it.

use hw_layouts::Encoding;
use layout_codegen::packed_shuffle::{check_word_program, WordInstr};
use layout_codegen::plan::ConversionPlan;
use layout_codegen::planner::{plan, Target};
use layout_codegen::shuffle::{check_warp_program, shuffle_plan, WarpInstr};
use layout_codegen::word_quotient::{lift_program, unlift, word_program, word_quotient};
use linear_layout::{DimName, LinearLayout};

mod common;

/// `l` (out dims `dim0`, `dim1`) with `k` new register bases in front,
/// each a bit of a new lowest out dim of size `2^k`: the element layout
/// whose words (`2^k` consecutive registers) are `l`'s elements.
fn widen(l: &LinearLayout, k: usize) -> LinearLayout {
    let outs = l.out_dims();
    let (a, b) = (outs[0].1, outs[1].1);
    let lift = |v: &Vec<u64>| vec![0, v[0], v[1]];
    let bases = l
        .all_bases()
        .into_iter()
        .map(|(d, bs)| {
            let mut out: Vec<Vec<u64>> = Vec::new();
            if d == DimName::REGISTER {
                out.extend((0..k).map(|i| vec![1 << i, 0, 0]));
            }
            out.extend(bs.iter().map(lift));
            (d, out)
        })
        .collect();
    LinearLayout::new(
        bases,
        vec![
            (DimName::dim(0), 1 << k),
            (DimName::dim(1), a),
            (DimName::dim(2), b),
        ],
        true,
    )
    .unwrap()
}

/// On random in-warp pairs widened to 8 and 16 bits: the library's
/// quotient converts like the original pair (the same 32-bit shuffle
/// program cost), the `word_program` candidate costs no more than the
/// original's `shuffle_program`, and where a word candidate is chosen its word
/// program passes the word checker and its element program the warp
/// checker.
#[test]
fn word_programs_of_widened_random_pairs() {
    let mut rng = common::Rng(0x3d0_c0de);
    let (mut compared, mut chosen) = (0, 0);
    for case in 0..200 {
        let (s, d) = common::random_pair(&mut rng);
        if s.in_dim_size(DimName::LANE) != 32 {
            continue;
        }
        let Ok(p32) = plan(&s, &d, 32, &Target::SM90) else {
            continue;
        };
        let base = p32
            .candidates
            .iter()
            .find(|c| c.name == "shuffle_program")
            .and_then(|c| c.cycles);
        for bits in [8u32, 16] {
            let k = (32 / bits).trailing_zeros() as usize;
            let (se, de) = (widen(&s, k), widen(&d, k));
            let (qs, qd) = word_quotient(&se, &de, bits).expect("widened words are one word");
            // The quotient converts as the original pair does.
            let (a, b) = (shuffle_plan(&qs, &qd, 32), shuffle_plan(&s, &d, 32));
            assert_eq!(
                a.as_ref().map(|p| p.cost).ok(),
                b.as_ref().map(|p| p.cost).ok(),
                "case {case}, {bits} bits"
            );
            let p = plan(&se, &de, bits, &Target::SM90).unwrap();
            let word = p
                .candidates
                .iter()
                .find(|c| c.name == "word_program")
                .and_then(|c| c.cycles);
            // Its word form is the 32-bit program (a select a `prmt`), or
            // the folded form of its lift where that has fewer permutes.
            if let (Some(w), Some(b)) = (word, base) {
                assert!(w <= b, "case {case}, {bits} bits: {w} > {b}");
                compared += 1;
            }
            if p.candidate.starts_with("word_") {
                chosen += 1;
                let Some(ConversionPlan::WarpProgram(prog)) = p.lowering.whole() else {
                    panic!("case {case}: a word candidate is a warp program");
                };
                check_warp_program(prog, &se, &de).unwrap();
                let w = p.words.as_ref().expect("a word candidate runs on words");
                check_word_program(w, &se, &de).unwrap();
            }
        }
    }
    assert!(compared > 100, "{compared} pairs compared");
    assert!(chosen > 0, "{chosen} word programs chosen");
}

/// `unlift` inverts `lift_program`, and a lifted program that is no longer
/// word-wise (one element select of a group with another predicate) has
/// no 32-bit form.
#[test]
fn unlift_inverts_lift() {
    let mut rng = common::Rng(0xfeed_5eed);
    let mut n = 0;
    for _ in 0..100 {
        let (s, d) = common::random_pair(&mut rng);
        let Ok(p) = shuffle_plan(&s, &d, 32) else {
            continue;
        };
        for bits in [8, 16] {
            let lifted = lift_program(&p.program, bits).unwrap();
            assert_eq!(unlift(&lifted).as_ref(), Some(&p.program));
            let mut broken = lifted.clone();
            let Some(WarpInstr::Select { cond, .. }) = broken
                .instrs
                .iter_mut()
                .find(|i| matches!(i, WarpInstr::Select { .. }))
            else {
                continue;
            };
            *cond = layout_codegen::shuffle::LanePredicate::Parity { mask: 0x1f };
            if lifted != broken {
                assert_eq!(unlift(&broken), None);
                n += 1;
            }
        }
    }
    assert!(n > 20, "{n}");
}

const BLK16: &str = "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>";
const DOT_A_K4: &str = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 4}>";

fn ll(attr: &str) -> LinearLayout {
    Encoding::parse(attr)
        .and_then(|e| e.to_linear_layout(&[64, 64]))
        .unwrap()
}

/// The suite's `fresh3_blk_to_dotA_k4_w41_64x64_f8`: a thread's 16 bytes of
/// a row (4 words) and the operand's `kWidth = 4` bytes (a word) are both 4
/// consecutive columns, so each word moves whole. Every lane holds 8 words
/// and keeps none of them (no lane of the source holds a word its own
/// destination registers take: lane bits move to register bits), so at
/// least 8 words arrive by `shfl.sync` per lane: the word program's 8
/// shuffles are that floor, and it costs less than the element programs and
/// the shared-memory plans (20 cycles). A word whose selector is flipped in
/// one lane fails the checker.
#[test]
fn fresh3_blk_to_dot_a_runs_on_words() {
    let (s, d) = (ll(BLK16), ll(DOT_A_K4));
    let p = plan(&s, &d, 8, &Target::SM90).unwrap();
    assert_eq!(p.candidate, "word_program");
    let others = p
        .candidates
        .iter()
        .filter(|c| !c.name.starts_with("word_"))
        .filter_map(|c| c.cycles)
        .fold(f64::INFINITY, f64::min);
    assert_eq!(others, 20.0);
    assert!(p.cycles < others);
    let w = p.words.clone().unwrap();
    assert_eq!(w.cost().shuffles, 8);
    check_word_program(&w, &s, &d).unwrap();
    let mut broken = w.clone();
    let sel = broken
        .instrs
        .iter_mut()
        .find_map(|i| match i {
            WordInstr::Permute { selector, .. } => Some(selector),
            _ => None,
        })
        .unwrap();
    sel[5] = if sel[5] == 0x3210 { 0x7654 } else { 0x3210 };
    assert!(check_word_program(&broken, &s, &d).is_err());
}

/// Where the words differ the quotient is refused: 32-bit elements; the
/// first register bases unequal (16 bytes a thread against `kWidth = 2`
/// operands' pairs); a lane basis on a word bit.
#[test]
fn different_words_have_no_quotient() {
    let (s, d) = (ll(BLK16), ll(DOT_A_K4));
    assert!(word_quotient(&s, &d, 32).is_none());
    let dot_k2 = ll("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 2}>");
    // kWidth = 2: register bases [0, 1] then [8, 0]; a word of 8-bit
    // elements would take 4 consecutive columns.
    assert!(word_quotient(&s, &dot_k2, 8).is_none());
    // 16-bit words (one register basis, [0, 1]) are the same.
    assert!(word_quotient(&s, &dot_k2, 16).is_some());
    // Register basis 0 is column bit 0, lane basis 0 columns 1 and 2 (bits
    // 0 and 1): a word's two halves sit in different lanes' views.
    let v = |r: u64, c: u64| vec![r, c];
    let lane_on_word = LinearLayout::new(
        vec![
            (
                DimName::REGISTER,
                vec![v(0, 1), v(0, 16), v(0, 32), v(16, 0), v(32, 0)],
            ),
            (
                DimName::LANE,
                vec![v(0, 3), v(0, 4), v(0, 8), v(1, 0), v(2, 0)],
            ),
            (DimName::WARP, vec![v(4, 0), v(8, 0)]),
        ],
        vec![(DimName::dim(0), 64), (DimName::dim(1), 64)],
        true,
    )
    .unwrap();
    assert!(word_quotient(&lane_on_word, &lane_on_word, 16).is_none());
}

/// The direct word form of a 32-bit program and the check of a word
/// program disagree when a select's operands are swapped.
#[test]
fn word_form_of_a_planted_mistake_fails_the_check() {
    let (s, d) = (ll(BLK16), ll(DOT_A_K4));
    let (qs, qd) = word_quotient(&s, &d, 8).unwrap();
    let p = shuffle_plan(&qs, &qd, 32).unwrap().program;
    check_word_program(&word_program(&p, 8).unwrap(), &s, &d).unwrap();
    let mut broken = p.clone();
    let i = broken
        .instrs
        .iter()
        .position(|i| matches!(i, WarpInstr::Select { .. }))
        .unwrap();
    if let WarpInstr::Select {
        if_true, if_false, ..
    } = &mut broken.instrs[i]
    {
        std::mem::swap(if_true, if_false);
    }
    assert!(check_word_program(&word_program(&broken, 8).unwrap(), &s, &d).is_err());
}
