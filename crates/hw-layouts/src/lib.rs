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
//!
//! ## Modules and what each depends on
//!
//! Arrows point down: a module uses only those below it (and the algebra
//! crate). Leaves first:
//!
//! | module | job | uses |
//! |---|---|---|
//! | [`error`] | [`HwError`], the crate's one error type | — |
//! | [`syntax`] | Triton's MLIR attribute text: parse and print | `error` |
//! | [`shape`] | [`check_shape`]: a tensor shape a layout can take | `error` |
//! | [`cga`] | CTA-group (`block`) layouts, `combineCtaCgaWithShape`, which CGA form an attribute gives | `error`, `syntax` |
//! | [`blocked`] | `#ttg.blocked`, and the field readers the other families share | `cga`, `syntax` |
//! | [`linear`] | `#ttg.linear` / `#ttg.generic_linear` | `blocked`, `shape`, `syntax` |
//! | [`nvidia_mma`] | `#ttg.nvidia_mma` (v2, v3) accumulators | `blocked`, `cga`, `syntax` |
//! | [`amd`] | `#ttg.amd_mfma`, `#ttg.amd_wmma` and their operands | `cga`, `shape`, `syntax` |
//! | [`shared`] | swizzled, NVMMA, shared_linear, padded, partitioned shared | `cga`, `shape`, `syntax`; `encoding` (below) |
//! | [`tmem`] | tensor memory and tcgen05 register layouts | `shape`, `shared`, `syntax` |
//! | [`slice`](mod@slice) | `#ttg.slice` of a parent layout | `blocked`, `syntax`; `encoding` (below) |
//! | [`dot_operand`] | `#ttg.dot_op` over every parent | `amd`, `blocked`, `cga`, `nvidia_mma`, `slice`, `syntax`; `encoding` (below) |
//! | [`encoding`] | [`Encoding`]: any attribute, dispatched to its family | every family, `shape`, `syntax` |
//!
//! The one loop is the data's own: a slice, a dot operand and a partitioned
//! shared layout *contain* a parent layout, which may be any [`Encoding`]
//! (Triton's attributes nest the same way), so those three name
//! `encoding::Encoding` for their parent field and call its methods.
//! Nothing else in a family imports `encoding`.

#![warn(missing_docs)]

pub mod amd;
pub mod blocked;
pub mod cga;
pub mod cute;
pub mod dot_operand;
pub mod encoding;
pub mod error;
pub mod linear;
pub mod nvidia_mma;
pub mod shape;
pub mod shared;
pub mod slice;
pub mod syntax;
pub mod tmem;

pub use encoding::{Encoding, Space};
pub use error::{HwError, Result};
pub use shape::check_shape;
