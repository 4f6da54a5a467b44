//! In-warp conversions of 8/16-bit elements whose 32-bit register words
//! are the same words on both sides: the conversion of the words.
//!
//! ## The quotient
//! With `b`-bit elements a thread keeps `e = 32 / b` consecutive registers
//! in one word (registers `e·j .. e·j + e − 1`, the lowest in the low bits:
//! the packing a consumer reads). Let `k = log2 e` and let `V` be the span
//! of the first `k` register bases. When
//!
//! * the first `k` register bases of the source equal those of the
//!   destination and are distinct single bits of the (flattened) tensor
//!   coordinate, the set `P` of those bits, and
//! * no other basis of either layout (higher registers, lanes, warps,
//!   blocks) has a bit in `P`,
//!
//! then word `j` of a thread holds the elements `x ⊕ Σ_i s_i · v_i` in slot
//! `s` (`v_i` the `i`-th register basis), where `x` has the bits of `P` clear,
//! on both sides alike. Every source word is therefore a destination word,
//! slot for slot, and the conversion is the 32-bit conversion of the
//! *quotient* layouts ([`word_quotient`]): each basis with the bits of `P`
//! removed (one flattened output dim), the first `k` register bases
//! dropped. A warp program of the quotient moves whole words;
//! [`lift_program`] writes it over the elements (a word shuffle is a pack,
//! the shuffle and an unpack; a word select is `e` selects), so the
//! simulator proves it on the elements and
//! [`crate::packed_shuffle::WordProgram::from_program`] folds it back into
//! words.
//!
//! ```
//! use layout_codegen::word_quotient::word_quotient;
//! use hw_layouts::Encoding;
//! let ll = |a: &str| Encoding::parse(a).unwrap().to_linear_layout(&[64, 64]).unwrap();
//! // 16 bytes a thread along the row, to an mma operand with kWidth = 4:
//! // both keep 4 consecutive columns in a word.
//! let src = ll("#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>");
//! let dst = ll("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 4}>");
//! let (s, d) = word_quotient(&src, &dst, 8).unwrap();
//! // 1024 words of 4 bytes, 8 a thread on each side.
//! assert_eq!(s.total_out_dim_size(), 1024);
//! assert_eq!((s.in_dim_size_log2(linear_layout::DimName::REGISTER), d.in_dim_size_log2(linear_layout::DimName::REGISTER)), (3, 3));
//! ```

use crate::error::{CodegenError, Result};
use crate::packed_shuffle::{WordInstr, WordProgram, WordVar};
use crate::shuffle::{WarpInstr, WarpProgram};
use linear_layout::{DimName, LinearLayout};

/// The 32-bit quotient layouts `(src_w, dst_w)` of `src → dst` for
/// `elem_bits`-bit elements (module doc), or `None` where the words differ
/// (or the width is not 8 or 16). Both have the in dims register, lane,
/// warp, block and one out dim `dim0` of `total / e` words, a word's
/// coordinate being its elements' with the bits of `P` removed.
pub fn word_quotient(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
) -> Option<(LinearLayout, LinearLayout)> {
    if !matches!(elem_bits, 8 | 16) {
        return None;
    }
    let k = (32 / elem_bits).trailing_zeros() as usize;
    let low = |l: &LinearLayout| -> Option<Vec<u64>> {
        let r = l.packed_bases(DimName::REGISTER);
        (r.len() >= k).then(|| r[..k].to_vec())
    };
    let v = low(src)?;
    if low(dst)? != v || v.iter().any(|b| !b.is_power_of_two()) {
        return None;
    }
    let p: u64 = v.iter().fold(0, |a, b| a | b);
    if p.count_ones() as usize != k {
        return None;
    }
    let dims = [
        DimName::REGISTER,
        DimName::LANE,
        DimName::WARP,
        DimName::BLOCK,
    ];
    let other = |l: &LinearLayout| -> Vec<u64> {
        dims.iter()
            .filter(|&&d| l.has_in_dim(d))
            .flat_map(|&d| {
                let skip = if d == DimName::REGISTER { k } else { 0 };
                l.packed_bases(d).iter().skip(skip).copied()
            })
            .collect()
    };
    if other(src).iter().chain(&other(dst)).any(|b| b & p != 0) {
        return None;
    }
    // Remove the bits of P, the higher bits moving down.
    let squeeze = |x: u64| {
        let (mut out, mut j) = (0u64, 0);
        for i in 0..64 {
            if p >> i & 1 == 1 {
                continue;
            }
            out |= (x >> i & 1) << j;
            j += 1;
        }
        out
    };
    let words = src.total_out_dim_size() >> k;
    let quotient = |l: &LinearLayout| {
        let bases = dims
            .iter()
            .map(|&d| {
                let b: Vec<Vec<u64>> = if l.has_in_dim(d) {
                    let skip = if d == DimName::REGISTER { k } else { 0 };
                    l.packed_bases(d)
                        .iter()
                        .skip(skip)
                        .map(|&x| vec![squeeze(x)])
                        .collect()
                } else {
                    vec![]
                };
                (d, b)
            })
            .collect();
        LinearLayout::new(bases, vec![(DimName::dim(0), words)], true).ok()
    };
    Some((quotient(src)?, quotient(dst)?))
}

/// The element program of a 32-bit warp program `words` over packed words
/// of `elem_bits`-bit elements (module doc): word slot `s` becomes element
/// slots `e·s .. e·s + e − 1` (so word input `j` is source registers `e·j
/// ..` and word output `i` destination registers `e·i ..`); a word copy or
/// select is one per element, a word shuffle packs the `e` elements (low
/// first), shuffles the word and unpacks it into fresh slots.
///
/// Errors: `words` is not a 32-bit program, or packs or unpacks.
pub fn lift_program(words: &WarpProgram, elem_bits: u32) -> Result<WarpProgram> {
    if words.bitwidth != 32 || !matches!(elem_bits, 8 | 16) {
        return Err(CodegenError::Invalid(format!(
            "lifting needs a 32-bit word program and 8- or 16-bit elements, not {} and {elem_bits}",
            words.bitwidth
        )));
    }
    let e = (32 / elem_bits) as usize;
    let at = |s: usize, i: usize| s * e + i;
    let mut next = words.num_slots * e;
    let mut instrs = Vec::new();
    for ins in &words.instrs {
        match ins {
            WarpInstr::Copy { dst, src } => {
                instrs.extend((0..e).map(|i| WarpInstr::Copy {
                    dst: at(*dst, i),
                    src: at(*src, i),
                }));
            }
            WarpInstr::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                instrs.extend((0..e).map(|i| WarpInstr::Select {
                    dst: at(*dst, i),
                    cond: cond.clone(),
                    if_true: at(*if_true, i),
                    if_false: at(*if_false, i),
                }));
            }
            WarpInstr::Shuffle { dst, src, mode } => {
                let (packed, moved) = (next, next + 1);
                next += 2;
                instrs.push(WarpInstr::Pack {
                    dst: packed,
                    parts: (0..e).map(|i| at(*src, i)).collect(),
                });
                instrs.push(WarpInstr::Shuffle {
                    dst: moved,
                    src: packed,
                    mode: mode.clone(),
                });
                instrs.push(WarpInstr::Unpack {
                    dsts: (0..e).map(|i| at(*dst, i)).collect(),
                    src: moved,
                });
            }
            WarpInstr::Pack { .. } | WarpInstr::Unpack { .. } => {
                return Err(CodegenError::Invalid(
                    "a 32-bit word program has no packs or unpacks".into(),
                ))
            }
        }
    }
    Ok(WarpProgram {
        lanes: words.lanes,
        bitwidth: elem_bits,
        num_inputs: words.num_inputs * e,
        num_slots: next,
        instrs,
        outputs: words
            .outputs
            .iter()
            .flat_map(|&s| (0..e).map(move |i| at(s, i)))
            .collect(),
    })
}

/// The 32-bit program that `p` lifts ([`lift_program`]), when `p` is a
/// lift: an 8/16-bit program whose every instruction acts on the `e`
/// element slots of word slots (copies and selects in groups of `e` alike
/// but for the slot, shuffles as pack–shuffle–unpack of one word slot's
/// elements, low first), every input and output group whole. `None`
/// otherwise.
pub fn unlift(p: &WarpProgram) -> Option<WarpProgram> {
    if !matches!(p.bitwidth, 8 | 16) {
        return None;
    }
    let e = (32 / p.bitwidth) as usize;
    if !p.num_inputs.is_multiple_of(e) || !p.outputs.len().is_multiple_of(e) {
        return None;
    }
    // Word slot `s` of the 32-bit program is element slots `e·s ..`; the
    // lift's pack and shuffle slots above them are not word slots.
    let word_of = |slots: &[usize]| -> Option<usize> {
        let s = *slots.first()?;
        (s % e == 0 && slots.iter().enumerate().all(|(i, &x)| x == s + i)).then_some(s / e)
    };
    let mut instrs = Vec::new();
    let mut i = 0;
    let mut num_slots = p.num_inputs / e;
    let mut note = |s: usize| num_slots = num_slots.max(s + 1);
    while i < p.instrs.len() {
        match &p.instrs[i] {
            WarpInstr::Copy { .. } => {
                let group = p.instrs.get(i..i + e)?;
                let (mut d, mut s) = (Vec::new(), Vec::new());
                for g in group {
                    let WarpInstr::Copy { dst, src } = g else {
                        return None;
                    };
                    d.push(*dst);
                    s.push(*src);
                }
                let (dst, src) = (word_of(&d)?, word_of(&s)?);
                note(dst);
                instrs.push(WarpInstr::Copy { dst, src });
                i += e;
            }
            WarpInstr::Select { cond, .. } => {
                let group = p.instrs.get(i..i + e)?;
                let (mut d, mut t, mut f) = (Vec::new(), Vec::new(), Vec::new());
                for g in group {
                    let WarpInstr::Select {
                        dst,
                        cond: c,
                        if_true,
                        if_false,
                    } = g
                    else {
                        return None;
                    };
                    if c != cond {
                        return None;
                    }
                    d.push(*dst);
                    t.push(*if_true);
                    f.push(*if_false);
                }
                let dst = word_of(&d)?;
                note(dst);
                instrs.push(WarpInstr::Select {
                    dst,
                    cond: cond.clone(),
                    if_true: word_of(&t)?,
                    if_false: word_of(&f)?,
                });
                i += e;
            }
            WarpInstr::Pack { dst: packed, parts } => {
                let (
                    Some(WarpInstr::Shuffle {
                        dst: moved,
                        src,
                        mode,
                    }),
                    Some(WarpInstr::Unpack { dsts, src: from }),
                ) = (p.instrs.get(i + 1), p.instrs.get(i + 2))
                else {
                    return None;
                };
                if src != packed || from != moved || parts.len() != e {
                    return None;
                }
                let dst = word_of(dsts)?;
                note(dst);
                instrs.push(WarpInstr::Shuffle {
                    dst,
                    src: word_of(parts)?,
                    mode: mode.clone(),
                });
                i += 3;
            }
            _ => return None,
        }
    }
    let outputs = p
        .outputs
        .chunks(e)
        .map(word_of)
        .collect::<Option<Vec<_>>>()?;
    Some(WarpProgram {
        lanes: p.lanes,
        bitwidth: 32,
        num_inputs: p.num_inputs / e,
        num_slots,
        instrs,
        outputs,
    })
}

/// The packed-word form of a 32-bit program `words` run on words of
/// `elem_bits`-bit elements: a shuffle is a word shuffle, a select a
/// `prmt` whose selector takes all four bytes of one word (`0x3210`, the
/// low word `if_false`, or `0x7654`, `if_true`) by the lane's predicate,
/// a copy renames. One ALU instruction a select, as `selp.b32` would be.
pub fn word_program(words: &WarpProgram, elem_bits: u32) -> Result<WordProgram> {
    if words.bitwidth != 32 || !matches!(elem_bits, 8 | 16) {
        return Err(CodegenError::Invalid(format!(
            "a word program runs a 32-bit program on 8- or 16-bit elements, not {} on {elem_bits}",
            words.bitwidth
        )));
    }
    let unset = || CodegenError::Invalid("the word program reads a slot it never wrote".into());
    let mut var: Vec<Option<WordVar>> = vec![None; words.num_slots.max(words.num_inputs)];
    for (s, v) in var.iter_mut().enumerate().take(words.num_inputs) {
        *v = Some(s);
    }
    let mut out = WordProgram {
        lanes: words.lanes,
        bitwidth: elem_bits,
        num_inputs: words.num_inputs,
        num_vars: words.num_inputs,
        instrs: Vec::new(),
        outputs: Vec::new(),
    };
    let read = |var: &[Option<WordVar>], s: usize| var.get(s).copied().flatten().ok_or_else(unset);
    for ins in &words.instrs {
        let (dst, value) = match ins {
            WarpInstr::Copy { dst, src } => (*dst, read(&var, *src)?),
            WarpInstr::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                let v = out.num_vars;
                out.num_vars += 1;
                out.instrs.push(WordInstr::Permute {
                    dst: v,
                    x: read(&var, *if_false)?,
                    y: read(&var, *if_true)?,
                    selector: (0..words.lanes)
                        .map(|l| if cond.eval(l) { 0x7654 } else { 0x3210 })
                        .collect(),
                });
                (*dst, v)
            }
            WarpInstr::Shuffle { dst, src, mode } => {
                let v = out.num_vars;
                out.num_vars += 1;
                out.instrs.push(WordInstr::Shuffle {
                    dst: v,
                    src: read(&var, *src)?,
                    mode: mode.clone(),
                });
                (*dst, v)
            }
            WarpInstr::Pack { .. } | WarpInstr::Unpack { .. } => {
                return Err(CodegenError::Invalid(
                    "a 32-bit word program has no packs or unpacks".into(),
                ))
            }
        };
        *var.get_mut(dst).ok_or_else(unset)? = Some(value);
    }
    out.outputs = words
        .outputs
        .iter()
        .map(|&s| read(&var, s))
        .collect::<Result<_>>()?;
    Ok(out)
}
