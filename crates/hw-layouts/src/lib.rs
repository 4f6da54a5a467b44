//! # Hardware layouts
//!
//! Every layout family Triton knows, built as a [`linear_layout::LinearLayout`]
//! with exactly Triton's semantics, and Triton's MLIR attribute syntax in and
//! out. Distributed layouts map `register, lane, warp, block` to tensor dims
//! `dim0..`; shared layouts map `offset, block`; tensor memory `row, col`.
//!
//! ```
//! use hw_layouts::Encoding;
//! let enc = Encoding::parse("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>");
//! # let _ = enc;
//! ```

pub mod amd;
pub mod blocked;
pub mod cga;
pub mod cute;
pub mod dot_operand;
pub mod encoding;
pub mod error;
pub mod linear;
pub mod nvidia_mma;
pub mod shared;
pub mod slice;
pub mod syntax;
pub mod tmem;

pub use encoding::{check_shape, Encoding, Space};
pub use error::{HwError, Result};
