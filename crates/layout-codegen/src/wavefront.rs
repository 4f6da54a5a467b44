//! The one bank/wavefront counter of the crate: how many shared-memory
//! wavefronts (cycles of the shared-memory pipe) one warp-wide access costs.
//!
//! The simulator ([`crate::simulator`]), the planner's candidate ranking
//! ([`crate::choice`], [`crate::planner`]), partial plans
//! ([`crate::partial`]), matrix tiling ([`crate::shared_conversion`]), the
//! shared-layout search ([`crate::swizzle_search`]), the brute-force bank
//! conflict counter ([`crate::bank_conflicts::brute_force_bank_conflicts`])
//! and gather costs ([`crate::gather_cost`]) all count through
//! [`phase_wavefronts`]. This module depends on no other module of the
//! crate.
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

use std::collections::HashMap;

/// Wavefronts of one phase: the largest number of distinct 4-byte words one
/// of `banks` banks holds among `bytes` bytes from each byte address of
/// `starts` (at least 1).
pub fn phase_wavefronts(starts: &[u64], bytes: u64, banks: u64) -> u64 {
    let words = |s: u64| (s / 4)..(s + bytes.max(1)).div_ceil(4);
    // A lane touches at most `⌈bytes / 4⌉ + 1` words: a warp's phase fits
    // a stack buffer (the planner's and the simulator's hot path).
    let per_lane = bytes.max(1).div_ceil(4) + 1;
    if (starts.len() as u64).saturating_mul(per_lane) <= STACK_WORDS as u64 {
        let mut buf = [0u64; STACK_WORDS];
        let mut n = 0;
        for w in starts.iter().flat_map(|&s| words(s)) {
            buf[n] = w;
            n += 1;
        }
        return max_per_bank(&mut buf[..n], banks);
    }
    let mut all: Vec<u64> = starts.iter().flat_map(|&s| words(s)).collect();
    max_per_bank(&mut all, banks)
}

/// Words of one phase that [`phase_wavefronts`] counts without allocating.
const STACK_WORDS: usize = 256;

/// The largest number of distinct words (of `words`, sorted in place) in
/// one of `banks` banks, at least 1.
fn max_per_bank(words: &mut [u64], banks: u64) -> u64 {
    words.sort_unstable();
    let banks = banks.max(1);
    let distinct = words
        .iter()
        .enumerate()
        .filter(|&(i, w)| i == 0 || words[i - 1] != *w)
        .map(|(_, &w)| w);
    if banks <= 64 {
        // The hardware's 32 or 64 banks: count in an array.
        let mut per_bank = [0u64; 64];
        for w in distinct {
            per_bank[(w % banks) as usize] += 1;
        }
        return per_bank.into_iter().max().filter(|&m| m > 0).unwrap_or(1);
    }
    let mut per_bank: HashMap<u64, u64> = HashMap::new();
    for w in distinct {
        *per_bank.entry(w % banks).or_default() += 1;
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

/// Per-phase wavefronts of one warp-wide vector access under NVIDIA's rules
/// (32 banks) in which some lanes may not take part (a predicated store):
/// `starts[l]` is lane `l`'s byte address, `None` where lane `l` does not
/// access; each lane moves `bytes` bytes. Phases are cut from all lanes as in
/// [`access_wavefronts`] (`max(1, 32 · bytes / 128)` phases of consecutive
/// lanes); a phase in which no lane accesses is not issued and is left out
/// of the result.
///
/// Measured with ncu on an H200 (2026-11-29, 336 one-warp accesses of 4, 8
/// and 16 bytes under fourteen lane masks: `tests/predicated_wavefronts_ncu.rs`,
/// `bench/gpu/results/2026-11-29-h200/predicated/`): equal for every store;
/// for loads equal on 155 of 168 and above on the other 13, where the load
/// unit served two phases' active lanes in one wavefront (never fewer than
/// the most distinct words of one bank among all active lanes). For loads
/// the count is therefore an upper bound.
///
/// ```
/// use layout_codegen::wavefront::predicated_access_wavefronts;
/// // 16-byte vectors: four quarter warps; only lanes 0..8 and 24..32 store,
/// // lanes 0 and 4 of the first quarter in the same bank.
/// let starts: Vec<Option<u64>> = (0..32u64)
///     .map(|l| (l < 8 || l >= 24).then(|| if l == 4 { 128 } else { 16 * l }))
///     .collect();
/// assert_eq!(predicated_access_wavefronts(&starts, 16), vec![2, 1]);
/// ```
pub fn predicated_access_wavefronts(starts: &[Option<u64>], bytes: u64) -> Vec<u64> {
    let nlanes = starts.len() as u64;
    let phases = ((32 * bytes) / 128).clamp(1, nlanes.max(1));
    let per = (nlanes / phases).max(1) as usize;
    starts
        .chunks(per)
        .filter_map(|lanes| {
            // The active lanes' addresses, on the stack for a warp's phase.
            let mut buf = [0u64; 64];
            let active: Vec<u64>;
            let active: &[u64] = if lanes.len() <= buf.len() {
                let mut n = 0;
                for &a in lanes.iter().flatten() {
                    buf[n] = a;
                    n += 1;
                }
                &buf[..n]
            } else {
                active = lanes.iter().flatten().copied().collect();
                &active
            };
            (!active.is_empty()).then(|| phase_wavefronts(active, bytes, 32))
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition: distinct words per bank counted in a map.
    fn by_map(starts: &[u64], bytes: u64, banks: u64) -> u64 {
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

    /// The array count of `phase_wavefronts` equals the map's on
    /// pseudo-random lane addresses, every width and bank count (and no
    /// lanes at all).
    #[test]
    fn array_count_equals_the_map_count() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for case in 0..4000 {
            let n = [0usize, 1, 8, 16, 32, 64][case % 6];
            let starts: Vec<u64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % 4096) & !((1u64 << (case % 5)) - 1)
                })
                .collect();
            for bytes in [0, 1, 2, 4, 8, 16] {
                for banks in [0, 1, 16, 32, 64, 128] {
                    assert_eq!(
                        phase_wavefronts(&starts, bytes, banks),
                        by_map(&starts, bytes, banks),
                        "{starts:?} {bytes} {banks}"
                    );
                }
            }
        }
    }
}
