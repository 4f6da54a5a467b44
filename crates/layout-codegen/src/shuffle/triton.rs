//! Triton's warp-shuffle planner: the transposition decomposition of the
//! conversion permutation and its Ship / Swap lowering.

use super::*;
use linear_layout::{DimName, LinearLayout};

/// Triton's `getWarpLayoutConvertDecomposition(src, dst, bitwidth)`.
///
/// 1. Drop zero register bases of both layouts, pad registers/lanes with
///    zero bases to equal sizes.
/// 2. `P` maps source bit `b` (register bits first, then lane bits) to the
///    destination bit with the same (non-zero) basis; bits zero in both are
///    fixed points; the other zero bits are paired in order.
/// 3. Walk the cycles of `P` starting from register bits; a cycle
///    `(.. r_m l_j .. l_k r_i ..)` is split into `(r_i l_j)` (a *mixed
///    transposition*), `r_m → r_i` in `P_reg` and `l_k → l_j` in `P_lane`.
/// 4. `n_pack = min(log2(clamp(32 / bitwidth, 1, 4)), n_reg_bits − m)`.
///
/// The transpositions are those of the cycle walk, before Triton's selector
/// fusion (`getTranspositionSelectors`), which may trade low register bits
/// of a transposition for high ones to emit `prmt` instead of `selp`; the
/// number of transpositions (the admission rule) is the same. The lowering
/// here packs along register bits outside the transpositions instead.
///
/// Fails (`NotAPermutation`) unless the register/lane bases of both layouts
/// are single bits matched one to one (distributed layouts), and
/// (`NotWarpLocal`) if the conversion leaves the warp.
pub fn warp_decomposition(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<WarpDecomposition, ShuffleError> {
    check_bitwidth(bitwidth)?;
    warp_local_conversion(src, dst)?;
    let src_kept = nonzero_reg_bits(src);
    let dst_kept = nonzero_reg_bits(dst);
    let n_r = src_kept.len().max(dst_kept.len());
    let n_l = src.in_dim_size_log2(DimName::LANE) as usize;
    let cols = |l: &LinearLayout, kept: &[u32]| -> Vec<u64> {
        let regs = l.packed_bases(DimName::REGISTER);
        let mut v: Vec<u64> = kept.iter().map(|&k| regs[k as usize]).collect();
        v.resize(n_r, 0);
        v.extend_from_slice(l.packed_bases(DimName::LANE));
        v
    };
    let s = cols(src, &src_kept);
    let t = cols(dst, &dst_kept);
    let n = n_r + n_l;
    let mut p: Vec<Option<usize>> = vec![None; n];
    let mut dst_used = vec![false; n];
    let (mut src_zero, mut dst_zero) = (Vec::new(), Vec::new());
    for b in 0..n {
        if s[b] == 0 && t[b] == 0 {
            p[b] = Some(b);
            dst_used[b] = true;
        } else if s[b] == 0 {
            src_zero.push(b);
        }
        if t[b] == 0 && s[b] != 0 {
            dst_zero.push(b);
        }
    }
    for b in 0..n {
        if s[b] == 0 {
            continue;
        }
        let Some(tb) = (0..n).find(|&tb| t[tb] == s[b] && !dst_used[tb]) else {
            return Err(ShuffleError::NotAPermutation {
                detail: format!(
                    "source basis {:#x} (bit {b}) is not a single destination register/lane basis",
                    s[b]
                ),
            });
        };
        dst_used[tb] = true;
        p[b] = Some(tb);
    }
    if src_zero.len() != dst_zero.len() {
        return Err(ShuffleError::NotAPermutation {
            detail: format!(
                "{} source zero bases vs {} destination zero bases",
                src_zero.len(),
                dst_zero.len()
            ),
        });
    }
    for (&a, &b) in src_zero.iter().zip(&dst_zero) {
        if dst_used[b] {
            return Err(ShuffleError::NotAPermutation {
                detail: format!("destination bit {b} used twice"),
            });
        }
        dst_used[b] = true;
        p[a] = Some(b);
    }
    let p: Vec<usize> = p.into_iter().map(|x| x.expect("filled")).collect();
    // Cycle walk.
    let is_reg = |b: usize| b < n_r;
    let mut p_reg: Vec<u32> = (0..n_r as u32).collect();
    let mut p_lane: Vec<u32> = (0..n_l as u32).collect();
    let mut mixed = Vec::new();
    let mut visited = vec![false; n];
    for start in 0..n {
        if visited[start] {
            continue;
        }
        let (mut reg_start, mut lane_start, mut lane_end) = (0usize, 0usize, 0usize);
        let mut cur = start;
        loop {
            visited[cur] = true;
            let next = p[cur];
            match (is_reg(cur), is_reg(next)) {
                (true, true) => p_reg[cur] = next as u32,
                (false, false) => p_lane[cur - n_r] = (next - n_r) as u32,
                (true, false) => {
                    reg_start = cur;
                    lane_start = next - n_r;
                }
                (false, true) => {
                    lane_end = cur - n_r;
                    let reg_end = next;
                    p_reg[reg_start] = reg_end as u32;
                    p_lane[lane_end] = lane_start as u32;
                    mixed.push((reg_end as u32, lane_start as u32));
                }
            }
            cur = next;
            if cur == start {
                break;
            }
        }
        let _ = lane_end;
    }
    let m = mixed.len() as u32;
    let n_pack_prelim = (32 / bitwidth).clamp(1, 4).trailing_zeros();
    let n_pack = n_pack_prelim.min(n_r as u32 - m);
    Ok(WarpDecomposition {
        n_reg_bits: n_r as u32,
        n_lane_bits: n_l as u32,
        p_reg,
        p_lane,
        mixed_transpositions: mixed,
        n_pack,
        src_kept_reg_bits: src_kept,
        dst_kept_reg_bits: dst_kept,
    })
}

/// Triton's admission rule `cvtNeedsWarpShuffle`: the minimal conversion
/// moves data across exactly registers and lanes, and the decomposition
/// (at bitwidth 32) has fewer than two mixed transpositions. `false` when
/// the decomposition does not exist.
pub fn cvt_needs_warp_shuffle(src: &LinearLayout, dst: &LinearLayout) -> bool {
    let Ok(c) = minimal_conversion(src, dst) else {
        return false;
    };
    let dims: Vec<DimName> = c.in_dim_names().collect();
    if dims != [DimName::REGISTER, DimName::LANE] {
        return false;
    }
    match warp_decomposition(src, dst, 32) {
        Ok(d) => d.mixed_transpositions.len() < 2,
        Err(_) => false,
    }
}

/// Lowers Triton's decomposition to a program (Ship or Swap strategy; a
/// pure register relabelling when there is nothing to move).
///
/// Values live on padded positions `(x, l)` (`x`: `n_reg_bits` compacted
/// register bits). After `P_reg` (renaming), words of `2^n_pack` elements
/// are packed along the lowest register bits not in a transposition. With
/// `v(l) = P_lane(l)` the *virtual* lane and transpositions `(i_t, j_t)`:
/// * stage 1 (sender): word `s` takes word `s ⊕ Σ_t v(l)_{j_t}·2^{i_t}`
///   (one `selp` per word per transposition);
/// * stage 2: word `s` is read from the lane with virtual id
///   `l ⊕ Σ_t s_{i_t}·2^{j_t}`, i.e. physical lane
///   `P_lane⁻¹(l) ⊕ P_lane⁻¹(mask)` (`shfl.bfly` when `P_lane` is trivial);
/// * stage 3 (receiver): word `s` takes word `s ⊕ Σ_t l_{j_t}·2^{i_t}`.
pub fn triton_shuffle_plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<WarpShufflePlan, ShuffleError> {
    let dec = warp_decomposition(src, dst, bitwidth)?;
    let n_r = dec.n_reg_bits;
    let lanes = src.in_dim_size(DimName::LANE) as u32;
    let n_src_regs = src.in_dim_size(DimName::REGISTER) as usize;
    let mut prog = WarpProgram::new(lanes, bitwidth, n_src_regs);
    let n_src_kept = dec.src_kept_reg_bits.len() as u32;
    // cur[x]: slot holding the value at padded position x (after P_reg).
    let mut cur = vec![0usize; 1 << n_r];
    for x in 0..1u64 << n_r {
        let y = dec
            .p_reg
            .iter()
            .enumerate()
            .filter(|(i, _)| x >> i & 1 == 1)
            .fold(0u64, |acc, (_, &t)| acc | 1 << t);
        let orig = expand(x & ((1 << n_src_kept) - 1), &dec.src_kept_reg_bits);
        cur[y as usize] = orig as usize;
    }
    let p_lane_trivial = dec.p_lane.iter().enumerate().all(|(j, &t)| t == j as u32);
    let m = dec.mixed_transpositions.len();
    let strategy;
    if m == 0 && p_lane_trivial {
        strategy = ShuffleStrategy::RegisterPermutation;
    } else {
        // Pack bits: lowest register bits not in a transposition.
        let t_bits: Vec<u32> = dec.mixed_transpositions.iter().map(|t| t.0).collect();
        let pack_bits: Vec<u32> = (0..n_r)
            .filter(|b| !t_bits.contains(b))
            .take(dec.n_pack as usize)
            .collect();
        let word_bits: Vec<u32> = (0..n_r).filter(|b| !pack_bits.contains(b)).collect();
        let n_words = 1usize << word_bits.len();
        let n_parts = 1usize << pack_bits.len();
        let pos = |w: usize, p: usize| {
            (expand(w as u64, &word_bits) | expand(p as u64, &pack_bits)) as usize
        };
        let mut words: Vec<Slot> = (0..n_words)
            .map(|w| {
                if n_parts == 1 {
                    cur[pos(w, 0)]
                } else {
                    let parts = (0..n_parts).map(|p| cur[pos(w, p)]).collect();
                    prog.push(|dst| WarpInstr::Pack { dst, parts })
                }
            })
            .collect();
        // Transpositions in word-bit coordinates.
        let trans: Vec<(usize, u32)> = dec
            .mixed_transpositions
            .iter()
            .map(|&(i, j)| (word_bits.iter().position(|&b| b == i).expect("word bit"), j))
            .collect();
        // Inverse lane permutation as a map on lane ids.
        let mut p_lane_inv = vec![0u32; dec.p_lane.len()];
        for (j, &t) in dec.p_lane.iter().enumerate() {
            p_lane_inv[t as usize] = j as u32;
        }
        let p_lane_inv_map = LaneMap {
            bases: p_lane_inv.iter().map(|&j| 1 << j).collect(),
            constant: 0,
        };
        // Bit j of v(l) = P_lane(l) is lane bit P_lane⁻¹(j).
        let virt_bit_mask = |j: u32| 1u32 << p_lane_inv[j as usize];
        if m == 1 && p_lane_trivial {
            strategy = ShuffleStrategy::Ship;
            let (i, j) = trans[0];
            let cond = LanePredicate::Parity { mask: 1 << j };
            for w in 0..n_words {
                if w >> i & 1 == 1 {
                    continue;
                }
                let w1 = w | 1 << i;
                let (a, b) = (words[w], words[w1]);
                let send = prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: cond.clone(),
                    if_true: a,
                    if_false: b,
                });
                let recv = prog.push(|dst| WarpInstr::Shuffle {
                    dst,
                    src: send,
                    mode: ShflMode::Xor { mask: 1 << j },
                });
                words[w] = prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: cond.clone(),
                    if_true: recv,
                    if_false: a,
                });
                words[w1] = prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: cond.clone(),
                    if_true: b,
                    if_false: recv,
                });
            }
        } else {
            strategy = ShuffleStrategy::Swap;
            let stage = |prog: &mut WarpProgram, words: &mut Vec<Slot>, sender: bool| {
                for &(i, j) in &trans {
                    let mask = if sender { virt_bit_mask(j) } else { 1 << j };
                    let cond = LanePredicate::Parity { mask };
                    let old = words.clone();
                    for w in 0..n_words {
                        let w1 = w ^ 1 << i;
                        let (a, b) = (old[w], old[w1]);
                        words[w] = prog.push(|dst| WarpInstr::Select {
                            dst,
                            cond: cond.clone(),
                            if_true: b,
                            if_false: a,
                        });
                    }
                }
            };
            stage(&mut prog, &mut words, true);
            for (w, slot) in words.iter_mut().enumerate() {
                let mask: u32 = trans
                    .iter()
                    .filter(|(i, _)| w >> i & 1 == 1)
                    .fold(0, |acc, &(_, j)| acc ^ 1 << j);
                let src = *slot;
                if p_lane_trivial {
                    if mask != 0 {
                        *slot = prog.push(|dst| WarpInstr::Shuffle {
                            dst,
                            src,
                            mode: ShflMode::Xor { mask },
                        });
                    }
                } else {
                    let src_lane = LaneMap {
                        bases: p_lane_inv_map.bases.clone(),
                        constant: p_lane_inv_map.apply(mask),
                    };
                    *slot = prog.push(|dst| WarpInstr::Shuffle {
                        dst,
                        src,
                        mode: ShflMode::Idx { src_lane },
                    });
                }
            }
            stage(&mut prog, &mut words, false);
        }
        // Unpack.
        for (w, &word) in words.iter().enumerate() {
            if n_parts == 1 {
                cur[pos(w, 0)] = word;
            } else {
                let dsts: Vec<Slot> = (0..n_parts).map(|_| prog.new_slot()).collect();
                for (p, &d) in dsts.iter().enumerate() {
                    cur[pos(w, p)] = d;
                }
                prog.instrs.push(WarpInstr::Unpack { dsts, src: word });
            }
        }
    }
    // Outputs: destination register d holds the value at compacted position.
    let n_dst_regs = dst.in_dim_size(DimName::REGISTER);
    prog.outputs = (0..n_dst_regs)
        .map(|d| cur[compress(d, &dec.dst_kept_reg_bits) as usize])
        .collect();
    let cost = prog.cost();
    Ok(WarpShufflePlan {
        strategy,
        decomposition: Some(dec),
        program: prog,
        cost,
    })
}
