//! CuTe layouts in Python (`hw_layouts::cute`): `from_cute(text, shape=None)`,
//! `from_pycute(obj, shape=None)`, and the `LinearLayout.to_cute()` /
//! `to_pycute()` methods. Conventions are the Rust module's: top-level CuTe
//! mode `k` is `dimk`; a plain CuTe layout maps coordinate → offset and
//! becomes a shared layout (offset → coordinate, its inverse); with a tile
//! `shape`, a `(thread, value) → tile index` layout becomes a distributed
//! layout (thread bits lane then warp, value bits register, the tile index
//! column-major).

use super::{guard, PyLayout};
use hw_layouts::cute::{self, CuteLayout, IntTuple};
use linear_layout::{DimName, LinearLayout};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

fn tile_shape(shape: Option<Vec<i64>>) -> Result<Option<Vec<u64>>, String> {
    shape
        .map(|s| {
            s.iter()
                .map(|&x| {
                    u64::try_from(x)
                        .map_err(|_| format!("shape entries must be non-negative, got {x}"))
                })
                .collect()
        })
        .transpose()
}

fn linear_of(text: &str, shape: Option<Vec<i64>>) -> Result<LinearLayout, String> {
    let c = cute::parse(text).map_err(|e| e.to_string())?;
    match tile_shape(shape)? {
        Some(t) => cute::tv_to_distributed(&c, &t),
        None => cute::to_shared_linear(&c),
    }
    .map_err(|e| e.to_string())
}

/// The linear layout of CuTe text: a shared layout (offset → `dim0, ...`)
/// for a layout read as coordinate → offset, or, given the tile `shape`, a
/// distributed layout for a `(thread, value)` layout. Raises `LayoutError`
/// naming the mode that breaks linearity.
#[pyfunction]
#[pyo3(signature = (text, shape=None))]
pub fn from_cute(text: &str, shape: Option<Vec<i64>>) -> PyResult<PyLayout> {
    guard(|| linear_of(text, shape).map(PyLayout::wrap))
}

/// The linear layout of a pycute `Layout` or `ComposedLayout` (a swizzle
/// over a layout), read as [`from_cute`] reads its text; pycute itself is
/// not imported.
#[pyfunction]
#[pyo3(signature = (layout, shape=None))]
pub fn from_pycute(layout: &Bound<'_, PyAny>, shape: Option<Vec<i64>>) -> PyResult<PyLayout> {
    let cls = layout.get_type().name()?.to_string();
    if cls != "Layout" && cls != "ComposedLayout" {
        return Err(super::err(format!(
            "from_pycute needs a pycute Layout or ComposedLayout, got {cls}"
        )));
    }
    let text = layout.str()?.to_string();
    from_cute(&text, shape)
}

/// CuTe text of a linear layout: shared (`offset` in dims) as coordinate →
/// offset, distributed as `(thr, val)`, any other 1-output layout as its
/// in dims → output.
pub fn to_cute_layout(l: &LinearLayout) -> Result<CuteLayout, String> {
    if l.has_in_dim(DimName::OFFSET) {
        cute::from_shared_linear(l)
    } else if l.has_in_dim(DimName::REGISTER) || l.has_in_dim(DimName::LANE) {
        cute::to_tv(l)
    } else {
        cute::from_offset_map(l)
    }
    .map_err(|e| e.to_string())
}

/// `LinearLayout.to_cute()`.
pub fn to_cute(l: &LinearLayout) -> PyResult<String> {
    guard(|| to_cute_layout(l).map(|c| c.to_string()))
}

fn py_tuple<'py>(py: Python<'py>, t: &IntTuple) -> PyResult<Bound<'py, PyAny>> {
    Ok(match t {
        IntTuple::Int(v) => v.into_pyobject(py)?.into_any(),
        IntTuple::Tuple(ts) => {
            let items = ts
                .iter()
                .map(|x| py_tuple(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any()
        }
    })
}

/// `LinearLayout.to_pycute()`: the pycute object (`Layout`, or
/// `ComposedLayout(Swizzle, 0, Layout)`). Needs pycute.
pub fn to_pycute<'py>(py: Python<'py>, l: &LinearLayout) -> PyResult<Bound<'py, PyAny>> {
    let c = guard(|| to_cute_layout(l))?;
    let pycute = py.import("pycute")?;
    let layout = pycute.getattr("Layout")?.call1((
        py_tuple(py, &c.layout.shape)?,
        py_tuple(py, &c.layout.stride)?,
    ))?;
    match c.swizzle {
        None => Ok(layout),
        Some(s) => {
            let sw = pycute
                .getattr("Swizzle")?
                .call1((s.bits, s.base, s.shift))?;
            pycute.getattr("ComposedLayout")?.call1((sw, 0, layout))
        }
    }
}

/// Registers the module's functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_cute, m)?)?;
    m.add_function(wrap_pyfunction!(from_pycute, m)?)?;
    Ok(())
}
