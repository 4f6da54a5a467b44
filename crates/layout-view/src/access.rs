//! One shared-memory access instruction, found by enumeration: which cells
//! of a shared layout the first `ld.shared`/`st.shared` of warp 0 touches,
//! and which of them conflict (NVIDIA's model).
//!
//! ## The model (computed here by listing addresses, not by a formula)
//! Shared memory has 32 banks of 4 bytes: byte `a` is in bank `(a / 4) mod
//! 32`. Offset `o` of a shared layout `S: offset × block → tensor` holds
//! `bits`-bit element `S(o, 0)` at bytes `o · bits / 8 ..` (CTA 0).
//!
//! A distributed layout `D: register × lane × warp × block → tensor` gives
//! every lane `l` of warp 0 (CTA 0) the set `O_l` of offsets holding its
//! elements (`O_l = {first o: S(o) = D(r, l, 0, 0)}` over all registers
//! `r`). A vector instruction moves the same registers, in the same order,
//! in every lane: the group of `v` registers around register `r` is lane
//! 0's registers at the `v`-aligned block of offsets around its register
//! `r`, and it is a *vector* when every lane holds those registers at `v`
//! consecutive offsets from a multiple of `v`, in that order. The vector
//! width `v` is the largest power of two with `v · bits ≤ 128` (and at most
//! the register count) for which every register's group is a vector. The
//! first instruction moves the group of register 0.
//!
//! Lanes run in phases of `min(lanes, 128 / max(4, v · bits / 8))`
//! consecutive lanes (one phase for 32-bit or narrower accesses, 2 or 4 for
//! 64- and 128-bit ones). A phase costs as many *wavefronts* as the largest
//! number of distinct 4-byte words any one bank must deliver (lanes reading
//! the same word share it); the instruction costs the sum over its phases.
//! A cell *conflicts* when its bank serves more than one distinct word in
//! its phase.
//!
//! ## Relation to Triton's count
//! Triton's `bankConflictsMemDesc` (`layout_codegen::bank_conflicts`) counts
//! extra wavefronts per phase. For linear layouts every phase of every
//! instruction is an XOR-translate of the first phase (a translate permutes
//! banks and words alike), so when this module's vector width equals
//! Triton's and no lane offset mixes sub-word bits with row bits (the one
//! case Triton's formula does not model), `wavefronts = phases ·
//! (conflicts + 1)`. `tests/access.rs` checks that on Triton's oracle.

use crate::table::LayoutKind;
use crate::{apply_named, check_shape, linearize, Result, ViewError, MAX_POINTS};
use linear_layout::{DimName, LinearLayout};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One lane's part of the access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneAccess {
    /// Lane id (warp 0).
    pub lane: u64,
    /// Phase of the lane.
    pub phase: u64,
    /// First offset of its vector (a multiple of `vec`).
    pub first_offset: u64,
    /// For each offset of the vector, the lane's first register holding it.
    pub registers: Vec<u64>,
}

/// The first access instruction of warp 0 (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessPattern {
    /// Element bit width.
    pub elem_bits: u64,
    /// Elements per lane (vector width).
    pub vec: u64,
    /// Bytes per lane.
    pub bytes_per_lane: u64,
    /// Lanes per phase.
    pub lanes_per_phase: u64,
    /// Phases of the instruction.
    pub phases: u64,
    /// Every lane of warp 0.
    pub lanes: Vec<LaneAccess>,
    /// Wavefronts of each phase.
    pub phase_wavefronts: Vec<u64>,
    /// Total wavefronts of the instruction.
    pub wavefronts: u64,
    /// Offset → lanes accessing it.
    pub touched: BTreeMap<u64, Vec<u64>>,
    /// Offsets whose bank serves more than one distinct word in the phase
    /// that touches them.
    pub conflicting: BTreeSet<u64>,
}

impl AccessPattern {
    /// Banks (0..32) spanned by the element at `offset`.
    pub fn banks_of(&self, offset: u64) -> Vec<u64> {
        words_of(offset, 1, self.elem_bits)
            .map(|w| w % 32)
            .collect()
    }

    /// One-line summary: vector, phases and wavefronts.
    pub fn summary(&self) -> String {
        let per: Vec<String> = self
            .phase_wavefronts
            .iter()
            .map(|w| w.to_string())
            .collect();
        let worst = self.phase_wavefronts.iter().copied().max().unwrap_or(1);
        format!(
            "First access of warp 0: {} element(s) ({} byte(s)) per lane, {} phase(s) of {} lanes; wavefronts: {} (per phase: {}; extra per phase: {})",
            self.vec,
            self.bytes_per_lane,
            self.phases,
            self.lanes_per_phase,
            self.wavefronts,
            per.join(", "),
            worst - 1
        )
    }
}

/// The 4-byte words covered by `n` elements of `bits` bits from `offset`.
fn words_of(offset: u64, n: u64, bits: u64) -> impl Iterator<Item = u64> {
    let start = offset * bits / 8;
    let end = (offset + n) * bits / 8; // exclusive, ≥ start + 1
    (start / 4)..end.div_ceil(4)
}

fn size_or_one(ll: &LinearLayout, d: DimName) -> u64 {
    if ll.has_in_dim(d) {
        ll.in_dim_size(d)
    } else {
        1
    }
}

/// The register group of `v` registers containing register `r`: lane 0's
/// first registers at the offsets of the `v`-aligned block around its
/// register `r`, in offset order, provided that every lane holds them at `v`
/// consecutive offsets from a multiple of `v`, in the same order.
fn group(offsets: &[Vec<u64>], r: u64, v: u64) -> Option<Vec<u64>> {
    let lane0 = &offsets[0];
    let base = lane0[r as usize] & !(v - 1);
    let regs: Vec<u64> = (base..base + v)
        .map(|o| lane0.iter().position(|&x| x == o).map(|i| i as u64))
        .collect::<Option<_>>()?;
    offsets
        .iter()
        .all(|row| {
            let b = row[regs[0] as usize];
            b % v == 0
                && regs
                    .iter()
                    .enumerate()
                    .all(|(k, &rk)| row[rk as usize] == b + k as u64)
        })
        .then_some(regs)
}

/// Enumerates the first access of warp 0 (CTA 0) of `reg` on `smem` (see
/// the module docs). Both layouts must have output sizes `shape`;
/// `elem_bits` is 8, 16, 32, 64 or 128.
pub fn first_access(
    reg: &LinearLayout,
    smem: &LinearLayout,
    shape: &[u64],
    elem_bits: u64,
) -> Result<AccessPattern> {
    if !(8..=128).contains(&elem_bits) || !elem_bits.is_power_of_two() {
        return Err(ViewError::BadParameter(format!(
            "element bit width must be 8, 16, 32, 64 or 128, got {elem_bits}"
        )));
    }
    check_shape(smem, shape)?;
    check_shape(reg, shape)?;
    if LayoutKind::of(smem)? != LayoutKind::Shared {
        return Err(ViewError::WrongKind(
            "the accessed layout must be a shared layout (offset/block)".into(),
        ));
    }
    if LayoutKind::of(reg)? != LayoutKind::Distributed {
        return Err(ViewError::WrongKind(
            "--access needs a distributed layout (register/lane/warp/block)".into(),
        ));
    }
    let elements: u64 = shape.iter().product();
    let noff = size_or_one(smem, DimName::OFFSET);
    if elements > MAX_POINTS || noff > MAX_POINTS {
        return Err(ViewError::TooLarge {
            what: "memory slots",
            count: elements.max(noff),
        });
    }
    // Element → its first offset in CTA 0.
    let mut where_is: HashMap<u64, u64> = HashMap::new();
    for o in 0..noff {
        let e = linearize(
            &apply_named(smem, &[(DimName::OFFSET, o), (DimName::BLOCK, 0)]),
            shape,
        );
        where_is.entry(e).or_insert(o);
    }
    let nreg = size_or_one(reg, DimName::REGISTER);
    let nlane = size_or_one(reg, DimName::LANE);
    // offsets[l][r]: offset of register r of lane l (warp 0, CTA 0).
    let mut offsets: Vec<Vec<u64>> = Vec::with_capacity(nlane as usize);
    for l in 0..nlane {
        let mut row = Vec::with_capacity(nreg as usize);
        for r in 0..nreg {
            let c = apply_named(
                reg,
                &[
                    (DimName::REGISTER, r),
                    (DimName::LANE, l),
                    (DimName::WARP, 0),
                    (DimName::BLOCK, 0),
                ],
            );
            let e = linearize(&c, shape);
            let o = *where_is.get(&e).ok_or_else(|| {
                ViewError::BadParameter(format!(
                    "element {c:?} (register {r}, lane {l}) is not stored in the shared layout"
                ))
            })?;
            row.push(o);
        }
        offsets.push(row);
    }
    // Vector width: the largest v for which every register group is a
    // vector (see the module docs).
    let mut vec = 1u64;
    while vec * 2 * elem_bits <= 128 && vec * 2 <= nreg {
        let v = vec * 2;
        if (0..nreg).all(|r| group(&offsets, r, v).is_some()) {
            vec = v;
        } else {
            break;
        }
    }
    let regs = group(&offsets, 0, vec)
        .ok_or_else(|| ViewError::BadParameter("register 0 does not start a vector".into()))?;
    let bytes_per_lane = vec * elem_bits / 8;
    let lanes_per_phase = nlane.min(128 / bytes_per_lane.max(4)).max(1);
    let phases = nlane.div_ceil(lanes_per_phase);
    let mut lanes = Vec::with_capacity(nlane as usize);
    let mut touched: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for l in 0..nlane {
        let first_offset = offsets[l as usize][regs[0] as usize];
        let registers = regs.clone();
        for o in first_offset..first_offset + vec {
            touched.entry(o).or_default().push(l);
        }
        lanes.push(LaneAccess {
            lane: l,
            phase: l / lanes_per_phase,
            first_offset,
            registers,
        });
    }
    let mut phase_wavefronts = Vec::with_capacity(phases as usize);
    let mut conflicting = BTreeSet::new();
    for p in 0..phases {
        let in_phase: Vec<&LaneAccess> = lanes.iter().filter(|a| a.phase == p).collect();
        // bank → distinct words
        let mut banks: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
        for a in &in_phase {
            for w in words_of(a.first_offset, vec, elem_bits) {
                banks.entry(w % 32).or_default().insert(w);
            }
        }
        let wf = banks.values().map(|s| s.len() as u64).max().unwrap_or(1);
        phase_wavefronts.push(wf);
        for a in &in_phase {
            for o in a.first_offset..a.first_offset + vec {
                if words_of(o, 1, elem_bits).any(|w| banks[&(w % 32)].len() > 1) {
                    conflicting.insert(o);
                }
            }
        }
    }
    Ok(AccessPattern {
        elem_bits,
        vec,
        bytes_per_lane,
        lanes_per_phase,
        phases,
        lanes,
        wavefronts: phase_wavefronts.iter().sum(),
        phase_wavefronts,
        touched,
        conflicting,
    })
}
