//! # Code generation from linear layouts, as data
//!
//! Every algorithm here returns a *plan* (plain data) instead of emitting
//! code, and [`simulator`] executes plans on a modelled CTA to prove them.
//!
//! - [`bank_conflicts`]: Triton's `bankConflictsMemDesc` and a brute-force
//!   wavefront counter.
//! - [`conversion`]: `minimalCvtLayout` and the conversion classes (no-op,
//!   register permutation, warp shuffle, shared memory).
//! - [`swizzle`]: the optimal swizzled shared layout for a conversion
//!   (Triton's `optimalSwizzlingLdSt`, the paper's §5.4), its conflicts and
//!   lower bound, and an exhaustive search for small cases.
//! - [`plan`]: conversion plans; [`simulator`]: their proof by execution.
//! - [`shuffle`]: warp-shuffle plans (Triton's transposition decomposition
//!   and a general `shfl.idx` fallback); [`gather`]: gather plans;
//!   [`dedup`]: duplicate elimination; [`vectorize`]: vectorisation widths;
//!   [`tiling`]: ld/st.shared and ldmatrix/stmatrix tiling.

pub mod bank_conflicts;
pub mod conversion;
pub mod dedup;
pub mod error;
pub mod gather;
pub mod plan;
pub mod shuffle;
pub mod simulator;
pub mod swizzle;
pub mod tiling;
pub mod vectorize;

pub use error::{CodegenError, Result};
