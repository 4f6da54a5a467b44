//! Python bindings of the `linear-layout` and `hw-layouts` crates: the
//! extension module `linear_layouts._native`, re-exported (with the
//! pure-Python Gluon helpers) by the package `linear_layouts`.
//!
//! Conventions are the Rust crate's: a layout maps named input dims
//! (`register, lane, warp, block`, or `offset, block`, ...) to named output
//! dims (`dim0, dim1, ...`); basis `i` of input dim `d` is the image of
//! `d = 2^i`, and the image of any input is the XOR of the bases of its set
//! bits. Packed values hold the first output dim in the low bits; flat input
//! indices hold the first input dim in the low bits.
//!
//! Every error is raised as `linear_layouts.LayoutError` (a `ValueError`)
//! carrying the Rust message; a panic inside the Rust code is caught and
//! raised the same way, so no input can bring the interpreter down.
//!
//! Modules, each depending only on those above it:
//!
//! | module | what it holds |
//! |---|---|
//! | `error` | `LayoutError` and `guard`/`run`, which every binding runs under |
//! | `args` | readers of Python arguments (sizes, dim names, bases, shapes) |
//! | `layout` | the `LinearLayout` class: its value, constructors and queries |
//! | `mlir` | Triton attribute text in (`from_mlir`, memoised) and out (`to_mlir`) |
//! | `algebra`, `evaluation`, `export` | further methods of `LinearLayout`: algebra and shape ops; `apply` and NumPy tables; JSON, text, pictures, pickling |
//! | `cute` | CuTe text and pycute objects |
//! | `plans` | conversions through `layout_codegen` (plans, swizzles, bank conflicts) |
//! | `engine`, `cuda` | the layout engine on a kernel; CUDA source for a conversion |
//!
//! `layout` and `mlir` use each other: `LinearLayout.from_mlir` is the
//! module-level `from_mlir`, which builds a `LinearLayout`.

mod algebra;
mod args;
mod cute;
mod engine;
mod error;
mod evaluation;
mod export;
mod layout;
mod mlir;
mod plans;

use pyo3::prelude::*;

pub(crate) use error::{err, guard, run, LayoutError};
pub(crate) use layout::PyLayout;

mod cuda;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    error::install_quiet_hook();
    m.add_class::<PyLayout>()?;
    m.add("LayoutError", m.py().get_type::<LayoutError>())?;
    m.add_function(wrap_pyfunction!(mlir::from_mlir, m)?)?;
    m.add_function(wrap_pyfunction!(mlir::normalize_mlir, m)?)?;
    m.add_function(wrap_pyfunction!(mlir::clear_cache, m)?)?;
    m.add_function(wrap_pyfunction!(mlir::mlir_space, m)?)?;
    m.add_function(wrap_pyfunction!(algebra::factor_through, m)?)?;
    m.add_function(wrap_pyfunction!(algebra::supremum, m)?)?;
    m.add_function(wrap_pyfunction!(plans::bank_conflicts, m)?)?;
    m.add_function(wrap_pyfunction!(plans::_convert, m)?)?;
    m.add_function(wrap_pyfunction!(plans::_swizzle, m)?)?;
    m.add_function(wrap_pyfunction!(plans::_partial, m)?)?;
    m.add_function(wrap_pyfunction!(plans::_plan, m)?)?;
    m.add_function(wrap_pyfunction!(plans::local_conversion, m)?)?;
    cute::register(m)?;
    m.add_function(wrap_pyfunction!(engine::assign_layouts, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::_cuda, m)?)?;
    Ok(())
}
