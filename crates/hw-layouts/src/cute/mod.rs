//! # The CuTe bridge
//!
//! CuTe (CUTLASS 3/4) writes a layout as `Shape:Stride`: the function from
//! a coordinate to the offset `Σ coordinate_i · stride_i`, modes nested,
//! optionally behind a `Swizzle<B,M,S>`. Where every extent is a power of
//! two and no two coordinate bits reach overlapping offset bits, that
//! function is linear over GF(2) and is a [`linear_layout::LinearLayout`];
//! this module moves layouts across in both directions and says exactly
//! why when one cannot cross.
//!
//! ## Conventions (stated once)
//! - **Modes are tensor dims.** Top-level CuTe mode `k` is Triton's `dimk`
//!   (mode 0 is `dim0`, the row of an `M x N` tile). Within a mode, CuTe is
//!   column-major: the first sub-mode is the fastest, so its bits are the
//!   low bits of that dim's coordinate. A flat index splits column-major
//!   too (mode 0 fastest), which matches the linear-layout convention that
//!   the first out dim is the low bits when flattened.
//! - **Offset direction.** A CuTe layout maps coordinate → offset
//!   ([`coordinate_to_offset`]). Triton's shared layouts map the other way,
//!   offset → coordinate; [`to_shared_linear`] is the inverse (each element
//!   at one offset; offset bits never reached are padding, zero bases, as
//!   Triton writes an allocation larger than the tensor).
//!   [`from_shared_linear`] goes back.
//! - **Thread-value layouts** `(thr, val) → tile index` (CUTLASS's MMA and
//!   copy atoms) become distributed layouts: thread bits 0-4 are `lane`,
//!   higher thread bits `warp`, value bits `register`; the tile index is
//!   column-major, so its low bits are `dim0` ([`tv_to_distributed`],
//!   [`to_tv`]).
//!
//! ## A worked example
//! The row-major `4 x 8` tile `(4,8):(8,1)` stores element `(i, j)` at
//! `8 i + j`. Its shared layout reads offset bits 0-2 as `j` (`dim1`) and
//! bits 3-4 as `i` (`dim0`), and prints back as the same CuTe text:
//!
//! ```
//! use hw_layouts::cute;
//! use linear_layout::DimName;
//! let c = cute::parse("(4,8):(8,1)").unwrap();
//! let shared = cute::to_shared_linear(&c).unwrap();
//! // offset 8*2 + 5 = 21 holds (i, j) = (2, 5):
//! let o = shared.apply(&[(DimName::OFFSET, 21)]).unwrap();
//! assert_eq!((o[0].1, o[1].1), (2, 5));
//! assert_eq!(hw_layouts::linear::shared_linear_mlir(&shared, 16),
//!     "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]]}, alignment = 16>");
//! assert_eq!(cute::from_shared_linear(&shared).unwrap().to_string(), "(4,8):(8,1)");
//! // A carry is not linear: mode 1's stride 3 overlaps mode 0's offsets.
//! let err = cute::coordinate_to_offset(&cute::parse("(2,2):(1,3)").unwrap()).unwrap_err();
//! assert!(err.to_string().contains("mode 1 (shape 2, stride 3)"));
//! ```

pub mod algebra;
pub mod atoms;
mod error;
mod from_linear;
mod layout;
mod syntax;
mod to_linear;

pub use error::{CuteError, Result};
pub use from_linear::{from_columns, from_offset_map, from_shared_linear, to_tv};
pub use layout::{CuteLayout, IntTuple, Layout, Swizzle};
pub use syntax::{parse, parse_layout, MAX_DEPTH, MAX_LEAVES};
pub use to_linear::{
    columns_layout, coordinate_to_offset, index_dim, index_to_offset, mode_columns,
    pad_to_power_of_two, swizzled_columns, to_shared_linear, tv_to_distributed, Padded, MAX_BITS,
};
