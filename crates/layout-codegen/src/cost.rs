//! The cost model of every plan, in one place: a roofline of the SM's
//! shared-memory pipe and its ALU pipe, in cycles of one SM per warp.
//!
//! ## The model
//! For a plan executed by `warps` warps (of all CTAs), with its wavefronts
//! counted by [`crate::wavefront`] and its instructions summed over all
//! warps:
//!
//! ```text
//! cycles = max( (store_wavefronts + load_wavefronts + shuffles) / warps,
//!               (selects + prmt) / warps / ALU_PER_CYCLE )
//!          + BARRIER_COST · barriers
//! ```
//!
//! * **Shared-memory pipe** (MIO): it serves one wavefront per cycle, and a
//!   warp's `shfl.sync` goes through the same pipe once (ncu counts shuffles
//!   among its shared-memory wavefronts), so wavefronts and shuffles add.
//! * **ALU pipe**: `selp` and `prmt` (packing and unpacking sub-32-bit
//!   elements) are ALU instructions, [`ALU_PER_CYCLE`] warp instructions per
//!   SM cycle.
//! * The two pipes work in parallel, so the busier bounds the time (a
//!   roofline, not a sum). Register moves are free (register allocation
//!   renames them).
//! * A barrier costs [`BARRIER_COST`] cycles: with every warp arriving
//!   together `bar.sync` mostly adds latency that other warps' work hides;
//!   a few cycles make the plan without a barrier win a tie in data
//!   movement. A warp barrier (`bar.warp.sync`, the only barrier of a
//!   warp-private plan: [`crate::warp_private`]) costs nothing.
//!
//! The model is a ranking, not a timing: it ignores latency, occupancy and
//! the instructions around the conversion. The gather lowerings
//! ([`crate::gather_cost`]) use the same roofline.
//!
//! ## The lower bound
//! [`LowerBound`]: what any plan must pay. Bytes that must leave their warp
//! go through shared memory, at best 128 bytes per wavefront on each side
//! (stored once, loaded once); elements that must change lane but not warp
//! move by 32-bit `shfl.sync` (each lane sends and receives at most 4 bytes
//! per warp instruction) or through shared memory, whichever mixture is
//! cheapest. See [`crate::lower_bound`].

use serde::Serialize;

/// ALU warp instructions (`selp`, `prmt`) one SM completes per cycle on
/// compute capability 9.0: 64 lanes. Measured 2026-11-21 on an H200 with
/// ncu: a program doing two register↔lane swaps by shuffles (24 `shfl`, 128
/// selects per warp) kept the ALU pipe 98.5% busy at 1.96 ALU instructions
/// per SM cycle and ran exactly as fast as the shared-memory plan (trial
/// program and ncu output committed with 67b8c82 under
/// `bench/gpu/results/`). Confirmed 2026-11-29 on an H200 in a loop bound
/// by the shared-memory pipe (64 wavefronts per warp and iteration, 32
/// warps per SM): up to 4 selects per word (the point where `selects / 2`
/// equals the wavefronts) the time rose by at most 8%, past it it followed
/// the ALU term within 10% (`bench/gpu/tools/select_headroom.sh`, results
/// under `bench/gpu/results/2026-11-29-h200/select_headroom/`); selects
/// testing more distinct predicates than the 7 predicate registers hold
/// cost about twice as much (the `many_predicates/` run there).
pub const ALU_PER_CYCLE: f64 = 2.0;

/// Cycles one barrier adds (see the module doc: a tie-breaker, not a
/// measured latency).
pub const BARRIER_COST: f64 = 4.0;

/// Bytes one shared-memory wavefront serves on compute capability 9.0 (32
/// banks of 4 bytes): the per-SM shared-memory bandwidth of 128 B/clk.
pub const WAVEFRONT_BYTES: u64 = 128;

/// A plan's predicted cost: its counts (summed over all warps of all CTAs)
/// and the model's cycles.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PredictedCost {
    /// Warps of all CTAs (the divisor of the model).
    pub warps: u64,
    /// Shared-memory store wavefronts.
    pub store_wavefronts: u64,
    /// Shared-memory load wavefronts.
    pub load_wavefronts: u64,
    /// `shfl.sync` warp instructions.
    pub shuffles: u64,
    /// `selp` warp instructions.
    pub selects: u64,
    /// `prmt` warp instructions.
    pub prmt: u64,
    /// Barriers per conversion (every warp takes part).
    pub barriers: u64,
    /// Warp barriers per conversion (`bar.warp.sync` of a warp-private
    /// plan, [`crate::warp_private`]): free in the model.
    pub warp_barriers: u64,
    /// Register moves (free in the model; reported).
    pub register_moves: u64,
    /// Source registers per thread.
    pub src_registers: u64,
    /// Destination registers per thread.
    pub dst_registers: u64,
    /// Scratch bytes per CTA.
    pub scratch_bytes: u64,
}

impl PredictedCost {
    /// The model's cycles per warp (module doc).
    pub fn cycles(&self) -> f64 {
        let w = self.warps.max(1) as f64;
        let mio = (self.store_wavefronts + self.load_wavefronts + self.shuffles) as f64 / w;
        let alu = (self.selects + self.prmt) as f64 / w / ALU_PER_CYCLE;
        mio.max(alu) + BARRIER_COST * self.barriers as f64
    }

    /// Shared-memory pipe units per warp: `(wavefronts + shuffles) / warps`.
    pub fn mio_per_warp(&self) -> f64 {
        (self.store_wavefronts + self.load_wavefronts + self.shuffles) as f64
            / self.warps.max(1) as f64
    }
}

/// The in-warp part of the model: `max(shuffles, (selects + prmt) /
/// ALU_PER_CYCLE)` per warp (a `prmt` is one ALU instruction, like a
/// `selp`).
///
/// ```
/// use layout_codegen::cost::shuffle_cycles;
/// // One register<->lane swap of 32 f32 registers: 16 shfl, 48 selects.
/// assert_eq!(shuffle_cycles(16, 48, 0), 24.0);
/// // Two swaps: 24 shfl, 128 selects: ALU-bound.
/// assert_eq!(shuffle_cycles(24, 128, 0), 64.0);
/// ```
pub fn shuffle_cycles(shuffles: u64, selects: u64, prmt: u64) -> f64 {
    (shuffles as f64).max((selects + prmt) as f64 / ALU_PER_CYCLE)
}

/// The floor of a conversion: what any plan must pay (module doc), summed
/// over all warps of all CTAs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LowerBound {
    /// Warps of all CTAs.
    pub warps: u64,
    /// Bytes (summed over warps) of destination elements whose source copy
    /// nearest to the reader is in another warp: they must cross shared
    /// memory.
    pub cross_warp_bytes: u64,
    /// Bytes (summed over warps) of destination elements that the reader's
    /// warp holds, but in another lane.
    pub in_warp_bytes: u64,
    /// Shared-memory wavefronts at least: the crossing bytes stored once
    /// and loaded, at [`WAVEFRONT_BYTES`] per wavefront, plus the in-warp
    /// bytes the cheapest mixture sends through shared memory (a fraction:
    /// a floor, not a count).
    pub wavefronts: f64,
    /// Shuffles (warp instructions, summed over warps) of the cheapest
    /// mixture for the in-warp bytes ([`crate::lower_bound`]; a fraction).
    pub shuffles: f64,
    /// The floor of a one-bit register ↔ lane exchange
    /// ([`crate::lower_bound::exchange_floor`]), cycles per warp; 0 for
    /// other conversions.
    pub exchange_cycles: f64,
    /// Units (wavefronts and shuffles, summed over warps) of the sub-word
    /// floor ([`crate::lower_bound::subword_units`]: 8-bit data whose
    /// moved bytes pair source and destination threads one to one); 0
    /// where it does not apply.
    pub subword_units: f64,
    /// The most bytes of distinct elements that one lane of a warp holds
    /// in the source and one other lane of the same warp needs in the
    /// destination (`m` of [`crate::lower_bound`]'s relay bound), over all
    /// warps, when both layouts are injective; 0 otherwise. Below 4, a
    /// shuffle slot delivers at most `(4 + m) / 2` needed bytes on average.
    pub pair_bytes: u64,
    /// The model's cycles of the bound: the byte and shuffle floor
    /// (`(wavefronts + shuffles) / warps`, plus a barrier when bytes cross
    /// warps), `exchange_cycles`, or `subword_units / warps` plus the
    /// barrier, whichever is largest.
    pub cycles: f64,
}

impl LowerBound {
    /// Needed bytes one shuffle slot delivers on average, at most (the
    /// relay bound of [`crate::lower_bound`]): `(4 + m) / 2` for
    /// `m = pair_bytes` below 4, else 4 (also where no pairs were counted,
    /// `pair_bytes = 0`).
    ///
    /// ```
    /// use layout_codegen::cost::LowerBound;
    /// let b = |pair_bytes| LowerBound { pair_bytes, ..Default::default() }.slot_bytes();
    /// assert_eq!((b(0), b(1), b(2), b(4), b(8)), (4.0, 2.5, 3.0, 4.0, 4.0));
    /// ```
    pub fn slot_bytes(&self) -> f64 {
        if self.pair_bytes == 0 {
            4.0
        } else {
            ((4 + self.pair_bytes) as f64 / 2.0).min(4.0)
        }
    }
}
