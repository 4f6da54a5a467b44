//! # Linear layouts
//!
//! A GPU tensor layout is a map from *hardware* coordinates (which register
//! of which thread of which warp of which CTA, or which shared-memory
//! offset) to the *logical* coordinate of a tensor element. For every layout
//! GPU compilers use, that map is **linear over GF(2)**: write each index in
//! binary, and the output bits are XORs of input bits. A [`LinearLayout`] is
//! such a map, stored as a bit matrix (Zhou et al., *Linear Layouts*, 2025;
//! Triton's `LinearLayout`).
//!
//! ## Conventions (stated once)
//! - A layout maps **hardware → logical**: inputs are named dims such as
//!   `register`, `lane`, `warp`, `block` (or `offset`, `block` for memory),
//!   outputs are `dim0`, `dim1`, ... (tensor dims in shape order).
//! - Every dim has a power-of-two size. Dims are ordered **minor to major**;
//!   when dims are flattened the first one is in the low bits.
//! - Column `k` of the matrix is the image of input bit `k` (a *basis*):
//!   basis `i` of dim `d` is `L(d = 2^i, others = 0)`, and `L(x)` is the XOR
//!   of the bases of the set bits of `x`.
//! - A **zero basis** means broadcast: flipping that bit reaches the same
//!   element. Layouts are usually surjective (every element is held
//!   somewhere) but not injective (elements may be replicated).
//!
//! ## A first layout: the paper's Figure 1, layout A
//! A 16×16 tensor, `sizePerThread = [2, 2]`, `threadsPerWarp = [4, 8]`,
//! `warpsPerCTA = [2, 1]`, `order = [1, 0]`, as a product of 1-D pieces:
//!
//! ```
//! use linear_layout::{DimName, LinearLayout};
//! let (reg, lane, warp) = (DimName::REGISTER, DimName::LANE, DimName::WARP);
//! let (d0, d1) = (DimName::dim(0), DimName::dim(1));
//! let id = LinearLayout::identity_1d;
//! let a = id(2, reg, d1) * id(2, reg, d0)
//!     * id(8, lane, d1) * id(4, lane, d0)
//!     * id(2, warp, d0);
//! let a = a.transpose_outs(&[d0, d1]).unwrap();
//! // Thread 9 (lane 9, warp 0), register 3 holds element (2 + 1, 2 + 1):
//! // lane 9 = 0b1001 -> column 2*1, row 2*1; register 3 adds (1, 1).
//! let out = a.apply(&[(reg, 3), (lane, 9), (warp, 0)]).unwrap();
//! assert_eq!(out.iter().map(|c| c.1).collect::<Vec<_>>(), vec![3, 3]);
//! assert_eq!(a.bases(lane), vec![vec![0, 2], vec![0, 4], vec![0, 8], vec![2, 0], vec![4, 0]]);
//! ```
//!
//! The modules: [`gf2`] (bit-packed GF(2) linear algebra), [`LinearLayout`]
//! and its algebra (product `*`, [`LinearLayout::compose`],
//! [`LinearLayout::invert_and_compose`], [`divide_left`], ...), shape
//! operations, [`utils`] (Triton's LayoutUtils), [`ColumnAction`].

pub mod column_action;
mod dim;
mod divide;
mod error;
pub mod gf2;
mod json;
mod layout;
mod product;
mod shape;
mod solve;
pub mod utils;

pub use column_action::ColumnAction;
pub use dim::DimName;
pub use divide::{divide_left, divide_right};
pub use error::{LayoutError, Result};
pub use layout::{Coords, LinearLayout};
pub use product::supremum;
pub use solve::factor_through;
