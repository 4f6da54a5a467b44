//! The machine a plan is made for: warp size, shared-memory banks and the
//! shared memory one CTA may use.

use crate::error::{CodegenError, Result};
use serde::Serialize;

/// What the planner ([`crate::planner::plan`]) needs to know of the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Target {
    /// Lanes per warp (32 on NVIDIA; 64 for a CDNA wave).
    pub warp_size: u64,
    /// Shared-memory banks of 4 bytes (32 on NVIDIA; 64 models CDNA LDS,
    /// see [`crate::wavefront`]).
    pub banks: u64,
    /// Shared memory one CTA may allocate, in bytes: a plan whose scratch
    /// buffer is larger is not chosen.
    pub smem_bytes_per_cta: u64,
}

impl Target {
    /// Compute capability 9.0 (H100, H200): 32 lanes, 32 banks, 227 KiB of
    /// shared memory per CTA (the opt-in maximum of CUDA's
    /// `cudaDevAttrMaxSharedMemoryPerBlockOptin` on sm_90).
    pub const SM90: Target = Target {
        warp_size: 32,
        banks: 32,
        smem_bytes_per_cta: 227 * 1024,
    };

    /// A model of AMD CDNA3 (MI300): 64-lane waves, 64 LDS banks, 64 KiB
    /// of LDS per workgroup (not measured on hardware).
    pub const CDNA3: Target = Target {
        warp_size: 64,
        banks: 64,
        smem_bytes_per_cta: 64 * 1024,
    };

    /// Checks the fields: a power-of-two warp size of 1 to 64 lanes, 32 or
    /// 64 banks.
    pub fn check(&self) -> Result<()> {
        if !self.warp_size.is_power_of_two() || self.warp_size > 64 {
            return Err(CodegenError::Invalid(format!(
                "warp size {} is not a power of two of at most 64 lanes",
                self.warp_size
            )));
        }
        if ![32, 64].contains(&self.banks) {
            return Err(CodegenError::Invalid(format!(
                "32 or 64 shared-memory banks are modelled, not {}",
                self.banks
            )));
        }
        Ok(())
    }
}

impl Default for Target {
    fn default() -> Self {
        Target::SM90
    }
}

/// Per-SM resources that bound how many CTAs of a kernel are resident at
/// once (see [`crate::occupancy`]): data, as [`Target`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SmLimits {
    /// 32-bit registers per SM.
    pub registers: u32,
    /// Resident threads per SM.
    pub threads: u32,
    /// Resident CTAs per SM.
    pub ctas: u32,
    /// Shared memory per SM usable by CTAs, in bytes.
    pub shared_bytes: u64,
    /// Registers per thread are allocated in multiples of this.
    pub register_granule: u32,
    /// Most registers one thread may have.
    pub max_registers: u32,
}

impl SmLimits {
    /// Compute capability 9.0 (H100, H200), beside [`Target::SM90`]: 64 Ki
    /// registers, 2048 threads, 32 CTAs and 227 KiB of shared memory per
    /// SM; registers in multiples of 8, at most 255 per thread.
    pub const SM90: SmLimits = SmLimits {
        registers: 65536,
        threads: 2048,
        ctas: 32,
        shared_bytes: 227 * 1024,
        register_granule: 8,
        max_registers: 255,
    };

    /// The register cap per thread when `ctas` CTAs of `threads` threads
    /// share an SM: `⌊registers / (ctas·threads)⌋` rounded down to the
    /// granule, at most `max_registers`.
    ///
    /// ```
    /// use layout_codegen::target::SmLimits;
    /// // 65536 / (4·128) = 128; 65536 / (3·128) = 170.6 → 168; 512 → 255.
    /// assert_eq!(SmLimits::SM90.register_cap(128, 4), 128);
    /// assert_eq!(SmLimits::SM90.register_cap(128, 3), 168);
    /// assert_eq!(SmLimits::SM90.register_cap(128, 1), 255);
    /// ```
    pub fn register_cap(&self, threads: u32, ctas: u32) -> u32 {
        let per = self.registers / threads.saturating_mul(ctas).max(1);
        (per - per % self.register_granule.max(1)).min(self.max_registers)
    }
}
