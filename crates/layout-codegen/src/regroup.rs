//! The in-warp *regroup* of sub-word elements: a byte (or half-word)
//! transpose among groups of lanes that makes each 32-bit register word
//! hold the elements another layout wants in one word.
//!
//! # Why
//! With `b`-bit elements (`b` = 8 or 16) a 32-bit register word holds
//! `e = 2^k = 32 / b` elements: register bits `0..k` of a layout are its
//! *word bits*. When the word bits of the source `S` and of the
//! destination `D` point along different tensor directions, a plan through
//! shared memory cannot move whole words on both sides: one side moves
//! single elements, one wavefront per 32 bytes. When `D`'s word bits are
//! lane bits of `S` (the words `D` wants are spread over `e` lanes of one
//! warp, one element per lane), those lanes can first exchange elements so
//! that every word holds a word of `D`, and the rest of the conversion
//! moves whole words.
//!
//! # The map
//! Let `a_0, …, a_{k−1}` be the lane bits of `S` with `S(lane = 2^{a_i}) =
//! D(register = 2^i)`. The intermediate layout `I` is `S` with register
//! bit `i` and lane bit `a_i` exchanged (`i < k`): its word bits are `D`'s.
//! Write a lane `l` as its *group index* `g(l)` (bit `i` is bit `a_i` of
//! `l`) and the rest; a word `u` of a thread (register bits `≥ k`) and a
//! position `j` in it (register bits `< k`). Then
//!
//! ```text
//! I(lane with group g', word u, position j') = S(lane with group j', word u, position g')
//! ```
//!
//! (the other lane bits equal): inside each group of `e` lanes and for each
//! word index `u`, the `e × e` matrix (lane, position) is transposed.
//!
//! # The program ([`regroup_program`])
//! Per group of `e` consecutive words `A[0..e]` of a thread (`A[u][j]`:
//! element `j` of word `u`) in lane `l` with group index `g`:
//! 1. **Pack** (`k·e` `prmt`): `T[w][p] = A[p][w ⊕ g]`: word `w` collects
//!    the element every word sends to the lane of group `g ⊕ w`.
//! 2. **Exchange** (`e − 1` `shfl.sync.bfly`): for `m = 1 .. e−1`, `R[m] =
//!    T[m]` of lane `l ⊕ M(m)`, `M(m) = ⨁_{i: bit i of m} 2^{a_i}` (the lane
//!    of group `g ⊕ m`); `R[0] = T[0]`. So `R[m][u] = A_{g⊕m}[u][g]`.
//! 3. **Unpack** (`k·e` `prmt`): `O[u][j'] = R[j' ⊕ g][u]` = element `g` of
//!    word `u` of the lane of group `j'`: `I`'s word `u`.
//!
//! Steps 1 and 3 are each a transpose of an `e × e` element matrix with
//! the lane's group index XORed into one index; each runs as `k` layers
//! (one per bit `i`) of `e` two-input `prmt`s: layer `i` maps element
//! `(w, p)` to `(w with bit i := p_i ⊕ x_i, p with bit i := w_i ⊕ y_i)`,
//! with `(x, y) = (g, 0)` in step 1 and `(0, g)` in step 3; new word `W`
//! takes its elements from the two old words that differ from `W` in bit
//! `i` only, so one `prmt` with a lane-dependent selector builds it.
//!
//! Every element sent leaves its lane once, 4 bytes per shuffle: `e − 1`
//! shuffles per `e` words is what any exchange of these elements by 32-bit
//! shuffles needs. Per word the program costs `(e−1)/e` shuffles and `2k`
//! permutes: 8-bit, 16 words: 12 shuffles and 64 `prmt`.
//!
//! The symmetric use, regrouping *after* the rest of the conversion
//! (`D` with its register bits `< k` and the lane bits of `D` holding
//! `S`'s word bits exchanged, then this program to `D`), is the same
//! program: the exchange is an involution.

use crate::error::{CodegenError, Result};
use crate::packed_shuffle::{WordInstr, WordProgram, WordVar};
use crate::plan::{Regroup, RegroupAt};
use crate::shuffle::ShflMode;
use linear_layout::{DimName, LinearLayout};

/// The lane bits `a_i` of `from` holding the word bits of `to` (`from(lane
/// = 2^{a_i}) = to(register = 2^i)`, `i < k`, `2^k = 32 / bits`), when
/// every word bit of `to` is a lane bit of `from` and `from` has a whole
/// number of groups of `2^k` words per thread.
///
/// Errors ([`CodegenError::Unsupported`]) name the reason the regroup does
/// not apply.
pub fn word_lane_bits(from: &LinearLayout, to: &LinearLayout, bits: u32) -> Result<Vec<u32>> {
    let k = match bits {
        8 => 2,
        16 => 1,
        _ => {
            return Err(CodegenError::Unsupported(format!(
                "a regroup packs 8- or 16-bit elements, not {bits}-bit"
            )))
        }
    };
    if from.out_dims() != to.out_dims() {
        return Err(CodegenError::Invalid(
            "the layouts have different out dims".into(),
        ));
    }
    let words_per_group_log2 = 2 * k;
    for (what, l) in [("source", from), ("destination", to)] {
        if l.in_dim_size_log2(DimName::REGISTER) < words_per_group_log2 {
            return Err(CodegenError::Unsupported(format!(
                "the {what} layout has {} registers per thread; a regroup of {bits}-bit \
                 elements takes groups of {} words ({} registers)",
                l.in_dim_size(DimName::REGISTER),
                1u32 << k,
                1u64 << words_per_group_log2
            )));
        }
    }
    let lanes = from.packed_bases(DimName::LANE);
    let words = to.packed_bases(DimName::REGISTER);
    let mut found = Vec::with_capacity(k as usize);
    for (i, &w) in words.iter().take(k as usize).enumerate() {
        let a = lanes.iter().position(|&c| c == w && c != 0);
        match a {
            Some(a) if !found.contains(&(a as u32)) => found.push(a as u32),
            _ => {
                return Err(CodegenError::Unsupported(format!(
                    "word bit {i} of the destination (register basis {w:#x}) is not a lane \
                     bit of the source"
                )))
            }
        }
    }
    Ok(found)
}

/// `layout` with register bit `i` and lane bit `lane_bits[i]` exchanged for
/// every `i` (the intermediate layout `I` of the module doc).
pub fn exchange_word_bits(layout: &LinearLayout, lane_bits: &[u32]) -> Result<LinearLayout> {
    let mut bases = layout.all_bases();
    let reg = bases.iter().position(|b| b.0 == DimName::REGISTER);
    let lane = bases.iter().position(|b| b.0 == DimName::LANE);
    let (Some(reg), Some(lane)) = (reg, lane) else {
        return Err(CodegenError::Invalid(
            "a regroup needs register and lane dims".into(),
        ));
    };
    for (i, &a) in lane_bits.iter().enumerate() {
        let (r, l) = (bases[reg].1[i].clone(), bases[lane].1[a as usize].clone());
        bases[reg].1[i] = l;
        bases[lane].1[a as usize] = r;
    }
    Ok(LinearLayout::new(
        bases,
        layout.out_dims(),
        layout.is_surjective(),
    )?)
}

/// The regroup that runs before the rest of a conversion `src → dst`:
/// `src → I` with `I` = `src` with its word bits exchanged with the lane
/// bits holding `dst`'s ([`word_lane_bits`]).
pub fn regroup_before(src: &LinearLayout, dst: &LinearLayout, bits: u32) -> Result<Regroup> {
    let lane_bits = word_lane_bits(src, dst, bits)?;
    let inter = exchange_word_bits(src, &lane_bits)?;
    let words = src.in_dim_size(DimName::REGISTER) * u64::from(bits) / 32;
    let program = regroup_program(lanes_of(src)?, bits, words, &lane_bits)?;
    Ok(Regroup::new(RegroupAt::Before, lane_bits, inter, program))
}

/// The regroup that runs after the rest of a conversion `src → dst`: the
/// rest converts `src → D'`, `D'` = `dst` with its word bits exchanged
/// with the lane bits of `dst` holding `src`'s word bits, and the regroup
/// `D' → dst`.
pub fn regroup_after(src: &LinearLayout, dst: &LinearLayout, bits: u32) -> Result<Regroup> {
    let lane_bits = word_lane_bits(dst, src, bits)?;
    let inter = exchange_word_bits(dst, &lane_bits)?;
    let words = dst.in_dim_size(DimName::REGISTER) * u64::from(bits) / 32;
    let program = regroup_program(lanes_of(dst)?, bits, words, &lane_bits)?;
    Ok(Regroup::new(RegroupAt::After, lane_bits, inter, program))
}

fn lanes_of(l: &LinearLayout) -> Result<u32> {
    let n = l.in_dim_size(DimName::LANE);
    u32::try_from(n)
        .ok()
        .filter(|&n| n <= 64)
        .ok_or_else(|| CodegenError::Invalid(format!("{n} lanes per warp")))
}

/// The word program of the module doc for `lanes`-lane warps, `bits`-bit
/// elements (8 or 16), `words` words per thread (a multiple of `e = 32 /
/// bits`; word `j` holds registers `e·j .. e·j + e − 1`, register `e·j +
/// p` at element position `p`) and the lane bits `lane_bits[i]` exchanged
/// with register bit `i`. Output word `j` is input word `j` regrouped
/// (the same register bits `≥ k`, their elements exchanged within the
/// lane group).
pub fn regroup_program(
    lanes: u32,
    bits: u32,
    words: u64,
    lane_bits: &[u32],
) -> Result<WordProgram> {
    let k = lane_bits.len();
    let e = 1usize << k;
    if bits * e as u32 != 32 {
        return Err(CodegenError::Invalid(format!(
            "{k} exchanged bits do not make 32-bit words of {bits}-bit elements"
        )));
    }
    if !words.is_multiple_of(e as u64) || words == 0 {
        return Err(CodegenError::Unsupported(format!(
            "{words} words per thread are not whole groups of {e}"
        )));
    }
    if lane_bits.iter().any(|&a| 1u32 << a >= lanes) {
        return Err(CodegenError::Invalid(format!(
            "lane bits {lane_bits:?} out of range for {lanes} lanes"
        )));
    }
    let group = |lane: u32| -> usize {
        lane_bits
            .iter()
            .enumerate()
            .map(|(i, &a)| ((lane >> a & 1) as usize) << i)
            .sum()
    };
    let mut p = WordProgram {
        lanes,
        bitwidth: bits,
        num_inputs: words as usize,
        num_vars: words as usize,
        instrs: Vec::new(),
        outputs: Vec::new(),
    };
    for q in 0..words as usize / e {
        let a: Vec<WordVar> = (q * e..q * e + e).collect();
        // Step 1: T[w][p] = A[p][w ^ g].
        let t = transpose(&mut p, &a, bits, &group, Xored::Word);
        // Step 2: R[m] = T[m] of the lane of group g ^ m.
        let mut r = vec![t[0]];
        for (m, &tm) in t.iter().enumerate().skip(1) {
            let mask: u32 = lane_bits
                .iter()
                .enumerate()
                .filter(|(i, _)| m >> i & 1 == 1)
                .map(|(_, &a)| 1 << a)
                .sum();
            let dst = p.num_vars;
            p.num_vars += 1;
            p.instrs.push(WordInstr::Shuffle {
                dst,
                src: tm,
                mode: ShflMode::Xor { mask },
            });
            r.push(dst);
        }
        // Step 3: O[u][j'] = R[j' ^ g][u].
        let o = transpose(&mut p, &r, bits, &group, Xored::Position);
        p.outputs.extend(o);
    }
    Ok(p)
}

/// Which index of a transpose the lane's group index is XORed into.
#[derive(Clone, Copy)]
enum Xored {
    /// `(w, p) → (p ⊕ g, w)`: new word index `p ⊕ g` (step 1).
    Word,
    /// `(w, p) → (p, w ⊕ g)`: new position `w ⊕ g` (step 3).
    Position,
}

/// Appends the `k` layers of `e` `prmt` that move element `(w, p)` of
/// `words` (word `w`, position `p`) as `xored` says; returns the new words.
fn transpose(
    prog: &mut WordProgram,
    words: &[WordVar],
    bits: u32,
    group: &dyn Fn(u32) -> usize,
    xored: Xored,
) -> Vec<WordVar> {
    let e = words.len();
    let k = e.trailing_zeros();
    let bytes = (bits / 8) as usize;
    let mut cur = words.to_vec();
    for i in 0..k {
        let bit = 1usize << i;
        let mut next = Vec::with_capacity(e);
        for w_new in 0..e {
            // Lane-dependent: x_i (XOR into the new word bit), y_i (into
            // the new position bit).
            let selector: Vec<u32> = (0..prog.lanes)
                .map(|lane| {
                    let gi = group(lane) >> i & 1;
                    let (xi, yi) = match xored {
                        Xored::Word => (gi, 0),
                        Xored::Position => (0, gi),
                    };
                    let mut sel = 0u32;
                    for p_new in 0..e {
                        // Inverse of the layer: old w_i = P_i ^ y_i, old
                        // p_i = W_i ^ x_i; operand x is the old word with
                        // bit i clear, y the one with it set.
                        let operand = ((p_new & bit) >> i) ^ yi;
                        let p_old = (p_new & !bit) | ((((w_new & bit) >> i) ^ xi) << i);
                        for t in 0..bytes {
                            let src_byte = operand * 4 + p_old * bytes + t;
                            sel |= (src_byte as u32) << (4 * (p_new * bytes + t));
                        }
                    }
                    sel
                })
                .collect();
            let dst = prog.num_vars;
            prog.num_vars += 1;
            prog.instrs.push(WordInstr::Permute {
                dst,
                x: cur[w_new & !bit],
                y: cur[w_new | bit],
                selector,
            });
            next.push(dst);
        }
        cur = next;
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packed_shuffle::check_word_program;

    fn layout(reg: Vec<Vec<u64>>, lane: Vec<Vec<u64>>, warp: Vec<Vec<u64>>) -> LinearLayout {
        LinearLayout::new(
            vec![
                (DimName::REGISTER, reg),
                (DimName::LANE, lane),
                (DimName::WARP, warp),
                (DimName::BLOCK, vec![]),
            ],
            vec![(DimName::dim(0), 128), (DimName::dim(1), 64)],
            true,
        )
        .unwrap()
    }

    /// The issue's pair: `S` = blocked `[1,16]` per thread, rows on lanes;
    /// `D` = blocked `[16,1]`, `threadsPerWarp [2,16]`. `D`'s word bits
    /// (dim0 steps 1, 2) are `S`'s lane bits 0 and 1.
    fn named_pair() -> (LinearLayout, LinearLayout) {
        let s = layout(
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![0, 4],
                vec![0, 8],
                vec![0, 16],
                vec![0, 32],
            ],
            vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]],
            vec![vec![32, 0], vec![64, 0]],
        );
        let d = layout(
            vec![
                vec![1, 0],
                vec![2, 0],
                vec![4, 0],
                vec![8, 0],
                vec![32, 0],
                vec![64, 0],
            ],
            vec![vec![16, 0], vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8]],
            vec![vec![0, 16], vec![0, 32]],
        );
        (s, d)
    }

    #[test]
    fn named_pair_intermediate_is_the_issues() {
        let (s, d) = named_pair();
        let r = regroup_before(&s, &d, 8).unwrap();
        assert_eq!(r.lane_bits, vec![0, 1]);
        // The issue's I, by hand: register [[1,0],[2,0],[0,4],[0,8],[0,16],
        // [0,32]], lane [[0,1],[0,2],[4,0],[8,0],[16,0]].
        let want = layout(
            vec![
                vec![1, 0],
                vec![2, 0],
                vec![0, 4],
                vec![0, 8],
                vec![0, 16],
                vec![0, 32],
            ],
            vec![vec![0, 1], vec![0, 2], vec![4, 0], vec![8, 0], vec![16, 0]],
            vec![vec![32, 0], vec![64, 0]],
        );
        assert_eq!(r.intermediate_layout, want);
    }

    #[test]
    fn regroup_program_is_proved_on_real_words() {
        let (s, d) = named_pair();
        let r = regroup_before(&s, &d, 8).unwrap();
        check_word_program(&r.program, &s, &r.intermediate_layout).unwrap();
        // 16 words: 4 groups of 4, each 3 shuffles and 2·2·4 permutes.
        let c = r.program.cost();
        assert_eq!((c.shuffles, c.permutes), (12, 64));
    }

    #[test]
    fn a_wrong_selector_or_partner_is_caught() {
        let (s, d) = named_pair();
        let r = regroup_before(&s, &d, 8).unwrap();
        let mut bad = r.program.clone();
        if let Some(WordInstr::Permute { selector, .. }) = bad.instrs.first_mut() {
            selector[5] ^= 0x1;
        }
        assert!(check_word_program(&bad, &s, &r.intermediate_layout).is_err());
        let mut bad = r.program.clone();
        for ins in &mut bad.instrs {
            if let WordInstr::Shuffle { mode, .. } = ins {
                *mode = ShflMode::Xor { mask: 4 };
                break;
            }
        }
        assert!(check_word_program(&bad, &s, &r.intermediate_layout).is_err());
    }

    #[test]
    fn sixteen_bit_regroup_swaps_half_words() {
        // 16-bit: k = 1, pairs of lanes exchange half-words (the named
        // pair's source).
        let (s, _) = named_pair();
        let d = layout(
            vec![
                vec![1, 0],
                vec![0, 1],
                vec![0, 2],
                vec![0, 4],
                vec![0, 8],
                vec![0, 16],
            ],
            vec![vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0], vec![0, 32]],
            vec![vec![32, 0], vec![64, 0]],
        );
        let r = regroup_before(&s, &d, 16).unwrap();
        assert_eq!(r.lane_bits, vec![0]);
        check_word_program(&r.program, &s, &r.intermediate_layout).unwrap();
        // 32 words: 16 pairs, one shuffle and 2 + 2 permutes each.
        let c = r.program.cost();
        assert_eq!((c.shuffles, c.permutes), (16, 64));
    }

    #[test]
    fn a_word_bit_that_is_no_lane_bit_refuses() {
        let (s, d) = named_pair();
        // S → S: S's word bits are its register bits, no lane bits.
        assert!(word_lane_bits(&s, &s, 8).is_err());
        // 32-bit elements have no sub-word bits.
        assert!(word_lane_bits(&s, &d, 32).is_err());
    }
}
