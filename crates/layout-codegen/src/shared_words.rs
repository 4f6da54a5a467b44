//! Shared-memory conversions of 8- and 16-bit elements on packed words:
//! which registers share a 32-bit word, decided from the plan's shared
//! layout (data only; emitters read it).
//!
//! A kernel holds `e = 32 / bits` narrow elements per 32-bit register, but
//! nothing fixes *which* `e` registers of a layout share a word: an
//! elementwise op does not care. A [`WordPacking`] names, for one layout,
//! the register bits that select an element's slot within its word.
//!
//! Through a shared layout `smem`, the store map `S = smem⁻¹ ∘ src` and
//! the load map `L = smem⁻¹ ∘ dst` send register bits to offset bits. When
//! the low `log2 e` offset bits (the element within a 4-byte word) are
//! images of single register bits in `S` and in `L`, and no other basis
//! (lane, warp, other registers) touches them, every shared 4-byte word is
//! held by one thread on each side. Packing each side by *those* register
//! bits ([`packing_of`]) makes the store and the load move whole
//! register words, with no byte moved within a word: the conversion is the
//! 32-bit conversion of the word maps ([`word_map`]).
//!
//! ```
//! use layout_codegen::shared_words::WordPacking;
//! // Registers 0..16 of 8-bit elements, packed by register bits 2 and 3:
//! let p = WordPacking::new(vec![2, 3], 16).unwrap();
//! assert_eq!(p.locate(0b1101), (0b01, 0b11)); // word 1, byte 3
//! assert_eq!(p.register(0b01, 0b11), 0b1101);
//! ```

use crate::error::{CodegenError, Result};
use linear_layout::{DimName, LinearLayout};
use serde::Serialize;

/// An XOR-linear offset map `offset(r, lane, warp) = ⊕ reg[i]·r_i ⊕
/// lane[i]·lane_i ⊕ warp[i]·warp_i` (one flattened output dim; element or
/// word units).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OffsetMap {
    /// Images of the register bits.
    pub reg: Vec<u64>,
    /// Images of the lane bits.
    pub lane: Vec<u64>,
    /// Images of the warp bits.
    pub warp: Vec<u64>,
}

impl OffsetMap {
    /// Reads a layout with in dims register/lane/warp[/block] and one out
    /// dim.
    pub fn from_layout(l: &LinearLayout) -> Result<Self> {
        if l.num_out_dims() != 1 {
            return Err(CodegenError::Invalid(format!(
                "an offset map has one output dim, this layout has {}",
                l.num_out_dims()
            )));
        }
        let get = |d: DimName| l.packed_bases(d).to_vec();
        Ok(OffsetMap {
            reg: get(DimName::REGISTER),
            lane: get(DimName::LANE),
            warp: get(DimName::WARP),
        })
    }

    /// The shared-memory offset map `smem⁻¹ ∘ layout`.
    pub fn through(layout: &LinearLayout, smem: &LinearLayout) -> Result<Self> {
        Self::from_layout(&layout.compose(&smem.invert()?)?)
    }

    /// Offset of register `r` of thread (`lane`, `warp`).
    pub fn offset(&self, r: u64, lane: u64, warp: u64) -> u64 {
        use linear_layout::gf2::xor_columns;
        xor_columns(&self.reg, r) ^ xor_columns(&self.lane, lane) ^ xor_columns(&self.warp, warp)
    }
}

/// Which registers share a 32-bit word: register `r` is slot
/// `Σ_k r[slot_bits[k]]·2^k` of word `r` with the slot bits removed (the
/// remaining bits in order, lowest first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WordPacking {
    /// Register bits selecting the slot (bit `k` of the slot is register
    /// bit `slot_bits[k]`).
    pub slot_bits: Vec<u32>,
    /// Registers (elements) per thread, a power of two.
    pub num_regs: u64,
}

impl WordPacking {
    /// A packing of `num_regs` registers by `slot_bits` (distinct, each
    /// below `log2 num_regs`).
    pub fn new(slot_bits: Vec<u32>, num_regs: u64) -> Result<Self> {
        if !num_regs.is_power_of_two() {
            return Err(CodegenError::Invalid(format!(
                "register count {num_regs} is not a power of two"
            )));
        }
        let n = num_regs.trailing_zeros();
        for (i, &b) in slot_bits.iter().enumerate() {
            if b >= n || slot_bits[..i].contains(&b) {
                return Err(CodegenError::Invalid(format!(
                    "slot bit {b} is repeated or not a register bit of {num_regs} registers"
                )));
            }
        }
        Ok(WordPacking {
            slot_bits,
            num_regs,
        })
    }

    /// The usual packing: `e` consecutive registers per word (register
    /// `e·j + k` in slot `k` of word `j`).
    pub fn consecutive(bits: u32, num_regs: u64) -> Result<Self> {
        let k = (32 / bits.max(1)).trailing_zeros();
        Self::new((0..k).collect(), num_regs)
    }

    /// Whether this is [`WordPacking::consecutive`].
    pub fn is_consecutive(&self) -> bool {
        self.slot_bits
            .iter()
            .enumerate()
            .all(|(i, &b)| b == i as u32)
    }

    /// Elements per word.
    pub fn per_word(&self) -> u64 {
        1 << self.slot_bits.len()
    }

    /// Words per thread.
    pub fn num_words(&self) -> u64 {
        self.num_regs / self.per_word()
    }

    /// `(word, slot)` of register `r`.
    pub fn locate(&self, r: u64) -> (u64, u64) {
        let slot = self
            .slot_bits
            .iter()
            .enumerate()
            .fold(0, |s, (k, &b)| s | (r >> b & 1) << k);
        (compress(r, self.slot_mask()), slot)
    }

    /// The register in `slot` of `word` (inverse of [`WordPacking::locate`]).
    pub fn register(&self, word: u64, slot: u64) -> u64 {
        let mut r = expand(word, self.slot_mask());
        for (k, &b) in self.slot_bits.iter().enumerate() {
            r |= (slot >> k & 1) << b;
        }
        r
    }

    fn slot_mask(&self) -> u64 {
        self.slot_bits.iter().fold(0, |m, &b| m | 1 << b)
    }

    /// A register mask (such as a free-variable mask) as a word-index mask:
    /// the slot bits dropped, the others compressed.
    pub fn word_mask(&self, reg_mask: u64) -> u64 {
        compress(reg_mask, self.slot_mask())
    }
}

/// `x` with the bits of `removed` deleted and the rest moved down.
fn compress(x: u64, removed: u64) -> u64 {
    let (mut out, mut k) = (0, 0);
    for i in 0..64 {
        if removed >> i & 1 == 0 {
            out |= (x >> i & 1) << k;
            k += 1;
        }
    }
    out
}

/// The inverse of [`compress`] on values: spreads `x` over the bits not in
/// `removed` (those stay zero).
fn expand(x: u64, removed: u64) -> u64 {
    let (mut out, mut k) = (0, 0);
    for i in 0..64 {
        if removed >> i & 1 == 0 {
            out |= (x >> k & 1) << i;
            k += 1;
        }
        if k == 64 {
            break;
        }
    }
    out
}

/// The packing under which every 4-byte word of `map`'s offsets is one
/// register word of one thread: offset bit `k < log2 e` must be the image
/// of a single register bit, and no other basis may touch those bits.
pub fn packing_of(map: &OffsetMap, bits: u32) -> Option<WordPacking> {
    if !matches!(bits, 8 | 16) {
        return None;
    }
    let k = (32 / bits).trailing_zeros();
    let low = (1u64 << k) - 1;
    let slot_bits: Vec<u32> = (0..k)
        .map(|j| map.reg.iter().position(|&b| b == 1 << j).map(|i| i as u32))
        .collect::<Option<_>>()?;
    let others_clear = map
        .reg
        .iter()
        .enumerate()
        .filter(|(i, _)| !slot_bits.contains(&(*i as u32)))
        .map(|(_, b)| b)
        .chain(&map.lane)
        .chain(&map.warp)
        .all(|b| b & low == 0);
    if !others_clear {
        return None;
    }
    WordPacking::new(slot_bits, 1 << map.reg.len()).ok()
}

/// The word-level map of `map` under packing `p` (from [`packing_of`]):
/// word `j` of thread (lane, warp) lives at word offset
/// `map.offset(p.register(j, 0), lane, warp) / e`.
pub fn word_map(map: &OffsetMap, p: &WordPacking) -> OffsetMap {
    let shift = p.slot_bits.len() as u32;
    OffsetMap {
        reg: map
            .reg
            .iter()
            .enumerate()
            .filter(|(i, _)| !p.slot_bits.contains(&(*i as u32)))
            .map(|(_, b)| b >> shift)
            .collect(),
        lane: map.lane.iter().map(|b| b >> shift).collect(),
        warp: map.warp.iter().map(|b| b >> shift).collect(),
    }
}

/// A conversion through shared memory on packed words, both directions:
/// each side's packing and word-level map, and the free-variable masks of
/// each side's store (word units).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SharedWordPlan {
    /// Packing of the source layout's registers.
    pub src: WordPacking,
    /// Packing of the destination layout's registers.
    pub dst: WordPacking,
    /// `smem⁻¹ ∘ src` on words.
    pub src_map: OffsetMap,
    /// `smem⁻¹ ∘ dst` on words.
    pub dst_map: OffsetMap,
    /// (word, lane, warp) duplicates to skip when storing from the source.
    pub src_free: (u64, u64, u64),
    /// The same for storing from the destination (the backward direction).
    pub dst_free: (u64, u64, u64),
    /// Whether the plans it serves synchronise each warp alone (the
    /// planner's [`crate::plan::SharedMemoryPlan::warp_private`], both
    /// directions; false where [`plan_shared_words`] made it).
    pub warp_private: bool,
}

/// (register, lane, warp) free-variable masks of `l`: the bits whose flip
/// reaches an element a lower index already holds (duplicates a store
/// skips).
pub fn free_masks(l: &LinearLayout) -> (u64, u64, u64) {
    let m = l.free_variable_masks();
    let get = |d: DimName| m.iter().find(|x| x.0 == d).map_or(0, |x| x.1);
    (
        get(DimName::REGISTER),
        get(DimName::LANE),
        get(DimName::WARP),
    )
}

/// The [`SharedWordPlan`] of `src ↔ dst` through `smem` for `bits`-wide
/// elements, when every shared word is one register word on both sides.
pub fn plan_shared_words(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bits: u32,
) -> Result<Option<SharedWordPlan>> {
    let st = OffsetMap::through(src, smem)?;
    let ld = OffsetMap::through(dst, smem)?;
    let (Some(ps), Some(pd)) = (packing_of(&st, bits), packing_of(&ld, bits)) else {
        return Ok(None);
    };
    let free = |l: &LinearLayout, p: &WordPacking| {
        let (r, ln, w) = free_masks(l);
        (p.word_mask(r), ln, w)
    };
    Ok(Some(SharedWordPlan {
        src_map: word_map(&st, &ps),
        dst_map: word_map(&ld, &pd),
        src_free: free(src, &ps),
        dst_free: free(dst, &pd),
        src: ps,
        dst: pd,
        warp_private: false,
    }))
}

/// The word-level layouts of `p`: `(src_w, dst_w, smem_w)` where
/// `src_w: (register, lane, warp) → word` is [`SharedWordPlan::src_map`] as a
/// layout onto the shared words (one out dim `dim0`), `dst_w` likewise, and
/// `smem_w` the identity on words. Any conversion planner run on them at
/// 32 bits (such as [`crate::partial::plan_partial`]) moves the packed
/// words of the element conversion: a word's slots are the same elements
/// on both sides (the shared word's), in the same order.
pub fn word_layouts(p: &SharedWordPlan) -> Result<(LinearLayout, LinearLayout, LinearLayout)> {
    let words = 1u64 << p.src_map.reg.len() << p.src_map.lane.len() << p.src_map.warp.len();
    let out = DimName::dim(0);
    let layout = |m: &OffsetMap| {
        let col = |bases: &[u64]| bases.iter().map(|&b| vec![b]).collect::<Vec<_>>();
        LinearLayout::new(
            vec![
                (DimName::REGISTER, col(&m.reg)),
                (DimName::LANE, col(&m.lane)),
                (DimName::WARP, col(&m.warp)),
                (DimName::BLOCK, vec![]),
            ],
            vec![(out, words)],
            true,
        )
    };
    Ok((
        layout(&p.src_map)?,
        layout(&p.dst_map)?,
        LinearLayout::identity_1d(words, DimName::OFFSET, out),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_and_register_are_inverse_for_every_packing_of_16_registers() {
        for a in 0..4u32 {
            for b in 0..4u32 {
                if a == b {
                    continue;
                }
                let p = WordPacking::new(vec![a, b], 16).unwrap();
                let mut seen = [false; 16];
                for r in 0..16 {
                    let (w, s) = p.locate(r);
                    assert!(w < 4 && s < 4);
                    // Slot bit k is register bit slot_bits[k].
                    assert_eq!(s & 1, r >> a & 1);
                    assert_eq!(s >> 1, r >> b & 1);
                    assert_eq!(p.register(w, s), r);
                    seen[(w * 4 + s) as usize] = true;
                }
                assert!(seen.iter().all(|&x| x));
            }
        }
    }

    #[test]
    fn bad_packings_are_errors_naming_the_value() {
        let e = WordPacking::new(vec![1, 1], 16).unwrap_err();
        assert!(e.to_string().contains("slot bit 1"), "{e}");
        let e = WordPacking::new(vec![4], 16).unwrap_err();
        assert!(e.to_string().contains("slot bit 4"), "{e}");
        let e = WordPacking::new(vec![0], 12).unwrap_err();
        assert!(e.to_string().contains("12"), "{e}");
    }

    #[test]
    fn packing_needs_single_register_images_and_clear_low_bits() {
        // Offsets: reg bits -> 2, 1, 16; lane -> 4, 8. Bytes of a word
        // are register bits 1 and 0 (in that order).
        let m = OffsetMap {
            reg: vec![2, 1, 16],
            lane: vec![4, 8],
            warp: vec![],
        };
        let p = packing_of(&m, 8).unwrap();
        assert_eq!(p.slot_bits, vec![1, 0]);
        // A lane touching byte bit 0 splits the word between threads.
        let split = OffsetMap {
            lane: vec![5, 8],
            ..m.clone()
        };
        assert_eq!(packing_of(&split, 8), None);
        // 16-bit elements need only offset bit 0.
        assert_eq!(packing_of(&m, 16).unwrap().slot_bits, vec![1]);
        assert_eq!(packing_of(&m, 32), None);
    }
}
