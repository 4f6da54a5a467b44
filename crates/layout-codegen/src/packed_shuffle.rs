//! A warp program for sub-32-bit elements rewritten over whole 32-bit
//! *words* of natively packed registers, with byte permutes whose selector
//! depends on the lane (what Triton's lowering does for packed f16/f8
//! register↔lane swaps).
//!
//! # Model
//! With `b`-bit elements (`b` = 8 or 16) a word holds `e = 32 / b`
//! elements. Input word `j` holds source registers `e·j .. e·j + e − 1`,
//! register `e·j + k` in bits `k·b ..` (the way a kernel keeps them between
//! conversions); output word `j` holds destination registers the same way.
//! A [`WordProgram`] has two instructions:
//! * `Permute`: `dst = prmt(x, y, selector(lane))`: byte `n` of `dst` is
//!   byte `(selector >> 4n) & 7` of the 8-byte value `y:x` (`x` low), the
//!   PTX `prmt.b32` (CUDA `__byte_perm`);
//! * `Shuffle`: `dst = shfl(src)` as in [`WarpProgram`].
//!
//! [`WordProgram::from_program`] evaluates an element-level
//! [`WarpProgram`] symbolically, lane by lane: every element is a part of
//! a word (an input word or a shuffle result). Each word that is shuffled
//! or returned becomes one `Permute` of two words, whatever lane chooses
//! which bytes (`n − 1` permutes when its bytes come from `n` words);
//! selects, packs and unpacks fold into the selectors.
//! A Ship swap of register bit 0 with a lane bit costs one permute to build
//! the word to send, one shuffle and one permute per output word: 4
//! instructions per two words, where the element program with its packing
//! needs 8.
//!
//! [`check_word_program`] runs a word program on real 32-bit values (every
//! element of the warp numbered, `b` bits at a time) and compares every
//! destination register with the layouts, independently of the rewrite.
//!
//! ```
//! use layout_codegen::shuffle::shuffle_plan;
//! use layout_codegen::packed_shuffle::{check_word_program, WordProgram};
//! use linear_layout::{DimName, LinearLayout};
//! let (reg, lane, d0) = (DimName::REGISTER, DimName::LANE, DimName::dim(0));
//! // 2 registers -> elements 0, 1; lanes -> elements 2..64.
//! let src = LinearLayout::identity_1d(2, reg, d0) * LinearLayout::identity_1d(32, lane, d0);
//! // Register bit 0 and lane bit 0 exchanged.
//! let dst = LinearLayout::new(
//!     vec![(reg, vec![vec![2]]), (lane, vec![vec![1], vec![4], vec![8], vec![16], vec![32]])],
//!     vec![(d0, 64)],
//!     true,
//! ).unwrap();
//! let plan = shuffle_plan(&src, &dst, 16).unwrap();
//! let words = WordProgram::from_program(&plan.program).unwrap();
//! check_word_program(&words, &src, &dst).unwrap();
//! // One word per lane: the whole word goes to lane ^ 1, and one permute
//! // (selector by lane parity) keeps the own half and takes the partner's.
//! let c = words.cost();
//! assert_eq!((c.shuffles, c.permutes), (1, 1));
//! ```

use crate::shuffle::{hw_apply, ShflMode, WarpInstr, WarpProgram};
use linear_layout::{DimName, LinearLayout};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A 32-bit value of a [`WordProgram`]; `0..num_inputs` are the source words.
pub type WordVar = usize;

/// One instruction of a [`WordProgram`]; every lane executes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WordInstr {
    /// `dst = prmt(x, y, selector[lane])` (`x` supplies bytes 0–3, `y`
    /// bytes 4–7; one 16-bit selector per lane, nibble `n` for byte `n`).
    Permute {
        /// The word written.
        dst: WordVar,
        /// The word supplying bytes 0-3.
        x: WordVar,
        /// The word supplying bytes 4-7.
        y: WordVar,
        /// The `prmt` selector of each lane.
        selector: Vec<u32>,
    },
    /// `dst = shfl(src)`: lane `l` receives `src` of the lane `mode` names.
    Shuffle {
        /// The word written.
        dst: WordVar,
        /// The word read.
        src: WordVar,
        /// Which lane is read.
        mode: ShflMode,
    },
}

/// Straight-line warp code over packed words for one conversion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordProgram {
    /// Lanes per warp.
    pub lanes: u32,
    /// Element bitwidth (8 or 16).
    pub bitwidth: u32,
    /// Source words (source registers / elements per word).
    pub num_inputs: usize,
    /// Values defined (inputs included).
    pub num_vars: usize,
    /// The code.
    pub instrs: Vec<WordInstr>,
    /// The value holding destination word `j`.
    pub outputs: Vec<WordVar>,
}

/// Instruction counts of a [`WordProgram`] (per thread).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordCost {
    /// `shfl.sync` instructions.
    pub shuffles: usize,
    /// `prmt` instructions.
    pub permutes: usize,
}

/// Element `k` of word value `v`, or unknown (a don't-care part).
type Part = Option<(WordVar, u32)>;

impl WordProgram {
    /// Elements per word.
    pub fn elements_per_word(&self) -> u32 {
        32 / self.bitwidth
    }

    /// Counts the instructions.
    pub fn cost(&self) -> WordCost {
        let mut c = WordCost::default();
        for i in &self.instrs {
            match i {
                WordInstr::Permute { .. } => c.permutes += 1,
                WordInstr::Shuffle { .. } => c.shuffles += 1,
            }
        }
        c
    }

    /// The word form of `prog` (element width 8 or 16, register counts a
    /// multiple of the elements per word). `None` when it has no such form
    /// here: another width, or a program that reads a slot it never wrote or
    /// packs more than a word.
    pub fn from_program(prog: &WarpProgram) -> Option<WordProgram> {
        let b = prog.bitwidth;
        if b != 8 && b != 16 {
            return None;
        }
        let e = (32 / b) as usize;
        let n_out = prog.outputs.len();
        if !prog.num_inputs.is_multiple_of(e)
            || !n_out.is_multiple_of(e)
            || !prog.lanes.is_power_of_two()
            || prog.lanes > 32
        {
            return None;
        }
        let lanes = prog.lanes as usize;
        let mut w = Builder {
            prog: WordProgram {
                lanes: prog.lanes,
                bitwidth: b,
                num_inputs: prog.num_inputs / e,
                num_vars: prog.num_inputs / e,
                instrs: Vec::new(),
                outputs: Vec::new(),
            },
            memo: HashMap::new(),
        };
        let slots = prog.num_slots.max(prog.num_inputs);
        let mut state: Vec<Vec<Option<Vec<Part>>>> = vec![vec![None; slots]; lanes];
        for lane in state.iter_mut() {
            for (i, s) in lane.iter_mut().enumerate().take(prog.num_inputs) {
                *s = Some(vec![Some((i / e, (i % e) as u32))]);
            }
        }
        for ins in &prog.instrs {
            match ins {
                WarpInstr::Copy { dst, src } => {
                    for lane in state.iter_mut() {
                        let v = lane.get(*src)?.clone()?;
                        *lane.get_mut(*dst)? = Some(v);
                    }
                }
                WarpInstr::Select {
                    dst,
                    cond,
                    if_true,
                    if_false,
                } => {
                    for (l, lane) in state.iter_mut().enumerate() {
                        let from = if cond.eval(l as u32) {
                            *if_true
                        } else {
                            *if_false
                        };
                        let v = lane.get(from)?.clone()?;
                        *lane.get_mut(*dst)? = Some(v);
                    }
                }
                WarpInstr::Pack { dst, parts } => {
                    for lane in state.iter_mut() {
                        let mut v = Vec::new();
                        for &p in parts {
                            v.extend(lane.get(p)?.clone()?);
                        }
                        if v.len() > e {
                            return None;
                        }
                        *lane.get_mut(*dst)? = Some(v);
                    }
                }
                WarpInstr::Unpack { dsts, src } => {
                    for lane in state.iter_mut() {
                        let v = lane.get(*src)?.clone()?;
                        if v.len() != dsts.len() {
                            return None;
                        }
                        for (&d, p) in dsts.iter().zip(v) {
                            *lane.get_mut(d)? = Some(vec![p]);
                        }
                    }
                }
                WarpInstr::Shuffle { dst, src, mode } => {
                    let sent: Vec<Vec<Part>> = state
                        .iter()
                        .map(|lane| lane.get(*src).cloned().flatten())
                        .collect::<Option<_>>()?;
                    // Elements of one value move as that value, wherever
                    // they sit in it; otherwise gather them into place.
                    let mut vars = sent.iter().flatten().flatten().map(|p| p.0);
                    let first = vars.next()?;
                    let whole = vars.all(|v| v == first);
                    let word = if whole { first } else { w.word(&sent, e)? };
                    let r = w.fresh();
                    w.prog.instrs.push(WordInstr::Shuffle {
                        dst: r,
                        src: word,
                        mode: mode.clone(),
                    });
                    for (l, lane) in state.iter_mut().enumerate() {
                        let from = mode.source_lane(l as u32) as usize;
                        let got = sent.get(from)?;
                        *lane.get_mut(*dst)? = Some(
                            (0..got.len())
                                .map(|k| got[k].map(|(_, q)| (r, if whole { q } else { k as u32 })))
                                .collect(),
                        );
                    }
                }
            }
        }
        for j in 0..n_out / e {
            let parts: Vec<Vec<Part>> = state
                .iter()
                .map(|lane| {
                    (0..e)
                        .map(|k| {
                            let v = lane.get(prog.outputs[e * j + k])?.as_ref()?;
                            (v.len() == 1).then(|| v[0])
                        })
                        .collect::<Option<Vec<Part>>>()
                })
                .collect::<Option<_>>()?;
            let word = w.word(&parts, e)?;
            w.prog.outputs.push(word);
        }
        Some(w.prog)
    }
}

struct Builder {
    prog: WordProgram,
    memo: HashMap<(WordVar, WordVar, Vec<u32>), WordVar>,
}

impl Builder {
    fn fresh(&mut self) -> WordVar {
        self.prog.num_vars += 1;
        self.prog.num_vars - 1
    }

    /// The value whose element `k` is `parts[lane][k]` in every lane (a
    /// value itself when it already is one, else one permute of at most two).
    fn word(&mut self, parts: &[Vec<Part>], e: usize) -> Option<WordVar> {
        let mut vars: Vec<WordVar> = Vec::new();
        for p in parts.iter().flatten().flatten() {
            if !vars.contains(&p.0) {
                vars.push(p.0);
            }
        }
        if vars.is_empty() || parts.iter().any(|p| p.len() > e) {
            return None;
        }
        if vars.len() > 2 {
            // Bytes of more than two values: first gather the parts of the
            // first two in place (the rest don't care), then fold in the
            // others one permute at a time.
            let (a, b) = (vars[0], vars[1]);
            let first: Vec<Vec<Part>> = parts
                .iter()
                .map(|lane| {
                    lane.iter()
                        .map(|p| p.filter(|(v, _)| *v == a || *v == b))
                        .collect()
                })
                .collect();
            let t = self.word(&first, e)?;
            let rest: Vec<Vec<Part>> = parts
                .iter()
                .map(|lane| {
                    lane.iter()
                        .enumerate()
                        .map(|(k, p)| match p {
                            Some((v, _)) if *v == a || *v == b => Some((t, k as u32)),
                            _ => *p,
                        })
                        .collect()
                })
                .collect();
            return self.word(&rest, e);
        }
        let (x, y) = (vars[0], *vars.get(1).unwrap_or(&vars[0]));
        if vars.len() == 1
            && parts.iter().all(|lane| {
                lane.iter()
                    .enumerate()
                    .all(|(k, p)| p.is_none_or(|(_, q)| q as usize == k))
            })
        {
            return Some(x);
        }
        let bytes = (self.prog.bitwidth / 8) as usize;
        // Element k's source byte offset in `y:x` for each lane; a part no
        // lane defines takes the identity, one some lanes leave unknown the
        // choice of the first lane that knows it (fewer distinct selectors).
        let offset = |p: &Part| p.map(|(v, q)| (if v == x { 0 } else { 4 }) + q as usize * bytes);
        let default: Vec<usize> = (0..e)
            .map(|k| {
                parts
                    .iter()
                    .find_map(|lane| lane.get(k).and_then(offset))
                    .unwrap_or(k * bytes)
            })
            .collect();
        let selector: Vec<u32> = parts
            .iter()
            .map(|lane| {
                let mut s = 0u32;
                for (k, &fallback) in default.iter().enumerate() {
                    let base = lane.get(k).and_then(offset).unwrap_or(fallback);
                    for i in 0..bytes {
                        s |= ((base + i) as u32) << (4 * (k * bytes + i));
                    }
                }
                s
            })
            .collect();
        let key = (x, y, selector);
        if let Some(&v) = self.memo.get(&key) {
            return Some(v);
        }
        let dst = self.fresh();
        self.prog.instrs.push(WordInstr::Permute {
            dst,
            x,
            y,
            selector: key.2.clone(),
        });
        self.memo.insert(key, dst);
        Some(dst)
    }
}

/// `prmt.b32` in its default mode: byte `n` of the result is byte
/// `(selector >> 4n) & 7` of `y:x` (`x` low; the sign-replicate bit 3 is
/// never set by [`WordProgram::from_program`] and is ignored here).
pub fn byte_perm(x: u32, y: u32, selector: u32) -> u32 {
    let v = (u64::from(y) << 32) | u64::from(x);
    (0..4).fold(0u32, |r, n| {
        let b = (selector >> (4 * n)) & 7;
        r | ((((v >> (8 * b)) & 0xff) as u32) << (8 * n))
    })
}

/// Runs `prog` on one warp: `inputs[lane][j]` is source word `j` of `lane`;
/// returns the output words of every lane. `None` if it reads an unwritten
/// value or a lane out of range.
pub fn run_word_program(prog: &WordProgram, inputs: &[Vec<u32>]) -> Option<Vec<Vec<u32>>> {
    let lanes = prog.lanes as usize;
    if inputs.len() != lanes {
        return None;
    }
    let mut vals: Vec<Vec<Option<u32>>> = inputs
        .iter()
        .map(|w| {
            let mut v: Vec<Option<u32>> = w.iter().map(|&x| Some(x)).collect();
            v.resize(prog.num_vars.max(v.len()), None);
            v
        })
        .collect();
    for ins in &prog.instrs {
        match ins {
            WordInstr::Permute {
                dst,
                x,
                y,
                selector,
            } => {
                for (l, lane) in vals.iter_mut().enumerate() {
                    let v = byte_perm((*lane.get(*x)?)?, (*lane.get(*y)?)?, *selector.get(l)?);
                    *lane.get_mut(*dst)? = Some(v);
                }
            }
            WordInstr::Shuffle { dst, src, mode } => {
                let mut got = Vec::with_capacity(lanes);
                for l in 0..lanes as u32 {
                    let from = mode.source_lane(l) as usize;
                    got.push((*vals.get(from)?.get(*src)?)?);
                }
                for (lane, v) in vals.iter_mut().zip(got) {
                    *lane.get_mut(*dst)? = Some(v);
                }
            }
        }
    }
    vals.iter()
        .map(|lane| prog.outputs.iter().map(|&o| *lane.get(o)?).collect())
        .collect()
}

/// Proves `prog` converts `src` to `dst` on real words: in every warp and
/// block each distinct element gets a number; for each `b`-bit digit of the
/// numbers (as many passes as needed) the source words are filled with that
/// digit of their elements, the program runs, and every destination
/// register of every lane must hold the digit of `dst(register, lane, warp,
/// block)`. Returns the first wrong register.
pub fn check_word_program(
    prog: &WordProgram,
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<(), String> {
    let b = prog.bitwidth;
    if b != 8 && b != 16 {
        return Err(format!("element width {b} has no word form"));
    }
    let e = u64::from(32 / b);
    let lanes = u64::from(prog.lanes);
    let (ns, nd) = (
        src.in_dim_size(DimName::REGISTER),
        dst.in_dim_size(DimName::REGISTER),
    );
    if src.in_dim_size(DimName::LANE) != lanes || dst.in_dim_size(DimName::LANE) != lanes {
        return Err(format!("layouts do not have {lanes} lanes"));
    }
    if prog.num_inputs as u64 * e != ns || prog.outputs.len() as u64 * e != nd {
        return Err(format!(
            "program takes {} words and returns {}; layouts have {ns} and {nd} registers",
            prog.num_inputs,
            prog.outputs.len()
        ));
    }
    let mask = (1u64 << b) - 1;
    for block in 0..src.in_dim_size(DimName::BLOCK) {
        for warp in 0..src.in_dim_size(DimName::WARP) {
            let mut number: HashMap<u64, u64> = HashMap::new();
            for l in 0..lanes {
                for r in 0..ns {
                    let n = number.len() as u64;
                    number.entry(hw_apply(src, r, l, warp, block)).or_insert(n);
                }
            }
            let digits = (64 - (number.len() as u64).leading_zeros())
                .div_ceil(b)
                .max(1);
            for pass in 0..digits {
                let digit = |tag: u64| number.get(&tag).map(|n| (n >> (b * pass)) & mask);
                let inputs: Vec<Vec<u32>> = (0..lanes)
                    .map(|l| {
                        (0..ns / e)
                            .map(|j| {
                                (0..e).fold(0u32, |w, k| {
                                    let t = hw_apply(src, e * j + k, l, warp, block);
                                    w | ((digit(t).unwrap_or(0) as u32) << (b as u64 * k))
                                })
                            })
                            .collect()
                    })
                    .collect();
                let out = run_word_program(prog, &inputs)
                    .ok_or("the program reads a value it never wrote")?;
                for l in 0..lanes {
                    for r in 0..nd {
                        let word = out[l as usize][(r / e) as usize];
                        let got = u64::from(word >> (b as u64 * (r % e))) & mask;
                        let t = hw_apply(dst, r, l, warp, block);
                        let want = digit(t).ok_or_else(|| {
                            format!("destination element {t:#x} is not in the source")
                        })?;
                        if got != want {
                            return Err(format!(
                                "block {block} warp {warp} lane {l} register {r}: digit {pass} is {got:#x}, want {want:#x}"
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
