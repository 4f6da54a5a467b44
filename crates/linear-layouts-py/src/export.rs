//! What a `LinearLayout` turns into: the oracle's JSON schema (`to_dict`,
//! `to_json`), Triton attribute text (`to_mlir`), CuTe and Gluon objects,
//! Triton's toString (`str`, `repr`), SVG pictures, and pickling/copying.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::args::{pow2_size, sizes_list};
use crate::cute;
use crate::error::{err, guard};
use crate::layout::PyLayout;
use crate::mlir::linear_to_mlir;

#[pymethods]
impl PyLayout {
    // ----- serialisation --------------------------------------------------

    /// The oracle's JSON schema: `{"register": [[..]], ...}` (one list of
    /// bases per input dim, in order); with `out_dims=True` also
    /// `"out_dims": [[name, size], ...]`, which `from_dict` reads back exactly.
    ///
    /// For a layout read by `from_mlir` this is what Triton 3.9's
    /// `to_linear_layout` reports (as the CLI's `to-linear --json`): padded
    /// shared gives block bases in CTA-tile units, partitioned shared and
    /// multi-CTA tensor memory drop an input dim. `full=True` gives the
    /// complete layout (every input dim, element units), which is also what
    /// `to_dict(out_dims=True)` and `to_json()` write, so that they read back.
    #[pyo3(signature = (out_dims=false, full=false))]
    fn to_dict<'py>(
        &self,
        py: Python<'py>,
        out_dims: bool,
        full: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let layout = match &self.triton {
            Some(t) if !full && !out_dims => t,
            _ => &self.inner,
        };
        let d = PyDict::new(py);
        for (n, bs) in layout.all_bases() {
            d.set_item(n.as_str(), bs)?;
        }
        if out_dims {
            let outs: Vec<(String, u64)> = self
                .inner
                .out_dims()
                .into_iter()
                .map(|(n, s)| (n.as_str().to_string(), s))
                .collect();
            let l = PyList::empty(py);
            for (n, s) in outs {
                l.append(PyList::new(
                    py,
                    [
                        n.into_pyobject(py)?.into_any(),
                        s.into_pyobject(py)?.into_any(),
                    ],
                )?)?;
            }
            d.set_item("out_dims", l)?;
        }
        Ok(d)
    }

    /// `to_dict(out_dims=True)` as JSON text.
    fn to_json(&self) -> String {
        self.inner.to_json().to_string()
    }

    /// Triton's attribute text for this layout: `#ttg.linear<{register =
    /// ..., lane = ..., warp = ..., block = ...}>` for input dims among
    /// `register, lane, warp, block` (`#ttg.generic_linear` when the bases,
    /// zero bases dropped, are not a permutation matrix), or
    /// `#ttg.shared_linear<{offset = ..., block = ...}, alignment = A>` for
    /// input dims among `offset, block` (`alignment` in bytes, default 16).
    /// Output dims must be `dim0..dim{rank-1}`.
    #[pyo3(signature = (alignment=None))]
    fn to_mlir(&self, alignment: Option<i64>) -> PyResult<String> {
        let alignment = alignment.map(|a| pow2_size("alignment", a)).transpose()?;
        linear_to_mlir(&self.inner, alignment).map_err(err)
    }

    /// CuTe text of this layout (`Swizzle<B,M,S> o Shape:Stride` for a shared
    /// layout, `(thr, val)` for a distributed one); see `linear_layouts.from_cute`.
    fn to_cute(&self) -> PyResult<String> {
        cute::to_cute(&self.inner)
    }

    /// The pycute object of [`Self::to_cute`]'s text. Needs pycute.
    fn to_pycute<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        cute::to_pycute(py, &self.inner)
    }

    /// Triton's Gluon object for this layout (`DistributedLinearLayout` or
    /// `SharedLinearLayout`); see `linear_layouts.to_gluon`. Needs Triton.
    #[pyo3(signature = (alignment=16))]
    fn to_gluon<'py>(slf: &Bound<'py, Self>, alignment: i64) -> PyResult<Bound<'py, PyAny>> {
        slf.py()
            .import("linear_layouts")?
            .getattr("to_gluon")?
            .call1((slf, alignment))
    }

    /// Triton's toString.
    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    /// The layout as an SVG picture (layout-view): for a distributed layout
    /// the tensor grid coloured by warp with thread:register labels (or, with
    /// `hw=True`, warps × lanes × registers), for a shared layout the bank
    /// view. The tensor shape is the layout's out-dim sizes.
    ///
    /// `rows=(a, b)` / `cols=(c, d)` (half-open) draw only that window of
    /// the tensor grid of a distributed layout.
    #[pyo3(signature = (hw=false, rows=None, cols=None))]
    fn svg(
        &self,
        hw: bool,
        rows: Option<(u64, u64)>,
        cols: Option<(u64, u64)>,
    ) -> PyResult<String> {
        let shape: Vec<u64> = self.inner.out_dims().iter().map(|d| d.1).collect();
        let l = &self.inner;
        let window = layout_view::Window {
            rows: rows.map(|(a, b)| a..b),
            cols: cols.map(|(a, b)| a..b),
        };
        if hw && window != layout_view::Window::default() {
            return Err(err(
                "rows/cols select a window of the tensor picture, not of hw=True",
            ));
        }
        guard(|| {
            if hw {
                layout_view::svg::hardware_picture(l, &shape)
            } else if window != layout_view::Window::default() {
                layout_view::svg::tensor_picture_window(l, &shape, &window)
            } else {
                layout_view::svg::default_picture(l, &shape)
            }
            .map(|p| p.svg)
            // The library names the CLI's flags; in Python they are arguments.
            .map_err(|e| {
                e.to_string()
                    .replace("(--rows/--cols)", "with svg(rows=(a, b), cols=(c, d))")
                    .replace("--rows/--cols", "svg(rows=(a, b), cols=(c, d))")
            })
        })
    }

    /// Notebook display: the picture of [`Self::svg`].
    fn _repr_svg_(&self) -> PyResult<String> {
        self.svg(false, None, None)
    }

    /// Triton's toString (multi-line): one line per basis, then the out dims.
    fn __repr__(&self) -> String {
        let s = self.inner.to_string();
        format!("LinearLayout(\n{})", s.trim_start_matches('\n'))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let me = slf.get();
        let bases = PyDict::new(py);
        for (n, bs) in me.inner.all_bases() {
            bases.set_item(n.as_str(), bs)?;
        }
        let outs = sizes_list(py, me.inner.out_dims())?;
        let args = PyTuple::new(
            py,
            [
                bases.into_any(),
                outs.into_any(),
                false.into_pyobject(py)?.to_owned().into_any(),
            ],
        )?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }

    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (_memo=None))]
    fn __deepcopy__<'py>(
        slf: PyRef<'py, Self>,
        _memo: Option<&Bound<'py, PyAny>>,
    ) -> PyRef<'py, Self> {
        slf
    }
}
