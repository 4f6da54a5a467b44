//! # Views of linear layouts
//!
//! A layout `L` maps hardware coordinates to logical tensor coordinates
//! (`L: register × lane × warp × block → dim0 × dim1 × ...` for a
//! *distributed* layout, `L: offset × block → dim0 × ...` for a *shared*
//! one). This crate shows `L` to people:
//!
//! - [`text`]: Triton's `get_layout_view` text, byte for byte: the *tensor
//!   view* (for every logical element, which hardware locations hold it) and
//!   the *hardware view* (for every hardware location, which element it
//!   holds), plus windows of the tensor view for large tensors.
//! - [`matrix`]: `L` as a 0/1 matrix over GF(2) with labelled rows (output
//!   bits `dim0[0]`, ...) and columns (input bits `register[0]`, ...), the
//!   paper's §4.1 form.
//! - [`svg`] and [`html`]: deterministic pictures with no external
//!   resources: the tensor as a grid coloured by warp (the paper's
//!   Figure 1), the hardware view (warps × registers × lanes) and, for shared
//!   layouts, a bank view, optionally with an access pattern drawn on it.
//! - [`access`]: the first shared-memory access of warp 0 of a distributed
//!   layout on a shared one, by enumerating addresses: touched cells, NVIDIA
//!   phases, wavefronts and conflicting cells.
//! - [`convert`]: the picture of a conversion plan (`layout_codegen`):
//!   source, the plan's shared-memory buffer, destination, with one
//!   element's path.
//! - [`plan_text`]: a conversion plan as text, one instruction per line
//!   (the CLI's `convert` and Python print plans with it).
//!
//! Every entry point validates its input and returns [`ViewError`] instead
//! of panicking.
//!
//! ## Modules and what each depends on
//!
//! A module uses only those above it; every module may use the crate root
//! ([`ViewError`], shape checks, `apply_named`, `linearize`).
//!
//! | module | uses |
//! |---|---|
//! | [`matrix`], [`plan_text`] | — |
//! | [`table`] | — |
//! | [`text`] | `table` |
//! | [`access`] | `table` |
//! | [`svg`] | `table`, `text` |
//! | [`html`] | `svg` |
//! | [`convert`] | `svg`, `table`, `text` |
//!
//! ```
//! use layout_view::{hardware_view, tensor_view};
//! use linear_layout::LinearLayout;
//! // 4 elements, 2 registers × 2 lanes: register bit → element bit 0,
//! // lane bit → element bit 1. By hand: element e sits in lane e / 2,
//! // register e % 2.
//! let ll = LinearLayout::from_json(
//!     &serde_json::json!({"register": [[1]], "lane": [[2]]}),
//!     Some(&[4]),
//! )
//! .unwrap();
//! assert_eq!(tensor_view(&ll, &[4]).unwrap(), "[T0:0, T0:1, T1:0, T1:1]\n");
//! assert_eq!(hardware_view(&ll, &[4]).unwrap(), "Warp0:\n(0), (2)\n(1), (3)\n");
//! ```

#![warn(missing_docs)]

pub mod access;
pub mod convert;
pub mod html;
pub mod matrix;
pub mod plan_text;
pub mod svg;
pub mod table;
pub mod text;

pub use matrix::{matrix_text, BitMatrix};
pub use table::{DistributedTable, HardwareSizes, HolderSolver, LayoutKind, SharedTable};
pub use text::{hardware_view, tensor_view, tensor_view_window, Window};

use linear_layout::{DimName, LinearLayout};
use std::fmt;

/// Largest number of tensor elements or hardware slots a view enumerates.
pub const MAX_POINTS: u64 = 1 << 22;

/// Why a view could not be made. Each message names the offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewError {
    /// The layout's input dims are neither distributed
    /// (`register`/`lane`/`warp`/`block`) nor shared (`offset`/`block`).
    UnsupportedDims(Vec<String>),
    /// The shape does not match the layout's output dims.
    ShapeMismatch {
        /// The shape asked for, dim0 first.
        shape: Vec<u64>,
        /// The layout's output dims and sizes.
        out_dims: Vec<(String, u64)>,
    },
    /// Too many points to enumerate.
    TooLarge {
        /// What would be enumerated (elements, hardware slots, ...).
        what: &'static str,
        /// How many there are (more than [`MAX_POINTS`]).
        count: u64,
    },
    /// A window is empty or out of the tensor.
    BadWindow(String),
    /// A view does not apply to this kind of layout.
    WrongKind(String),
    /// A parameter is invalid.
    BadParameter(String),
}

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewError::UnsupportedDims(d) => write!(
                f,
                "cannot view a layout with input dims {d:?}: expected register/lane/warp/block (distributed) or offset/block (shared)"
            ),
            ViewError::ShapeMismatch { shape, out_dims } => write!(
                f,
                "shape {shape:?} does not match the layout's output dims {out_dims:?}"
            ),
            ViewError::TooLarge { what, count } => write!(
                f,
                "too many {what} to view: {count} > {MAX_POINTS}"
            ),
            ViewError::BadWindow(m) | ViewError::WrongKind(m) | ViewError::BadParameter(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for ViewError {}

/// Result of this crate.
pub type Result<T> = std::result::Result<T, ViewError>;

/// Checks that `shape` lists the sizes of `ll`'s output dims, in order.
pub fn check_shape(ll: &LinearLayout, shape: &[u64]) -> Result<()> {
    let outs = ll.out_dims();
    let ok = outs.len() == shape.len() && outs.iter().zip(shape).all(|((_, s), &n)| *s == n);
    if ok && !shape.is_empty() {
        Ok(())
    } else {
        Err(ViewError::ShapeMismatch {
            shape: shape.to_vec(),
            out_dims: outs.iter().map(|(n, s)| (n.to_string(), *s)).collect(),
        })
    }
}

/// `L(in)` for named inputs (absent dims of `ll` read as 0, names that `ll`
/// lacks are ignored), returned as one coordinate per output dim.
pub(crate) fn apply_named(ll: &LinearLayout, ins: &[(DimName, u64)]) -> Vec<u64> {
    let values: Vec<u64> = ll
        .in_dim_names()
        .map(|d| ins.iter().find(|x| x.0 == d).map_or(0, |x| x.1))
        .collect();
    ll.unpack(ll.apply_values(&values)).to_vec()
}

/// Row-major linear index of `coords` in `shape` (last dim fastest).
pub(crate) fn linearize(coords: &[u64], shape: &[u64]) -> u64 {
    coords
        .iter()
        .zip(shape)
        .fold(0, |acc, (&c, &s)| acc * s + c)
}

/// Inverse of [`linearize`].
pub(crate) fn delinearize(mut idx: u64, shape: &[u64]) -> Vec<u64> {
    let mut out = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        out[i] = idx % shape[i];
        idx /= shape[i];
    }
    out
}
