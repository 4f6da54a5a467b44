//! The warp-model checker of warp programs: runs a program on tagged
//! element values and proves it converts one layout to another.

use super::*;
use linear_layout::{DimName, LinearLayout};

/// A modelled 32-bit register: up to 4 element tags (low part first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Word {
    len: u8,
    tags: [u64; 4],
}

impl Word {
    fn single(tag: u64) -> Self {
        Word {
            len: 1,
            tags: [tag, 0, 0, 0],
        }
    }
    fn tags(&self) -> &[u64] {
        &self.tags[..self.len as usize]
    }
}

/// Runs `prog` on one warp. `inputs[lane][slot]` are the initial values
/// (one element tag per source register). Returns the final slot contents
/// per lane (a list of element tags: one element, or a packed word).
pub fn run_warp_program(
    prog: &WarpProgram,
    inputs: Vec<Vec<u64>>,
) -> Result<Vec<Vec<Option<Vec<u64>>>>, WarpCheckError> {
    let state = run_words(prog, inputs)?;
    Ok(state
        .into_iter()
        .map(|lane| {
            lane.into_iter()
                .map(|w| w.map(|w| w.tags().to_vec()))
                .collect()
        })
        .collect())
}

fn run_words(
    prog: &WarpProgram,
    inputs: Vec<Vec<u64>>,
) -> Result<Vec<Vec<Option<Word>>>, WarpCheckError> {
    let lanes = prog.lanes;
    if inputs.len() != lanes as usize {
        return Err(WarpCheckError::Setup(format!(
            "{} lanes of inputs for a {lanes}-lane program",
            inputs.len()
        )));
    }
    let ns = prog.num_slots;
    let mut state: Vec<Vec<Option<Word>>> = inputs
        .into_iter()
        .map(|regs| {
            let mut v: Vec<Option<Word>> =
                regs.into_iter().map(|t| Some(Word::single(t))).collect();
            v.resize(ns.max(v.len()), None);
            v
        })
        .collect();
    let bw = prog.bitwidth;
    for (n, ins) in prog.instrs.iter().enumerate() {
        let check = |s: Slot| {
            if s >= ns {
                Err(WarpCheckError::SlotOutOfRange {
                    instr: n,
                    slot: s,
                    num_slots: ns,
                })
            } else {
                Ok(s)
            }
        };
        let read = |state: &Vec<Vec<Option<Word>>>, lane: u32, s: Slot| {
            state[lane as usize][s].ok_or(WarpCheckError::Uninitialised {
                instr: n,
                lane,
                slot: s,
            })
        };
        match ins {
            WarpInstr::Copy { dst, src } => {
                let (dst, src) = (check(*dst)?, check(*src)?);
                for l in 0..lanes {
                    let v = read(&state, l, src)?;
                    state[l as usize][dst] = Some(v);
                }
            }
            WarpInstr::Shuffle { dst, src, mode } => {
                let (dst, src) = (check(*dst)?, check(*src)?);
                let mut new = Vec::with_capacity(lanes as usize);
                for l in 0..lanes {
                    let from = mode.source_lane(l);
                    if from >= lanes {
                        return Err(WarpCheckError::LaneOutOfRange {
                            instr: n,
                            lane: l,
                            src_lane: from,
                        });
                    }
                    let v = read(&state, from, src)?;
                    if u32::from(v.len) * bw > 32 {
                        return Err(WarpCheckError::WordTooWide {
                            instr: n,
                            bits: u32::from(v.len) * bw,
                        });
                    }
                    new.push(v);
                }
                for (l, v) in new.into_iter().enumerate() {
                    state[l][dst] = Some(v);
                }
            }
            WarpInstr::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                let (dst, t, f) = (check(*dst)?, check(*if_true)?, check(*if_false)?);
                for l in 0..lanes {
                    let v = read(&state, l, if cond.eval(l) { t } else { f })?;
                    state[l as usize][dst] = Some(v);
                }
            }
            WarpInstr::Pack { dst, parts } => {
                let dst = check(*dst)?;
                for &p in parts {
                    check(p)?;
                }
                for l in 0..lanes {
                    let mut w = Word {
                        len: 0,
                        tags: [0; 4],
                    };
                    let mut total = 0u32;
                    for &p in parts {
                        let v = read(&state, l, p)?;
                        for &t in v.tags() {
                            if (w.len as usize) < 4 {
                                w.tags[w.len as usize] = t;
                                w.len += 1;
                            }
                            total += 1;
                        }
                    }
                    if total * bw > 32 || total > 4 {
                        return Err(WarpCheckError::WordTooWide {
                            instr: n,
                            bits: total * bw,
                        });
                    }
                    state[l as usize][dst] = Some(w);
                }
            }
            WarpInstr::Unpack { dsts, src } => {
                let src = check(*src)?;
                for &d in dsts {
                    check(d)?;
                }
                for l in 0..lanes {
                    let v = read(&state, l, src)?;
                    if v.len as usize != dsts.len() {
                        return Err(WarpCheckError::BadUnpack {
                            instr: n,
                            expected: v.len as usize,
                            found: dsts.len(),
                        });
                    }
                    for (&d, &x) in dsts.iter().zip(v.tags()) {
                        state[l as usize][d] = Some(Word::single(x));
                    }
                }
            }
        }
    }
    Ok(state)
}

/// Proves `prog` converts `src` to `dst`: for every block and warp, lanes
/// start with source register `r` holding the tag `src(r, lane, warp,
/// block)`; after the program, output `i` of every lane must hold exactly
/// the single element `dst(i, lane, warp, block)`.
pub fn check_warp_program(
    prog: &WarpProgram,
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<(), WarpCheckError> {
    if src.out_dims() != dst.out_dims() {
        return Err(WarpCheckError::Setup(format!(
            "out dims differ: {:?} vs {:?}",
            src.out_dims(),
            dst.out_dims()
        )));
    }
    for d in [DimName::LANE, DimName::WARP, DimName::BLOCK] {
        if src.in_dim_size(d) != dst.in_dim_size(d) {
            return Err(WarpCheckError::Setup(format!("{d} sizes differ")));
        }
    }
    if src.in_dim_size(DimName::LANE) != prog.lanes as u64 {
        return Err(WarpCheckError::Setup(format!(
            "program has {} lanes, layouts {}",
            prog.lanes,
            src.in_dim_size(DimName::LANE)
        )));
    }
    let n_src = src.in_dim_size(DimName::REGISTER);
    if prog.num_inputs as u64 != n_src {
        return Err(WarpCheckError::Setup(format!(
            "program takes {} inputs, source has {n_src} registers",
            prog.num_inputs
        )));
    }
    let n_dst = dst.in_dim_size(DimName::REGISTER);
    if prog.outputs.len() as u64 != n_dst {
        return Err(WarpCheckError::OutputCount {
            expected: n_dst as usize,
            found: prog.outputs.len(),
        });
    }
    for block in 0..src.in_dim_size(DimName::BLOCK) {
        for warp in 0..src.in_dim_size(DimName::WARP) {
            let inputs = (0..prog.lanes as u64)
                .map(|l| {
                    (0..n_src)
                        .map(|r| hw_apply(src, r, l, warp, block))
                        .collect()
                })
                .collect();
            let state = run_words(prog, inputs)?;
            for lane in 0..prog.lanes {
                for (r, &slot) in prog.outputs.iter().enumerate() {
                    let want = hw_apply(dst, r as u64, lane as u64, warp, block);
                    let got = state[lane as usize].get(slot).copied().flatten();
                    if got != Some(Word::single(want)) {
                        return Err(WarpCheckError::WrongValue {
                            block,
                            warp,
                            lane,
                            register: r as u64,
                            expected: dst.unpack(want).to_vec(),
                            found: got.map(|g| {
                                g.tags()
                                    .iter()
                                    .flat_map(|&x| dst.unpack(x).to_vec())
                                    .collect()
                            }),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Where the value of one destination register came from: what
/// [`WarpProgram::trace`] returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// Source register (input slot) holding the element at the start.
    pub src_register: u64,
    /// Lane that held it.
    pub src_lane: u32,
    /// Ordinal (0-based, among the program's `Shuffle` instructions) of the
    /// last shuffle that moved it; `None` if it never left its lane's
    /// registers.
    pub shuffle: Option<usize>,
}

impl WarpProgram {
    /// Follows destination register `output` of `lane` back to the source
    /// register and lane it was read from (through copies, shuffles, the
    /// operand each select picks for that lane, packing and unpacking).
    /// Assumes every slot is written at most once (SSA, as every planner
    /// here emits); `None` when the program does not fit that (an
    /// unwritten non-input slot, an out-of-range slot or lane, a part index
    /// beyond a packed word).
    pub fn trace(&self, output: usize, lane: u32) -> Option<Provenance> {
        let mut def: Vec<Option<usize>> = vec![None; self.num_slots.max(self.num_inputs)];
        for (k, ins) in self.instrs.iter().enumerate() {
            let written: Vec<Slot> = match ins {
                WarpInstr::Copy { dst, .. }
                | WarpInstr::Shuffle { dst, .. }
                | WarpInstr::Select { dst, .. }
                | WarpInstr::Pack { dst, .. } => vec![*dst],
                WarpInstr::Unpack { dsts, .. } => dsts.clone(),
            };
            for s in written {
                *def.get_mut(s)? = Some(k);
            }
        }
        let ordinal: Vec<usize> = self
            .instrs
            .iter()
            .scan(0usize, |n, i| {
                let o = *n;
                *n += matches!(i, WarpInstr::Shuffle { .. }) as usize;
                Some(o)
            })
            .collect();
        // Elements in a slot's word (1 unless packed).
        fn width(p: &WarpProgram, def: &[Option<usize>], s: Slot, depth: usize) -> Option<usize> {
            if depth > p.instrs.len() {
                return None;
            }
            match def.get(s)? {
                None => (s < p.num_inputs).then_some(1),
                Some(k) => match &p.instrs[*k] {
                    WarpInstr::Copy { src, .. } | WarpInstr::Shuffle { src, .. } => {
                        width(p, def, *src, depth + 1)
                    }
                    WarpInstr::Select { if_true, .. } => width(p, def, *if_true, depth + 1),
                    WarpInstr::Pack { parts, .. } => parts
                        .iter()
                        .map(|&q| width(p, def, q, depth + 1))
                        .sum::<Option<usize>>(),
                    WarpInstr::Unpack { .. } => Some(1),
                },
            }
        }
        let (mut slot, mut lane, mut part) = (*self.outputs.get(output)?, lane, 0usize);
        let mut shuffle = None;
        for _ in 0..=self.instrs.len() {
            let Some(k) = *def.get(slot)? else {
                return (slot < self.num_inputs && part == 0 && lane < self.lanes).then_some(
                    Provenance {
                        src_register: slot as u64,
                        src_lane: lane,
                        shuffle,
                    },
                );
            };
            match &self.instrs[k] {
                WarpInstr::Copy { src, .. } => slot = *src,
                WarpInstr::Shuffle { src, mode, .. } => {
                    lane = mode.source_lane(lane);
                    if lane >= self.lanes {
                        return None;
                    }
                    shuffle = shuffle.or(Some(ordinal[k]));
                    slot = *src;
                }
                WarpInstr::Select {
                    cond,
                    if_true,
                    if_false,
                    ..
                } => slot = if cond.eval(lane) { *if_true } else { *if_false },
                WarpInstr::Pack { parts, .. } => {
                    let mut skip = part;
                    let mut found = None;
                    for &q in parts {
                        let w = width(self, &def, q, 0)?;
                        if skip < w {
                            found = Some(q);
                            break;
                        }
                        skip -= w;
                    }
                    slot = found?;
                    part = skip;
                }
                WarpInstr::Unpack { dsts, src } => {
                    if part != 0 {
                        return None;
                    }
                    part = dsts.iter().position(|&d| d == slot)?;
                    slot = *src;
                }
            }
        }
        None
    }
}
