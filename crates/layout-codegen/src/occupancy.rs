//! How many CTAs of a conversion kernel should share one SM: the
//! `minBlocksPerMultiprocessor` of its `__launch_bounds__(threads, k)`,
//! from a model of the registers a plan keeps live.
//!
//! With `k` CTAs of `t` threads resident, each thread may hold at most
//! `cap(k) = ⌊R_SM / (k·t)⌋` registers (rounded down to the allocation
//! granule, [`SmLimits::register_cap`]). ptxas left alone picks its own
//! budget, which on Hopper kept the 128×128 16-bit conversions at ~190
//! registers (two CTAs per SM) and the 8-warp 128×256 ones at ~200 (one
//! CTA per SM), too few warps to hide the shared-memory latency behind the
//! barriers. We pick the largest `k` whose cap still holds the data the
//! plan keeps live:
//!
//! ```text
//! need = ⌈1.3 · data · copies⌉ + 32
//! data   = 32-bit registers one copy of a thread's elements takes
//!          (8-bit: one per element, as emitted; 16/32/64-bit: packed words)
//! copies = 1 when the conversion goes through shared memory (the store
//!          consumes the source before the barrier, the load makes the
//!          destination after it), 2 for warp shuffles and partial plans
//!          (source and destination live at once)
//! ```
//!
//! The 32 registers are addresses, loop state and the lane/warp ids; the
//! factor 1.3 is slack for the compiler. The cap is never taken below
//! [`REGISTER_FLOOR`] = 128: under it ptxas reschedules small kernels
//! unpredictably (the 64×64 16-bit warp shuffle ran 13% slower at a cap of
//! 80 than at 128 or with no bound). These constants were calibrated on
//! the GPU suite on an H200 (`bench/gpu/tools/toolchain.sh`: caps of 128
//! and 168 per thread against ptxas's own choice, BENCHMARKS.md); they are
//! a model, not a law, and `k` is also bounded by threads and shared
//! memory per SM.
//!
//! Which [`Footprint`] a round trip's kernel has is
//! [`crate::loop_plan`]'s reading of the plans.

use crate::target::SmLimits;
use serde::Serialize;

/// The lowest register cap per thread [`min_blocks`] asks for.
pub const REGISTER_FLOOR: u64 = 128;

/// What the kernel keeps live, per thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Footprint {
    /// Elements per thread of the larger of the two layouts (registers of
    /// the source or the destination), or packed 32-bit words when
    /// `bits` is 32 for a kernel that holds 8/16-bit data in words.
    pub elements: u64,
    /// Element width in bits.
    pub bits: u32,
    /// Copies of the data live at once: 1 through shared memory, 2 for
    /// shuffles and partial plans.
    pub copies: u64,
}

impl Footprint {
    /// 32-bit registers one copy of the elements takes as the emitter holds
    /// them: 8-bit elements one register each, wider ones packed in words.
    pub fn data_registers(&self) -> u64 {
        if self.bits <= 8 {
            self.elements
        } else {
            (self.elements.saturating_mul(self.bits as u64)).div_ceil(32)
        }
    }

    /// Registers per thread the plan needs: `⌈1.3 · data · copies⌉ + 32`.
    ///
    /// ```
    /// use layout_codegen::occupancy::Footprint;
    /// // 64 words: ⌈1.3 · 64⌉ + 32 = 84 + 32 = 116.
    /// let f = Footprint { elements: 128, bits: 16, copies: 1 };
    /// assert_eq!(f.needed_registers(), 116);
    /// ```
    pub fn needed_registers(&self) -> u64 {
        (self
            .data_registers()
            .saturating_mul(self.copies)
            .saturating_mul(13))
        .div_ceil(10)
            + 32
    }
}

/// The `minBlocksPerMultiprocessor` for a kernel of `threads` threads using
/// `shared_bytes` of shared memory per CTA: the largest `k` with
/// `register_cap(threads, k) ≥ max(need, REGISTER_FLOOR)`, `k·threads` and
/// `k·shared_bytes` within the SM. `None` when even two CTAs do not fit
/// (leave ptxas its own budget).
///
/// ```
/// use layout_codegen::occupancy::{min_blocks, Footprint};
/// use layout_codegen::target::SmLimits;
/// // 128×128 16-bit tile, 4 warps, through 32 KiB of shared memory:
/// // 64 words of data, need 116 registers, four CTAs (cap 128).
/// let f = Footprint { elements: 128, bits: 16, copies: 1 };
/// assert_eq!(min_blocks(&SmLimits::SM90, 128, 32 * 1024, &f), Some(4));
/// // The same tile in 32-bit words needs 199: two CTAs (cap 255), which
/// // is what ptxas chose by itself.
/// let f = Footprint { elements: 128, bits: 32, copies: 1 };
/// assert_eq!(min_blocks(&SmLimits::SM90, 128, 64 * 1024, &f), Some(2));
/// // 1024 threads of 200 registers: not even two CTAs.
/// assert_eq!(min_blocks(&SmLimits::SM90, 1024, 0, &f), None);
/// ```
pub fn min_blocks(
    limits: &SmLimits,
    threads: u32,
    shared_bytes: u64,
    f: &Footprint,
) -> Option<u32> {
    let need = f.needed_registers().max(REGISTER_FLOOR);
    let by_threads = limits.threads / threads.max(1);
    let by_smem = limits
        .shared_bytes
        .checked_div(shared_bytes)
        .map_or(limits.ctas, |k| k.min(limits.ctas as u64) as u32);
    (2..=by_threads.min(by_smem).min(limits.ctas))
        .rev()
        .find(|&k| limits.register_cap(threads, k) as u64 >= need)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over every k, with the module doc's formulas written
    /// out here (not the functions under test): the answer is the largest
    /// feasible k.
    #[test]
    fn min_blocks_is_the_largest_feasible_k() {
        let l = SmLimits::SM90;
        let cap = |t: u32, k: u32| ((65536 / (k * t)) / 8 * 8).min(255) as u64;
        let need = |f: &Footprint| {
            let data = if f.bits <= 8 {
                f.elements
            } else {
                (f.elements * f.bits as u64).div_ceil(32)
            };
            ((data * f.copies * 13).div_ceil(10) + 32).max(128)
        };
        for threads in [32, 64, 128, 256, 512, 1024] {
            for shared in [0u64, 4096, 16384, 32768, 65536, 100_000, 200_000] {
                for elements in [1u64, 8, 16, 32, 64, 128, 256] {
                    for bits in [8, 16, 32, 64] {
                        for copies in [1, 2] {
                            let f = Footprint {
                                elements,
                                bits,
                                copies,
                            };
                            let feasible: Vec<u32> = (2..=64)
                                .filter(|&k| {
                                    k * threads <= l.threads
                                        && k <= l.ctas
                                        && k as u64 * shared <= l.shared_bytes
                                        && cap(threads, k) >= need(&f)
                                })
                                .collect();
                            assert_eq!(
                                min_blocks(&l, threads, shared, &f),
                                feasible.last().copied(),
                                "{threads} threads, {shared} B, {f:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The module doc's worked numbers.
    #[test]
    fn needed_registers_match_the_doc() {
        let need = |elements, bits, copies| {
            Footprint {
                elements,
                bits,
                copies,
            }
            .needed_registers()
        };
        assert_eq!(need(128, 16, 1), 116); // 64 words: 84 + 32
        assert_eq!(need(128, 32, 1), 199); // 128 words: ⌈166.4⌉ + 32
        assert_eq!(need(32, 32, 2), 116); // 32 words, two copies: 84 + 32
    }

    #[test]
    fn data_registers_follow_the_emitted_representation() {
        let f = |elements, bits| {
            Footprint {
                elements,
                bits,
                copies: 1,
            }
            .data_registers()
        };
        assert_eq!(f(128, 8), 128);
        assert_eq!(f(128, 16), 64);
        assert_eq!(f(3, 16), 2);
        assert_eq!(f(128, 32), 128);
        assert_eq!(f(16, 64), 32);
    }

    #[test]
    fn the_suite_cases_get_the_occupancy_measured_best() {
        let l = SmLimits::SM90;
        let fp = |elements, bits, copies| Footprint {
            elements,
            bits,
            copies,
        };
        // 8 warps, 128×256 16-bit through 64 KiB: two CTAs (cap 128).
        assert_eq!(min_blocks(&l, 256, 65536, &fp(128, 16, 1)), Some(2));
        // 64×64 32-bit warp shuffle: four CTAs (cap 128, ptxas then keeps
        // more shuffles in flight).
        assert_eq!(min_blocks(&l, 128, 0, &fp(32, 32, 2)), Some(4));
        // Partial 128×128 16-bit: both copies live, need 199: two CTAs
        // (a cap of 128 spilled 3 KB and ran 2.1× slower).
        assert_eq!(min_blocks(&l, 128, 32768, &fp(128, 16, 2)), Some(2));
        // 64×64 16-bit through 8 KiB needs 53, but the cap stays at 128.
        assert_eq!(min_blocks(&l, 128, 8192, &fp(32, 16, 1)), Some(4));
        // 128×128 8-bit word-form shuffles: 32 words per copy, two copies:
        // four CTAs (H200, 2026-11-21: 0.925 against 0.999 us with no
        // floor, which counting one register per byte gave).
        assert_eq!(min_blocks(&l, 128, 0, &fp(32, 32, 2)), Some(4));
        assert_eq!(min_blocks(&l, 128, 0, &fp(128, 8, 2)), None);
    }
}
