//! # A layout engine over Triton tile programs
//!
//! The paper's §4.4 works on *programs*: pick anchor layouts, propagate
//! them through every shape operation as linear maps, and place the
//! conversions that remain. This crate reads a Triton kernel (layout-free
//! TTIR, or TTGIR carrying Triton's own layouts) and
//!
//! - [`parse`] reads the text into the tile IR of [`ir`] (regions, loop
//!   depth; an unknown op is an error naming it and its line);
//! - [`axis`] derives Triton's AxisInfo (contiguity, divisibility,
//!   constancy) and [`anchors`] the layouts memory ops and dots want;
//! - [`shape_ops`] is every shape op as a map of linear layouts;
//! - [`engine`] assigns a layout to every tensor value and places the
//!   conversions by cost ([`cost`]: `layout_codegen`'s plan cost model,
//!   times 10 per enclosing loop; [`compute`]: the elementwise work and
//!   memory instructions a layout's registers per thread multiply);
//! - [`assignment`] holds an assignment (or reads Triton's from TTGIR) and
//!   [`check`](mod@check) verifies any assignment against every op's layout rule;
//! - [`ttgir`] prints an assignment as Triton's TTGIR (a layout on every
//!   tensor type, a `ttg.convert_layout` per conversion);
//! - [`report`] is what the CLI and Python print.
//!
//! ## Modules and what each depends on
//!
//! A module uses only those above it (and the workspace's library crates):
//!
//! | module | uses |
//! |---|---|
//! | [`ir`], [`error`] | — |
//! | [`text`], [`shape_ops`] | `error` |
//! | [`parse`] | `error`, `ir`, `text` |
//! | [`assignment`] | `error`, `ir` |
//! | [`axis`] | `ir`, `text` |
//! | [`anchors`] | `axis`, `ir` |
//! | [`scaled_dot`] | `anchors`, `ir`, `shape_ops`, `text` |
//! | [`check`](mod@check) | `assignment`, `ir`, `shape_ops` |
//! | [`cost`] | `assignment`, `error`, `ir`, `shape_ops` |
//! | [`compute`] | `assignment`, `axis`, `cost`, `error`, `ir`, `scaled_dot`, `shape_ops` |
//! | [`engine`] | `anchors`, `assignment`, `axis`, `check`, `compute`, `cost`, `error`, `ir`, `scaled_dot`, `shape_ops` |
//! | [`ttgir`] | `anchors`, `assignment`, `error`, `ir`, `shape_ops`, `text` |
//! | [`report`] | `anchors`, `assignment`, `check`, `compute`, `cost`, `engine`, `error`, `ir`, `parse`, `ttgir` |
//!
//! Conventions are the workspace's: a layout maps hardware bits
//! (`register, lane, warp, block`) to tensor coordinates, out dims
//! `dim0, dim1, …` in shape order, a zero basis a broadcast.
//!
//! ```
//! use layout_engine::{anchors::Target, cost::Pricer, engine::{assign, Options}};
//! let ttir = "module {
//!   tt.func public @add(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
//!     %0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
//!     %1 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>>
//!     %2 = tt.addptr %1, %0 : tensor<1024x!tt.ptr<f16>>, tensor<1024xi32>
//!     %3 = tt.load %2 : tensor<1024x!tt.ptr<f16>>
//!     %4 = arith.addf %3, %3 : tensor<1024xf16>
//!     %5 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>>
//!     %6 = tt.addptr %5, %0 : tensor<1024x!tt.ptr<f16>>, tensor<1024xi32>
//!     tt.store %6, %4 : tensor<1024x!tt.ptr<f16>>
//!     tt.return
//!   }
//! }";
//! let p = layout_engine::parse_program(ttir).unwrap();
//! let out = assign(&p, Options::new(Target::Sm90, 4), &mut Pricer::new()).unwrap();
//! assert!(layout_engine::check(&p, &out.assignment).is_empty());
//! // 16-byte aligned f16 pointers, 1024 elements on 128 threads: 8 per thread.
//! let load = p.ops.iter().find(|o| o.name == "tt.load").unwrap();
//! assert_eq!(
//!     out.assignment.layout(load.results[0]).unwrap().mlir(),
//!     "#ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"
//! );
//! // Load and store agree: no conversion.
//! assert!(out.assignment.uses.values().all(|l| l.ll == out.assignment.layout(load.results[0]).unwrap().ll));
//! ```

#![warn(missing_docs)]

pub mod anchors;
pub mod assignment;
pub mod axis;
pub mod check;
pub mod compute;
pub mod cost;
pub mod engine;
pub mod error;
pub mod ir;
pub mod parse;
pub mod report;
pub mod scaled_dot;
pub mod shape_ops;
pub mod text;
pub mod ttgir;

pub use assignment::{Assignment, Conversion, Layout};
pub use check::{check, Violation};

pub use error::{EngineError, Result};
pub use ir::Program;
pub use parse::parse_program;
