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
//! A 16×16 tensor held by two warps: `sizePerThread = [2, 2]`,
//! `threadsPerWarp = [4, 8]`, `warpsPerCTA = [2, 1]`, `order = [1, 0]`
//! (dim 1, the column `j`, fastest). Built as a product of 1-D pieces, minor
//! to major; each factor's bits sit above the earlier ones of the same dim:
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
//! let at = |r, t, w| {
//!     let o = a.apply(&[(reg, r), (lane, t), (warp, w)]).unwrap();
//!     (o[0].1, o[1].1)
//! };
//! // The paper's examples, (i, j) = (dim0, dim1):
//! assert_eq!(at(0, 1, 0), (0, 2)); // R0 of T1: t bit 0 → j bit 1
//! assert_eq!(at(1, 9, 0), (2, 3)); // R1 of T9 = 0b01001: j = 2 + 1, i = 2
//! assert_eq!(at(0, 10, 0), (2, 4)); // R0 of T10 = 0b01010: j = 4, i = 2
//! // The paper's matrix A, one column per input bit (Reg 0:1, Thr 2:6,
//! // Wrp 7), as (i, j): j gets r0, t0, t1, t2; i gets r1, t3, t4, w0.
//! assert_eq!(a.bases(reg), vec![vec![0, 1], vec![1, 0]]);
//! assert_eq!(a.bases(lane), vec![vec![0, 2], vec![0, 4], vec![0, 8], vec![2, 0], vec![4, 0]]);
//! assert_eq!(a.bases(warp), vec![vec![8, 0]]);
//! // As a 0/1 matrix (rows j0..j3 then i0..i3, low bit first):
//! let rows: Vec<String> = (0..8).map(|row| {
//!     let (k, bit) = if row < 4 { (1, row) } else { (0, row - 4) };
//!     a.all_bases().iter().flat_map(|(_, bs)| bs.clone())
//!         .map(|b| if b[k] >> bit & 1 == 1 { '1' } else { '0' }).collect()
//! }).collect();
//! assert_eq!(rows, ["10000000", "00100000", "00010000", "00001000",
//!                   "01000000", "00000100", "00000010", "00000001"]);
//! ```
//!
//! The modules: [`gf2`] (bit-packed GF(2) linear algebra), [`LinearLayout`]
//! and its algebra (product `*`, [`LinearLayout::compose`],
//! [`LinearLayout::invert_and_compose`], [`divide_left`], ...), shape
//! operations, [`utils`] (Triton's LayoutUtils), [`ColumnAction`], and
//! [`Evaluator`] / [`LinearLayout::table`] for evaluating many inputs.
//!
//! ## Modules and what each depends on
//!
//! Leaves: `dim` ([`DimName`]), `error` ([`LayoutError`]), `coords`
//! ([`Coords`]) and [`gf2`]. `layout` defines the [`LinearLayout`] type
//! (fields, construction, invariants, queries). Each of the next
//! modules adds one family of methods to that type and uses its fields,
//! not one another, except where listed:
//!
//! | module | methods | also uses |
//! |---|---|---|
//! | `eval` | `apply`, `apply_values`, `apply_flat`, `table`, [`Evaluator`] | `coords` |
//! | `product` | `*`, [`supremum`], [`product_dim_order`] | |
//! | `solve` | `compose`, `invert`, `pseudoinvert`, `invert_and_compose`, [`factor_through`] | [`gf2`] |
//! | `divide` | [`divide_left`], [`divide_right`], quotients | |
//! | `shape` | reshape, transpose, flatten, squeeze, resize, concat, sublayout, renaming | |
//! | [`utils`] | Triton's LayoutUtils as free functions | the methods above, [`factor_through`] |
//! | [`column_action`], `json` | column permutations; JSON bases | |
//! | `print` | `Display` (Triton's `toString`), `Debug` | |
//!
//! Two edges point back into `layout`'s own methods, both by design: the
//! type holds `eval`'s cache of tables as a field (filled on the first
//! `apply`), and `num_consecutive_in_out` is defined by `divide_left`.
//!
//! Printing a layout (`{}`) gives Triton's `toString` byte for byte,
//! including its leading newline; `{:#}` omits that newline.

#![warn(missing_docs)]

pub mod column_action;
mod coords;
mod dim;
mod divide;
mod error;
mod eval;
pub mod gf2;
mod json;
mod layout;
mod print;
mod product;
mod shape;
mod solve;
pub mod utils;

pub use column_action::ColumnAction;
pub use coords::{Coords, CoordsIntoIter, COORDS_INLINE};
pub use dim::DimName;
pub use divide::{divide_left, divide_right};
pub use error::{LayoutError, Result};
pub use eval::Evaluator;
pub use layout::{LinearLayout, MAX_DIMS};
pub use product::{product_dim_order, supremum};
pub use solve::factor_through;
