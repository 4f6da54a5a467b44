//! The warp-program executor ([`execute_warp`]): runs a
//! [`crate::shuffle::WarpProgram`] on the tagged words of one warp, and
//! checks and counts a program's instructions against the layouts.

use super::SimulationReport;
use crate::error::{CodegenError, Result};
use crate::shuffle::{LanePredicate, ShflMode, Slot, WarpInstr, WarpProgram};
use linear_layout::gf2::xor_columns;

/// The element bit width of a warp program (8, 16, 32 or 64).
pub(super) fn bitwidth_bits(bitwidth: u32) -> Result<u32> {
    match bitwidth {
        8 | 16 | 32 | 64 => Ok(bitwidth),
        b => Err(CodegenError::BadBitwidth(b)),
    }
}

/// Checks the shape of a warp program against the layouts and counts its
/// instructions per thread into `rep`: `shfl.sync` (an `idx` shuffle whose
/// source lane is every lane itself is a register move), `selp`, `prmt`
/// (one per `Pack` / `Unpack`), and copies as register moves.
pub(super) fn count_program(
    prog: &WarpProgram,
    nsrc: u64,
    ndst: u64,
    nlane: u64,
    rep: &mut SimulationReport,
) -> Result<()> {
    if prog.lanes as u64 != nlane {
        return Err(CodegenError::Invalid(format!(
            "warp program for {}-lane warps, the layouts have {nlane} lanes",
            prog.lanes
        )));
    }
    if prog.num_inputs as u64 != nsrc {
        return Err(CodegenError::Invalid(format!(
            "warp program takes {} source registers, the source has {nsrc}",
            prog.num_inputs
        )));
    }
    if prog.outputs.len() as u64 != ndst {
        return Err(CodegenError::Invalid(format!(
            "warp program yields {} registers, the destination has {ndst}",
            prog.outputs.len()
        )));
    }
    for ins in &prog.instrs {
        match ins {
            WarpInstr::Copy { .. } => rep.register_moves += 1,
            WarpInstr::Shuffle {
                mode: ShflMode::Idx { src_lane },
                ..
            } if src_lane.is_identity() => rep.register_moves += 1,
            WarpInstr::Shuffle { .. } => rep.shuffles += 1,
            WarpInstr::Select { .. } => rep.selects += 1,
            WarpInstr::Pack { .. } | WarpInstr::Unpack { .. } => rep.prmt += 1,
        }
    }
    Ok(())
}

/// Runs `prog` on one warp whose lane `l` starts with `inputs[l]` (one
/// element tag per source register) and returns, per lane, the words left
/// in the output slots (each a list of element tags, low part first; `None`
/// for a slot never written). A word is a list of element tags: one for a
/// plain register, several for a packed 32-bit word. The rules (written
/// here apart from [`crate::shuffle::run_warp_program`], which they must
/// agree with):
/// * every operand slot is below `num_slots` and written before it is read;
/// * `Shuffle`: all lanes read first, then all write: lane `l` gets the
///   word of lane `l ⊕ mask` (`Xor`) or `src_lane(l)` (`Idx`), which must be
///   a lane of the warp, and the word must fit in 32 bits (tags ×
///   bitwidth ≤ 32);
/// * `Select`: lane `l` copies `if_true` when `cond(l)` holds, else
///   `if_false`;
/// * `Pack`: the concatenation of the parts' tags (`parts[0]` lowest), at
///   most 32 bits;
/// * `Unpack`: the word must have exactly one tag per destination slot;
///   `dsts[k]` gets tag `k`;
/// * `Copy`: the word itself.
pub fn execute_warp(prog: &WarpProgram, inputs: &[Vec<u64>]) -> Result<Vec<Vec<Option<Vec<u64>>>>> {
    let n = prog.num_slots;
    let lanes = inputs.len();
    let bits = prog.bitwidth as usize;
    let bad = |k: usize, why: String| {
        CodegenError::Invalid(format!("warp program instruction {k}: {why}"))
    };
    let mut slots: Vec<Vec<Option<Vec<u64>>>> = inputs
        .iter()
        .map(|regs| {
            let mut v: Vec<Option<Vec<u64>>> = vec![None; n.max(regs.len())];
            for (i, &t) in regs.iter().enumerate() {
                v[i] = Some(vec![t]);
            }
            v
        })
        .collect();
    let valid = |k: usize, s: Slot| {
        if s < n {
            Ok(s)
        } else {
            Err(bad(k, format!("slot {s} is beyond the {n} slots")))
        }
    };
    let get = |slots: &Vec<Vec<Option<Vec<u64>>>>, k: usize, l: usize, s: Slot| {
        slots[l][s]
            .clone()
            .ok_or_else(|| bad(k, format!("lane {l} reads slot {s} before it is written")))
    };
    let fits = |k: usize, w: &[u64]| {
        if w.len() * bits > 32 {
            Err(bad(
                k,
                format!("a word of {} bits (at most 32)", w.len() * bits),
            ))
        } else {
            Ok(())
        }
    };
    for (k, ins) in prog.instrs.iter().enumerate() {
        match ins {
            WarpInstr::Copy { dst, src } => {
                let (d, s) = (valid(k, *dst)?, valid(k, *src)?);
                for l in 0..lanes {
                    slots[l][d] = Some(get(&slots, k, l, s)?);
                }
            }
            WarpInstr::Shuffle { dst, src, mode } => {
                let (d, s) = (valid(k, *dst)?, valid(k, *src)?);
                let mut recv = Vec::with_capacity(lanes);
                for l in 0..lanes {
                    let from = match mode {
                        ShflMode::Xor { mask } => l as u64 ^ *mask as u64,
                        ShflMode::Idx { src_lane } => {
                            xor_columns(&src_lane.bases, l as u64) ^ src_lane.constant as u64
                        }
                    };
                    if from >= lanes as u64 {
                        return Err(bad(
                            k,
                            format!("lane {l} reads lane {from}, the warp has {lanes}"),
                        ));
                    }
                    let w = get(&slots, k, from as usize, s)?;
                    fits(k, &w)?;
                    recv.push(w);
                }
                for (l, w) in recv.into_iter().enumerate() {
                    slots[l][d] = Some(w);
                }
            }
            WarpInstr::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                let (d, t, f) = (valid(k, *dst)?, valid(k, *if_true)?, valid(k, *if_false)?);
                for l in 0..lanes {
                    let holds = match cond {
                        LanePredicate::Parity { mask } => {
                            (l as u64 & *mask as u64).count_ones() % 2 == 1
                        }
                        LanePredicate::Equals { bases, value } => {
                            xor_columns(bases, l as u64) == *value
                        }
                    };
                    slots[l][d] = Some(get(&slots, k, l, if holds { t } else { f })?);
                }
            }
            WarpInstr::Pack { dst, parts } => {
                let d = valid(k, *dst)?;
                for &p in parts {
                    valid(k, p)?;
                }
                for l in 0..lanes {
                    let mut w = Vec::new();
                    for &p in parts {
                        w.extend(get(&slots, k, l, p)?);
                    }
                    fits(k, &w)?;
                    slots[l][d] = Some(w);
                }
            }
            WarpInstr::Unpack { dsts, src } => {
                let s = valid(k, *src)?;
                for &d in dsts {
                    valid(k, d)?;
                }
                for l in 0..lanes {
                    let w = get(&slots, k, l, s)?;
                    if w.len() != dsts.len() {
                        return Err(bad(
                            k,
                            format!("unpacks {} parts from a word of {}", dsts.len(), w.len()),
                        ));
                    }
                    for (&d, t) in dsts.iter().zip(w) {
                        slots[l][d] = Some(vec![t]);
                    }
                }
            }
        }
    }
    let mut out = Vec::with_capacity(lanes);
    for lane in slots {
        let mut regs = Vec::with_capacity(prog.outputs.len());
        for &o in &prog.outputs {
            if o >= n.max(lane.len()) {
                return Err(CodegenError::Invalid(format!(
                    "warp program output slot {o} is beyond the {n} slots"
                )));
            }
            regs.push(lane[o].clone());
        }
        out.push(regs);
    }
    Ok(out)
}
