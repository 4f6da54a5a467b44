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

pub mod bank_conflicts;
pub mod conversion;
pub mod error;
pub mod plan;
pub mod simulator;
pub mod swizzle;

pub use error::{CodegenError, Result};
