//! # A layout engine over Triton tile programs
//!
//! The paper's §4.4 works on *programs*: pick anchor layouts, propagate
//! them through every shape operation as linear maps, and place the
//! conversions that remain. This crate reads a Triton kernel (TTIR, or
//! TTGIR with Triton's own layouts), and
//!
//! - [`parse`]: reads the text into the tile IR of [`ir`];
//! - [`assignment`]: a layout for every tensor value, read from TTGIR;
//! - [`check`]: verifies any assignment against every op's layout rule;
//! - [`cost`]: prices every conversion with `layout_codegen`'s plan cost
//!   model, weighted by loop depth.
//!
//! Conventions are the workspace's: a layout maps hardware bits
//! (`register, lane, warp, block`) to tensor coordinates (`dim0` the
//! minor... as in Triton: `dim0` is the first index of the shape).

pub mod anchors;
pub mod assignment;
pub mod axis;
pub mod check;
pub mod cost;
pub mod engine;
pub mod error;
pub mod ir;
pub mod parse;
pub mod report;
pub mod shape_ops;
pub mod text;

pub use assignment::{Assignment, Conversion, Layout};
pub use check::{check, Violation};

pub use error::{EngineError, Result};
pub use ir::Program;
pub use parse::parse_program;
