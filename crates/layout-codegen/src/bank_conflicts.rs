//! Shared-memory bank conflicts of a distributed layout reading or writing a
//! shared layout (Triton's `bankConflictsMemDesc`, Gluon's
//! `gl.bank_conflicts`), the exact count of the hardware model, and an
//! independent brute-force counter.
//!
//! ## The hardware model (NVIDIA)
//! Shared memory has 32 banks of 4 bytes: byte address `a` lives in bank
//! `(a / 4) mod 32`, in *row* `a / 128`. A warp-wide access of `w` bytes per
//! lane is served in `max(1, 32 w / 128)` *phases* (consecutive groups of
//! 32, 16 or 8 lanes for 32-, 64- and 128-bit accesses); a phase costs as
//! many *wavefronts* as the largest number of distinct 4-byte words any one
//! bank must deliver (lanes reading the same word share it: broadcast).
//! The *conflicts* of an access are its extra wavefronts per phase:
//! `wavefronts_per_phase − 1`.
//!
//! ## Triton's analytic count
//! `cvt = reg.invert_and_compose(smem)` maps (register, lane, warp) to the
//! element offset. Registers are reordered so that the widest run of `vec`
//! registers covers `vec` consecutive offsets (`largest_vectorisation`); each
//! lane then accesses `vec · bitwidth` bits at once. The offset bits are
//! split into `vector` (log2 vec bits), `bank` (enough bits to cover one
//! 128-byte row, capped by the allocation) and `segment` (the row). Let
//! `Seg` be the tensor coordinates of the segment bits (the smem layout's
//! images of the segment offsets) and `Lane` the lane bases of one phase
//! (the lane bases of `reg`, flattened, minus the last log2(vec·bitwidth/32)
//! of them). Then
//!
//! `conflicts = 2^dim(span(Seg) ∩ span(Lane)) − 1`.
//!
//! Two lanes of one phase that differ only by segment bits hit the same bank
//! in different rows; lanes that differ in bank or vector bits do not
//! conflict (other banks, or the same word: broadcast).
//!
//! ## Where Triton's count and the hardware differ
//! Triton's formula is exact unless some lane offset has *sub-word* bits
//! (offset bits inside one 4-byte word, for accesses narrower than a word)
//! together with other bits: two lanes at `o` and `o ⊕ 1 ⊕ 2^r` (byte 0 of
//! one row, byte 1 of another) hit the same bank in different rows, which
//! the formula counts as free. [`exact_conflicts`] is the closed form of the
//! hardware model for any linear access, and [`brute_force_bank_conflicts`]
//! enumerates every address. Measured on Triton's data: the formula equals
//! Triton's answer on all 661 cases, the brute force equals it on every case
//! without sub-word mixing and is higher on some of the others, and the exact
//! formula equals the brute force everywhere (tests/oracle_bank_conflicts.rs,
//! tests/bank_conflicts_props.rs).

use crate::error::{check_bitwidth, CodegenError, Result};
use crate::wavefront::phase_wavefronts;
use linear_layout::utils::{action_remove_broadcasted_regs, largest_vectorisation};
use linear_layout::{gf2, ColumnAction, DimName, LinearLayout};
use std::collections::HashMap;

/// The in-dim names of a reshaped shared layout.
pub fn vector_dim() -> DimName {
    DimName::new("vector")
}
/// See [`vector_dim`].
pub fn bank_dim() -> DimName {
    DimName::new("bank")
}
/// See [`vector_dim`].
pub fn segment_dim() -> DimName {
    DimName::new("segment")
}
/// See [`vector_dim`].
pub fn reps_dim() -> DimName {
    DimName::new("reps")
}

/// The pieces of Triton's analytic bank-conflict count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankConflictAnalysis {
    /// Elements per vector access (after the register permutation).
    pub vec: u64,
    /// Register permutation applied to the broadcast-free register layout
    /// (new register `i` is old register `perm[i]`, as basis indices).
    pub perm: Vec<usize>,
    /// Size of the `bank` in dim (elements covered by one 128-byte row, in
    /// units of vectors), capped by the allocation size.
    pub bank_size: u64,
    /// The flattened tensor coordinates of the segment offsets.
    pub segment_bases: Vec<u64>,
    /// The flattened lane bases of one phase.
    pub lane_tile: Vec<u64>,
    /// `dim(span(segment_bases) ∩ span(lane_tile))`.
    pub log2_wavefronts: u32,
    /// `2^log2_wavefronts − 1`.
    pub conflicts: u64,
}

/// The shared layout `smem` (in dims `offset` [, `block`] → tensor) and the
/// register layout `reg` (in dims `register`, `lane`, `warp` [, `block`] →
/// tensor) must have the same out dims in the same order with the same sizes.
fn check_pair(reg: &LinearLayout, smem: &LinearLayout) -> Result<()> {
    if !smem.has_in_dim(DimName::OFFSET) {
        return Err(CodegenError::MissingDim(DimName::OFFSET));
    }
    for d in [DimName::REGISTER, DimName::LANE] {
        if !reg.has_in_dim(d) {
            return Err(CodegenError::MissingDim(d));
        }
    }
    if reg.out_dims() != smem.out_dims() {
        return Err(CodegenError::Invalid(format!(
            "the register layout's out dims {:?} differ from the shared layout's {:?}",
            reg.out_dims(),
            smem.out_dims()
        )));
    }
    Ok(())
}

/// Triton's `bankConflictsMemDesc`: extra wavefronts per phase of every
/// ld.shared / st.shared of `reg` on `smem` (NVIDIA: 32 banks × 4 bytes).
pub fn bank_conflicts(reg: &LinearLayout, smem: &LinearLayout, bitwidth: u32) -> Result<u64> {
    Ok(analyse_bank_conflicts(reg, smem, bitwidth)?.conflicts)
}

/// Removes the zero `register` bases (register broadcast).
pub fn remove_broadcast_registers(reg: &LinearLayout) -> Result<LinearLayout> {
    Ok(action_remove_broadcasted_regs(reg).apply(reg)?)
}

/// [`bank_conflicts`] with its intermediate values.
pub fn analyse_bank_conflicts(
    reg: &LinearLayout,
    smem: &LinearLayout,
    bitwidth: u32,
) -> Result<BankConflictAnalysis> {
    check_bitwidth(bitwidth)?;
    check_pair(reg, smem)?;
    let reg_nb = remove_broadcast_registers(reg)?;
    let cvt = reg_nb.invert_and_compose(smem)?;
    let (vec, perm) = largest_vectorisation(&cvt, DimName::OFFSET, bitwidth, None);
    let reg_nb = perm.apply(&reg_nb)?;
    let total = smem.total_in_dim_size();
    let bank_size = (1024 / (vec * bitwidth as u64)).min(total);
    if bank_size * vec > total {
        return Err(CodegenError::Invalid(format!(
            "the shared allocation ({total} elements) is smaller than one vector of {vec} \
             elements times a bank row of {bank_size} vectors"
        )));
    }
    let segment_size = total / (bank_size * vec);
    let reshaped = smem.reshape_ins(&[
        (vector_dim(), vec),
        (bank_dim(), bank_size),
        (segment_dim(), segment_size),
    ])?;
    let segment_bases = reshaped.packed_bases(segment_dim()).to_vec();
    let mut lane_tile = reg_nb.packed_bases(DimName::LANE).to_vec();
    let log2_phases = ((vec * bitwidth as u64) / 32).max(1).trailing_zeros() as usize;
    lane_tile.truncate(lane_tile.len().saturating_sub(log2_phases));
    let log2_wavefronts = span_intersection_dim(&segment_bases, &lane_tile);
    Ok(BankConflictAnalysis {
        vec,
        perm: perm.action().to_vec(),
        bank_size,
        segment_bases,
        lane_tile,
        log2_wavefronts,
        conflicts: (1u64 << log2_wavefronts) - 1,
    })
}

/// `dim(span(a) ∩ span(b)) = rank(a) + rank(b) − rank(a ∪ b)`.
pub fn span_intersection_dim(a: &[u64], b: &[u64]) -> u32 {
    let both: Vec<u64> = a.iter().chain(b).copied().collect();
    gf2::rank(a) + gf2::rank(b) - gf2::rank(&both)
}

/// The exact extra wavefronts per phase of an access whose lanes (one
/// phase) sit at element offsets spanned by `lane_offsets` (offset of each
/// lane bit), each lane moving `vec` consecutive `bitwidth`-bit elements
/// (`vec` aligned): with `u` = log2 of the access unit in elements (a
/// vector, or one 4-byte word when a vector is smaller) and `r` = log2 of
/// the elements in one 128-byte row, `φ(t) = t >> u` and
/// `bank(t) = (t mod 2^r) >> u`, a phase costs
/// `2^(rank φ(T) − rank bank(T))` wavefronts (distinct words per bank of an
/// affine set of words). Equal to Triton's formula when no lane offset has
/// bits below `u`.
pub fn exact_conflicts(lane_offsets: &[u64], vec: u64, bitwidth: u32) -> u64 {
    let word_log2 = if bitwidth < 32 {
        (32 / bitwidth).trailing_zeros()
    } else {
        0
    };
    let u = vec.trailing_zeros().max(word_log2);
    let r = (1024 / bitwidth).trailing_zeros();
    let phi: Vec<u64> = lane_offsets.iter().map(|t| t >> u).collect();
    let bank: Vec<u64> = lane_offsets
        .iter()
        .map(|t| (t & ((1u64 << r) - 1)) >> u)
        .collect();
    (1u64 << (gf2::rank(&phi) - gf2::rank(&bank))) - 1
}

/// The lane bases of one phase, as element offsets: `lane_offsets` minus
/// the last log2(vec·bitwidth/32) (64- and 128-bit accesses run in 2 or 4
/// phases of consecutive lanes).
pub fn phase_lane_offsets(lane_offsets: &[u64], vec: u64, bitwidth: u32) -> Vec<u64> {
    let log2_phases = ((vec * bitwidth as u64) / 32).max(1).trailing_zeros() as usize;
    let mut t = lane_offsets.to_vec();
    t.truncate(t.len().saturating_sub(log2_phases));
    t
}

/// [`exact_conflicts`] of `reg` on `smem` with Triton's vectorisation:
/// what the hardware model of [`brute_force_bank_conflicts`] counts.
pub fn exact_bank_conflicts(reg: &LinearLayout, smem: &LinearLayout, bitwidth: u32) -> Result<u64> {
    check_bitwidth(bitwidth)?;
    check_pair(reg, smem)?;
    let reg_nb = remove_broadcast_registers(reg)?;
    let cvt = reg_nb.invert_and_compose(smem)?;
    let (vec, perm) = largest_vectorisation(&cvt, DimName::OFFSET, bitwidth, None);
    let cvt = perm.apply(&cvt)?;
    let off_mask = (1u64 << smem.in_dim_size_log2(DimName::OFFSET)) - 1;
    let lanes: Vec<u64> = cvt
        .packed_bases(DimName::LANE)
        .iter()
        .map(|c| c & off_mask)
        .collect();
    Ok(exact_conflicts(
        &phase_lane_offsets(&lanes, vec, bitwidth),
        vec,
        bitwidth,
    ))
}

/// Result of the brute-force counter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BruteForceCount {
    /// Elements per lane per access.
    pub vec: u64,
    /// Number of warp-wide vector accesses (per warp, summed over warps).
    pub accesses: u64,
    /// Phases per access.
    pub phases_per_access: u64,
    /// Total wavefronts over all accesses and warps.
    pub wavefronts: u64,
    /// Largest `wavefronts − 1` of any single phase.
    pub max_conflicts: u64,
    /// Smallest `wavefronts − 1` of any single phase.
    pub min_conflicts: u64,
}

/// Counts wavefronts by enumerating every address: for each warp and each
/// vector access (group of `vec` registers chosen as Triton does), every lane's
/// element offset is found by looking its tensor coordinate up in the
/// enumerated shared layout (a table, not the algebra), turned into byte
/// addresses, grouped by phase, and each phase costs the largest number of
/// distinct 4-byte words any bank serves. Also checks that each vector
/// really covers `vec` consecutive, aligned offsets.
pub fn brute_force_bank_conflicts(
    reg: &LinearLayout,
    smem: &LinearLayout,
    bitwidth: u32,
) -> Result<BruteForceCount> {
    check_bitwidth(bitwidth)?;
    check_pair(reg, smem)?;
    // Where each tensor element lives (first offset, CTA 0).
    let mut where_is: HashMap<u64, u64> = HashMap::new();
    let noff = smem.in_dim_size(DimName::OFFSET);
    for o in 0..noff {
        let coord = smem.apply_values(&offset_input(smem, o));
        where_is.entry(coord).or_insert(o);
    }
    let reg_nb = remove_broadcast_registers(reg)?;
    // The vector grouping (an instruction choice, taken from Triton's rule).
    let cvt = reg_nb.invert_and_compose(smem)?;
    let (vec, perm) = largest_vectorisation(&cvt, DimName::OFFSET, bitwidth, None);
    let reg_nb: LinearLayout = perm.apply(&reg_nb)?;
    let nreg = reg_nb.in_dim_size(DimName::REGISTER);
    let nlane = reg_nb.in_dim_size(DimName::LANE);
    let nwarp = if reg_nb.has_in_dim(DimName::WARP) {
        reg_nb.in_dim_size(DimName::WARP)
    } else {
        1
    };
    let bytes_per_lane = vec * bitwidth as u64 / 8;
    let phases = ((32 * bytes_per_lane) / 128).max(1).min(nlane.max(1));
    let lanes_per_phase = (nlane / phases).max(1);
    let mut out = BruteForceCount {
        vec,
        accesses: 0,
        phases_per_access: phases,
        wavefronts: 0,
        max_conflicts: 0,
        min_conflicts: u64::MAX,
    };
    let lookup = |r: u64, l: u64, w: u64| -> Result<u64> {
        let coord = reg_nb.apply_values(&hw_input(&reg_nb, r, l, w));
        where_is.get(&coord).copied().ok_or_else(|| {
            CodegenError::Invalid(format!(
                "element {:?} of the register layout is not stored in the shared layout",
                reg_nb.unpack(coord)
            ))
        })
    };
    for w in 0..nwarp {
        for first in (0..nreg).step_by(vec as usize) {
            out.accesses += 1;
            for p in 0..phases {
                // Byte address of each lane of the phase.
                let mut starts: Vec<u64> = Vec::with_capacity(lanes_per_phase as usize);
                for l in p * lanes_per_phase..(p + 1) * lanes_per_phase {
                    let base = lookup(first, l, w)?;
                    if base & (vec - 1) != 0 {
                        return Err(CodegenError::Invalid(format!(
                            "vector at register {first} of lane {l} starts at offset {base}, \
                             not a multiple of {vec}"
                        )));
                    }
                    for j in 1..vec {
                        let o = lookup(first + j, l, w)?;
                        if o != base + j {
                            return Err(CodegenError::Invalid(format!(
                                "register {} of lane {l} is at offset {o}, expected {}",
                                first + j,
                                base + j
                            )));
                        }
                    }
                    starts.push(base * bitwidth as u64 / 8);
                }
                let wf = phase_wavefronts(&starts, bytes_per_lane, 32);
                out.wavefronts += wf;
                out.max_conflicts = out.max_conflicts.max(wf - 1);
                out.min_conflicts = out.min_conflicts.min(wf - 1);
            }
        }
    }
    if out.min_conflicts == u64::MAX {
        out.min_conflicts = 0;
    }
    Ok(out)
}

/// The input vector (in `layout`'s in-dim order) for offset `o`, block 0.
fn offset_input(layout: &LinearLayout, o: u64) -> Vec<u64> {
    layout
        .in_dim_names()
        .map(|d| if d == DimName::OFFSET { o } else { 0 })
        .collect()
}

/// The input vector for (register, lane, warp), block 0.
pub(crate) fn hw_input(layout: &LinearLayout, r: u64, l: u64, w: u64) -> Vec<u64> {
    hw_input_block(layout, r, l, w, 0)
}

/// The input vector for (register, lane, warp, block).
/// `layout(register, lane, warp, block)` packed (first out dim in the low
/// bits; absent in dims ignored, so their value must be 0).
///
/// Each dim's image ([`LinearLayout::apply_in_dim`]) XORed, without
/// building an input vector: the planner's hottest function, 22% of a
/// profile of the engine's `price_shortcut` test (2026-11-29, this 2-core
/// machine, `perf record`) while it allocated one.
pub fn hw_apply(layout: &LinearLayout, reg: u64, lane: u64, warp: u64, block: u64) -> u64 {
    layout.apply_in_dim(DimName::REGISTER, reg)
        ^ layout.apply_in_dim(DimName::LANE, lane)
        ^ layout.apply_in_dim(DimName::WARP, warp)
        ^ layout.apply_in_dim(DimName::BLOCK, block)
}

/// The in-dim values of `(register, lane, warp, block)` in `layout`'s in-dim
/// order (0 for any other in dim).
pub(crate) fn hw_input_block(layout: &LinearLayout, r: u64, l: u64, w: u64, b: u64) -> Vec<u64> {
    layout
        .in_dim_names()
        .map(|d| {
            if d == DimName::REGISTER {
                r
            } else if d == DimName::LANE {
                l
            } else if d == DimName::WARP {
                w
            } else if d == DimName::BLOCK {
                b
            } else {
                0
            }
        })
        .collect()
}

/// Applies a register permutation given as basis indices.
pub fn apply_register_perm(layout: &LinearLayout, perm: &[usize]) -> Result<LinearLayout> {
    let n = layout.in_dim_size_log2(DimName::REGISTER);
    Ok(ColumnAction::new(perm.to_vec(), DimName::REGISTER, n)?.apply(layout)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(reg: Vec<Vec<u64>>, lane: Vec<Vec<u64>>, outs: Vec<(DimName, u64)>) -> LinearLayout {
        LinearLayout::new(
            vec![
                (DimName::REGISTER, reg),
                (DimName::LANE, lane),
                (DimName::WARP, vec![]),
                (DimName::BLOCK, vec![]),
            ],
            outs,
            false,
        )
        .unwrap()
    }

    /// 32 lanes each holding one row of a 32×32 f32 tile (lane `l` = row
    /// `l`, registers along dim1) against a row-major shared tile.
    #[test]
    fn column_read_of_row_major_tile() {
        let (d0, d1) = (DimName::dim(0), DimName::dim(1));
        let p = |k: u32| 1u64 << k;
        let reg = dist(
            (0..5).map(|k| vec![0, p(k)]).collect(),
            (0..5).map(|k| vec![p(k), 0]).collect(),
            vec![(d0, 32), (d1, 32)],
        );
        let smem = LinearLayout::new(
            vec![(
                DimName::OFFSET,
                (0..5)
                    .map(|k| vec![0, p(k)])
                    .chain((0..5).map(|k| vec![p(k), 0]))
                    .collect(),
            )],
            vec![(d0, 32), (d1, 32)],
            true,
        )
        .unwrap();
        // Registers run along dim1 = consecutive offsets: vec = 4 (128 bits).
        let a = analyse_bank_conflicts(&reg, &smem, 32).unwrap();
        assert_eq!(a.vec, 4);
        // 128-bit accesses: 4 phases of 8 lanes; the 8 lanes of a phase
        // read rows 0..8 at offsets 0, 32, ..., 224: byte 0, 128, ...: all in
        // banks 0..3, 8 distinct words each -> 7 extra wavefronts.
        assert_eq!(a.conflicts, 7);
        let b = brute_force_bank_conflicts(&reg, &smem, 32).unwrap();
        assert_eq!((b.max_conflicts, b.min_conflicts), (7, 7));
    }

    /// A lane basis mixing a sub-word bit with a segment bit: the analytic
    /// formula sees no conflict, the hardware does (documented limitation).
    #[test]
    fn mixed_lane_basis_is_where_formula_and_hardware_differ() {
        let d0 = DimName::dim(0);
        // 8-bit elements, 1 lane bit mapping to offset 1 ^ 128 plus 4 lane
        // bits on words 1..16: lane 1 hits byte 1 of row 1, same bank as lane 0.
        let reg = dist(
            vec![vec![2], vec![64]],
            vec![vec![129], vec![4], vec![8], vec![16], vec![32]],
            vec![(d0, 256)],
        );
        let smem = LinearLayout::identity_1d(256, DimName::OFFSET, d0);
        let a = analyse_bank_conflicts(&reg, &smem, 8).unwrap();
        let b = brute_force_bank_conflicts(&reg, &smem, 8).unwrap();
        assert_eq!(a.conflicts, 0);
        assert_eq!(b.max_conflicts, 1);
    }
}
