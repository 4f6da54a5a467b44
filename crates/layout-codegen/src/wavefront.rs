//! The one bank/wavefront counter of the crate: how many shared-memory
//! wavefronts (cycles of the shared-memory pipe) one warp-wide access costs.
//!
//! The simulator ([`crate::simulator`]), the planner's candidate ranking
//! ([`crate::choice`], [`crate::planner`]), partial plans
//! ([`crate::partial`]), matrix tiling ([`crate::shared_conversion`]) and gather
//! costs ([`crate::gather_cost`]) all count through [`phase_wavefronts`].
//!
//! ## The rule
//! Shared memory is `B` banks of 4 bytes: byte address `a` is in bank
//! `(a / 4) mod B`. A *phase* is a set of lanes served together; it costs the
//! largest number of distinct 4-byte words that any one bank holds among
//! the bytes its lanes access (equal words are broadcast, so a phase costs
//! at least 1).
//! * 32 banks (NVIDIA): a vector access of `w` bytes per lane runs in
//!   `max(1, 32 w / 128)` phases of consecutive lanes (32-bit: the warp;
//!   64-bit: two half warps; 128-bit: four quarter warps); `ldmatrix` /
//!   `stmatrix` run one phase per 8×16-byte matrix. This agreed with ncu's
//!   shared-memory wavefront counters on an H200 for the GPU suite's cases
//!   (`tests/sim_matrix.rs`).
//! * 64 banks (a model of AMD CDNA LDS, not measured): `max(1, lanes · w /
//!   256)` phases of consecutive lanes.
//!
//! ```
//! use layout_codegen::wavefront::{access_wavefronts, phase_wavefronts};
//! // A column of a 32-word-wide fp32 tile: every lane in bank 0.
//! let col: Vec<u64> = (0..32).map(|l| 128 * l).collect();
//! assert_eq!(phase_wavefronts(&col, 4, 32), 32);
//! // 128-bit vectors of consecutive lanes: four conflict-free quarter warps.
//! let row: Vec<u64> = (0..32).map(|l| 16 * l).collect();
//! assert_eq!(access_wavefronts(&row, 16), vec![1, 1, 1, 1]);
//! ```

use crate::error::{CodegenError, Result};
use crate::plan::Access;
use linear_layout::{DimName, LinearLayout};
use std::collections::HashMap;

/// Wavefronts of one phase: the largest number of distinct 4-byte words one
/// of `banks` banks holds among `bytes` bytes from each byte address of
/// `starts` (at least 1).
pub fn phase_wavefronts(starts: &[u64], bytes: u64, banks: u64) -> u64 {
    let mut words: Vec<u64> = starts
        .iter()
        .flat_map(|&s| (s / 4)..(s + bytes.max(1)).div_ceil(4))
        .collect();
    words.sort_unstable();
    words.dedup();
    let mut per_bank: HashMap<u64, u64> = HashMap::new();
    for w in words {
        *per_bank.entry(w % banks.max(1)).or_default() += 1;
    }
    per_bank.into_values().max().unwrap_or(1)
}

/// Per-phase wavefronts of one warp-wide vector access with `banks` banks
/// (32 or 64, see the module doc): `starts[l]` is lane `l`'s byte address,
/// each lane moves `bytes` bytes.
pub fn phases_of(banks: u64, starts: &[u64], bytes: u64) -> Vec<u64> {
    let nlanes = starts.len() as u64;
    let phases = if banks == 64 {
        (nlanes * bytes) / 256
    } else {
        (32 * bytes) / 128
    }
    .clamp(1, nlanes.max(1));
    let per = (nlanes / phases).max(1) as usize;
    starts
        .chunks(per)
        .map(|lanes| phase_wavefronts(lanes, bytes, banks))
        .collect()
}

/// Wavefronts of one warp-wide vector access under NVIDIA's rules (32
/// banks): `starts[l]` is lane `l`'s byte address, each lane moves `bytes`
/// bytes. Returns per-phase wavefronts.
pub fn access_wavefronts(starts: &[u64], bytes: u64) -> Vec<u64> {
    phases_of(32, starts, bytes)
}

/// Wavefronts of one warp-wide `ldmatrix`/`stmatrix` (32 banks): `rows[l]`
/// is the byte address of the 16-byte row lane `l` supplies; one phase per
/// matrix (rows `8i .. 8i + 8`). Returns per-matrix wavefronts.
pub fn matrix_wavefronts(rows: &[u64], count: u64) -> Vec<u64> {
    rows.chunks(8)
        .take(count as usize)
        .map(|m| phase_wavefronts(m, 16, 32))
        .collect()
}

/// Wavefronts of one vector [`Access`] (no matrix instruction) executed by
/// warp `warp` with `lanes` lanes, `bitwidth`-bit elements and `banks`
/// banks: the access's element addresses turned into bytes and counted by
/// [`phases_of`].
pub fn vector_access_wavefronts(
    access: &Access,
    lanes: u64,
    warp: u64,
    bitwidth: u32,
    banks: u64,
) -> u64 {
    let bytes = u64::from(bitwidth.max(8)) / 8;
    let starts: Vec<u64> = (0..lanes)
        .map(|l| access.address.eval(l, warp) * bytes)
        .collect();
    phases_of(banks, &starts, access.registers.len() as u64 * bytes)
        .iter()
        .sum()
}

/// Wavefronts per warp of writing (or reading) every register of the
/// distributed layout `reg` (`register, lane, warp[, block] → tensor`) into
/// the shared layout `shared` (`offset → tensor`, a bijection onto the
/// same tensor) with vectors of `vec` consecutive registers: the exact
/// count of the [module rule](self), summed over all accesses of warp 0.
///
/// `vec` registers `r, r+1, …, r+vec−1` (`vec` a power of two) must sit at
/// consecutive offsets: register bits `0 .. log2 vec` of `reg` must map to
/// offsets `1, 2, 4, …` through `shared⁻¹`, else an error names the bit.
/// Broadcast registers are counted once (the store a deduplicating emitter
/// does), broadcast lanes all access (reading the same word is free).
///
/// ```
/// use layout_codegen::wavefront::layout_access_wavefronts;
/// use linear_layout::{DimName, LinearLayout};
/// // 32 lanes, 4 registers of 32 bits; row-major 32×4 tile; shared = row major.
/// let reg = LinearLayout::new(
///     vec![
///         (DimName::REGISTER, vec![vec![1, 0], vec![2, 0]]),
///         (DimName::LANE, (0..5).map(|i| vec![0, 1 << i]).collect()),
///         (DimName::WARP, vec![]),
///     ],
///     vec![(DimName::dim(0), 4), (DimName::dim(1), 32)],
///     true,
/// ).unwrap();
/// let shared = LinearLayout::identity_1d(128, DimName::OFFSET, DimName::dim(0))
///     .reshape_outs(&[(DimName::dim(0), 4), (DimName::dim(1), 32)]).unwrap();
/// // Each lane stores 16 bytes: 4 quarter-warp phases, conflict-free.
/// assert_eq!(layout_access_wavefronts(&shared, &reg, 4, 32, 32).unwrap(), 4);
/// // Element by element: 4 stores of one word, lanes 16 bytes apart: lanes
/// // 0, 8, 16, 24 share a bank, 4 wavefronts each.
/// assert_eq!(layout_access_wavefronts(&shared, &reg, 1, 32, 32).unwrap(), 16);
/// ```
pub fn layout_access_wavefronts(
    shared: &LinearLayout,
    reg: &LinearLayout,
    vec: u64,
    bitwidth: u32,
    banks: u64,
) -> Result<u64> {
    crate::error::check_bitwidth(bitwidth)?;
    if !vec.is_power_of_two() {
        return Err(CodegenError::Invalid(format!(
            "vector width {vec} is not a power of two"
        )));
    }
    if ![32, 64].contains(&banks) {
        return Err(CodegenError::Invalid(format!(
            "32 or 64 shared-memory banks are modelled, not {banks}"
        )));
    }
    let reduced = crate::bank_conflicts::remove_broadcast_registers(reg)?;
    let m = reduced.invert_and_compose(shared)?;
    let get = |d: DimName| -> Vec<u64> {
        if m.has_in_dim(d) {
            m.packed_bases(d).to_vec()
        } else {
            vec![]
        }
    };
    let (regs, lanes) = (get(DimName::REGISTER), get(DimName::LANE));
    let vbits = vec.trailing_zeros() as usize;
    if vbits > regs.len() {
        return Err(CodegenError::Invalid(format!(
            "vector of {vec} registers, but the layout has {} distinct registers",
            1u64 << regs.len()
        )));
    }
    for (i, &o) in regs.iter().enumerate().take(vbits) {
        if o != 1 << i {
            return Err(CodegenError::Invalid(format!(
                "register bit {i} maps to offset {o}, not {}: registers are not contiguous \
                 for vectors of {vec}",
                1u64 << i
            )));
        }
    }
    let bytes = u64::from(bitwidth.max(8)) / 8;
    let nlanes = 1u64 << lanes.len();
    let mut total = 0;
    for g in 0..(1u64 << (regs.len() - vbits)) {
        let base = xor_of(&regs[vbits..], g);
        let starts: Vec<u64> = (0..nlanes)
            .map(|l| (base ^ xor_of(&lanes, l)) * bytes)
            .collect();
        total += phases_of(banks, &starts, vec * bytes).iter().sum::<u64>();
    }
    Ok(total)
}

/// `⨁_{i: bit i of x} bases[i]`.
fn xor_of(bases: &[u64], x: u64) -> u64 {
    bases
        .iter()
        .enumerate()
        .filter(|(i, _)| x >> i & 1 == 1)
        .fold(0, |a, (_, &b)| a ^ b)
}
