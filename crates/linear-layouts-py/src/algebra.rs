//! The algebra of `LinearLayout` in Python: products, composition,
//! inversion, division, factoring, and the shape operations (transpose,
//! reshape, resize, rename, concatenate, restrict); plus the free functions
//! `factor_through` and `supremum`.

use pyo3::prelude::*;

use crate::args::{dim, named_sizes, non_negative, to_dims};
use crate::error::{err, run};
use crate::layout::PyLayout;

#[pymethods]
impl PyLayout {
    // ----- algebra --------------------------------------------------------

    /// `self * outer` (Triton's operator*): `self`'s bases are the low bits
    /// of shared input dims, `outer`'s components are shifted above `self`'s
    /// size in shared output dims.
    fn __mul__(&self, outer: PyRef<'_, PyLayout>) -> PyResult<Self> {
        run(|| self.inner.try_mul(&outer.inner)).map(Self::wrap)
    }

    /// `outer ∘ self`: `self`'s outputs fed to `outer` (the out dims of `self`
    /// must be `outer`'s in dims).
    fn compose(&self, outer: &PyLayout) -> PyResult<Self> {
        run(|| self.inner.compose(&outer.inner)).map(Self::wrap)
    }

    /// `outer⁻¹ ∘ self` (Triton's invertAndCompose): maps `self`'s inputs to
    /// `outer`'s inputs holding the same element.
    fn invert_and_compose(&self, outer: &PyLayout) -> PyResult<Self> {
        run(|| self.inner.invert_and_compose(&outer.inner)).map(Self::wrap)
    }

    /// The inverse of a bijective layout.
    fn invert(&self) -> PyResult<Self> {
        run(|| self.inner.invert()).map(Self::wrap)
    }

    /// A right inverse on the image (pivot input bits for non-injective maps).
    fn pseudoinvert(&self) -> PyResult<Self> {
        run(|| self.inner.pseudoinvert()).map(Self::wrap)
    }

    /// `C` with `self == divisor * C`, or None.
    fn divide_left(&self, divisor: &PyLayout) -> PyResult<Option<Self>> {
        run(|| Ok::<_, String>(linear_layout::divide_left(&self.inner, &divisor.inner)))
            .map(|o| o.map(Self::wrap))
    }

    /// `C` with `self == C * divisor`, or None.
    fn divide_right(&self, divisor: &PyLayout) -> PyResult<Option<Self>> {
        run(|| Ok::<_, String>(linear_layout::divide_right(&self.inner, &divisor.inner)))
            .map(|o| o.map(Self::wrap))
    }

    /// `L'` when `self == L' × identity(dims)`, else None.
    fn quotient(&self, dims: Vec<String>) -> PyResult<Option<Self>> {
        run(|| Ok::<_, String>(self.inner.quotient(&to_dims(&dims)))).map(|o| o.map(Self::wrap))
    }

    /// `X` with `self(X(x)) == b(x)` for every input `x` of `b`, or None when
    /// `b`'s image is not inside `self`'s (free variables set to 0).
    fn factor_through(&self, b: &PyLayout) -> PyResult<Option<Self>> {
        run(|| linear_layout::factor_through(&self.inner, &b.inner)).map(|o| o.map(Self::wrap))
    }

    // ----- shape ops ------------------------------------------------------

    /// Reorders the input dims.
    fn transpose_ins(&self, order: Vec<String>) -> PyResult<Self> {
        run(|| self.inner.transpose_ins(&to_dims(&order))).map(Self::wrap)
    }

    /// Reorders the output dims.
    fn transpose_outs(&self, order: Vec<String>) -> PyResult<Self> {
        run(|| self.inner.transpose_outs(&to_dims(&order))).map(Self::wrap)
    }

    /// Re-splits the input bits over new dims `[(name, size)]` (same total).
    fn reshape_ins(&self, new_ins: &Bound<'_, PyAny>) -> PyResult<Self> {
        let n = named_sizes(new_ins, "in dim")?;
        run(|| self.inner.reshape_ins(&n)).map(Self::wrap)
    }

    /// Re-splits the output bits over new dims `[(name, size)]` (same total).
    fn reshape_outs(&self, new_outs: &Bound<'_, PyAny>) -> PyResult<Self> {
        let n = named_sizes(new_outs, "out dim")?;
        run(|| self.inner.reshape_outs(&n)).map(Self::wrap)
    }

    /// All input dims merged into the first.
    fn flatten_ins(&self) -> Self {
        Self::wrap(self.inner.flatten_ins())
    }

    /// All output dims merged into the first.
    fn flatten_outs(&self) -> Self {
        Self::wrap(self.inner.flatten_outs())
    }

    /// Drops size-1 input dims.
    fn squeeze_ins(&self) -> Self {
        Self::wrap(self.inner.squeeze_ins())
    }

    /// Drops size-1 output dims.
    fn squeeze_outs(&self) -> Self {
        Self::wrap(self.inner.squeeze_outs())
    }

    /// Resizes input dim `d` (smaller drops high bases, larger appends zeros).
    fn resize_in_dim(&self, d: &str, size: i64) -> PyResult<Self> {
        let size = non_negative("new size", size)?;
        run(|| self.inner.resize_in_dim(dim(d), size)).map(Self::wrap)
    }

    /// Shrinks output dim `d` (components that do not fit become 0).
    fn resize_out_dim(&self, d: &str, size: i64) -> PyResult<Self> {
        let size = non_negative("new size", size)?;
        run(|| self.inner.resize_out_dim(dim(d), size)).map(Self::wrap)
    }

    /// Renames input dim `old` to `new`.
    fn rename_in_dim(&self, old: &str, new: &str) -> PyResult<Self> {
        run(|| self.inner.rename_in_dim(dim(old), dim(new))).map(Self::wrap)
    }

    /// Renames output dim `old` to `new`.
    fn rename_out_dim(&self, old: &str, new: &str) -> PyResult<Self> {
        run(|| self.inner.rename_out_dim(dim(old), dim(new))).map(Self::wrap)
    }

    /// `self(x) ⊕ other(y)` over the disjoint union of the input dims.
    fn concat_ins(&self, other: &PyLayout) -> PyResult<Self> {
        run(|| self.inner.concat_ins(&other.inner)).map(Self::wrap)
    }

    /// Joins the output dims (same inputs, disjoint outputs).
    fn concat_outs(&self, other: &PyLayout) -> PyResult<Self> {
        run(|| self.inner.concat_outs(&other.inner)).map(Self::wrap)
    }

    /// The restriction to input dims `ins` and output dims `outs`.
    fn sublayout(&self, ins: Vec<String>, outs: Vec<String>) -> PyResult<Self> {
        run(|| self.inner.sublayout(&to_dims(&ins), &to_dims(&outs))).map(Self::wrap)
    }

    /// Drops every zero basis of input dim `d`.
    fn remove_zero_bases_along_dim(&self, d: &str) -> PyResult<Self> {
        self.check_in(d)?;
        Ok(Self::wrap(self.inner.remove_zero_bases_along_dim(dim(d))))
    }
}

/// `factor_through(a, b)`: `X` with `a ∘ X == b` (solving `a(X(x)) = b(x)`),
/// or None when `b`'s image is not inside `a`'s.
#[pyfunction]
pub(crate) fn factor_through(a: &PyLayout, b: &PyLayout) -> PyResult<Option<PyLayout>> {
    a.factor_through(b)
}

/// `supremum(x, y)`: the smallest dim order containing both orders.
#[pyfunction]
pub(crate) fn supremum(x: Vec<String>, y: Vec<String>) -> PyResult<Vec<&'static str>> {
    linear_layout::supremum(&to_dims(&x), &to_dims(&y))
        .map(|v| v.into_iter().map(|d| d.as_str()).collect())
        .map_err(err)
}
