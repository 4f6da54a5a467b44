//! The `LinearLayout` class: the value it wraps, its constructors (from
//! bases, 1-D pieces, JSON, Triton attribute text) and its queries (dims,
//! bases, properties). The algebra (`algebra.rs`), evaluation
//! (`evaluation.rs`) and serialisation (`export.rs`) methods are further
//! `#[pymethods]` blocks of the same class (PyO3's `multiple-pymethods`).

use linear_layout::{DimName, LinearLayout};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::args::{
    dim, named_bases, named_sizes, non_negative, parse_shape, pow2_size, sizes_list, to_dims,
};
use crate::error::{err, run};
use crate::mlir::from_mlir;

/// A linear layout over GF(2) (Triton's `LinearLayout`): immutable, hashable,
/// picklable. Build one from bases (`LinearLayout({"register": [[1], [2]]},
/// [("dim0", 4)])`), from 1-D pieces (`identity_1d`, `zeros_1d`,
/// `strided_1d`) combined with `*`, or from Triton attribute text
/// (`from_mlir`).
#[pyclass(name = "LinearLayout", module = "linear_layouts", frozen, eq, hash)]
#[derive(Clone)]
pub struct PyLayout {
    pub(crate) inner: LinearLayout,
    /// What Triton 3.9's `to_linear_layout` reports for the attribute this
    /// layout was read from (`from_mlir`), where that differs from `inner`:
    /// padded shared gives block bases in CTA-tile units, partitioned shared
    /// and multi-CTA tensor memory drop an input dim. `to_dict()` prints it,
    /// `to_dict(full=True)` prints `inner`. Not part of equality or hashing.
    pub(crate) triton: Option<Box<LinearLayout>>,
}

impl PartialEq for PyLayout {
    fn eq(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
}

impl Eq for PyLayout {}

impl std::hash::Hash for PyLayout {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.inner.hash(state);
    }
}

impl PyLayout {
    pub(crate) fn wrap(inner: LinearLayout) -> Self {
        PyLayout {
            inner,
            triton: None,
        }
    }
}

fn from_bases_impl(
    bases: &Bound<'_, PyAny>,
    out_dims: Option<&Bound<'_, PyAny>>,
    require_surjective: bool,
) -> PyResult<PyLayout> {
    let bs = named_bases(bases)?;
    let rank = bs
        .iter()
        .flat_map(|(_, b)| b.first())
        .map(|b| b.len())
        .next();
    // A list of names (not a dict, not a str): sizes inferred.
    let names: Option<Vec<String>> = match out_dims {
        Some(o) if o.downcast::<PyDict>().is_err() && !o.is_instance_of::<PyString>() => {
            o.extract::<Vec<String>>().ok()
        }
        _ => None,
    };
    let l = match (out_dims, names) {
        (None, _) => {
            let Some(rank) = rank else {
                return Err(err(
                    "cannot infer the output dims of a layout without bases: pass out_dims",
                ));
            };
            if require_surjective {
                run(|| LinearLayout::with_inferred_out_sizes(bs, DimName::standard_out_dims(rank)))?
            } else {
                // Each out dim just large enough for every component.
                let mut sizes = vec![1u64; rank];
                for (_, b) in &bs {
                    for basis in b {
                        for (size, &c) in sizes.iter_mut().zip(basis) {
                            *size = (*size).max(
                                c.saturating_add(1)
                                    .checked_next_power_of_two()
                                    .unwrap_or(u64::MAX),
                            );
                        }
                    }
                }
                let outs = DimName::standard_out_dims(rank)
                    .into_iter()
                    .zip(sizes)
                    .collect();
                run(|| LinearLayout::new(bs, outs, false))?
            }
        }
        (Some(_), Some(names)) if !names.is_empty() || rank.is_none() => {
            run(|| LinearLayout::with_inferred_out_sizes(bs, to_dims(&names)))?
        }
        (Some(o), _) => {
            let outs = named_sizes(o, "out dim")?;
            run(|| LinearLayout::new(bs, outs, require_surjective))?
        }
    };
    Ok(PyLayout::wrap(l))
}

#[pymethods]
impl PyLayout {
    /// `LinearLayout(bases, out_dims=None, require_surjective=True)`.
    ///
    /// `bases`: `{in_dim: [[c0, c1, ...], ...]}` (dict order = in-dim order,
    /// minor first), one component per out dim. `out_dims`: `{name: size}`
    /// or `[(name, size), ...]` (sizes powers of two), or a list of names
    /// (sizes inferred as the smallest power of two above every component,
    /// layout then required surjective), or None (names `dim0..`, inferred).
    #[new]
    #[pyo3(signature = (bases, out_dims=None, require_surjective=true))]
    fn py_new(
        bases: &Bound<'_, PyAny>,
        out_dims: Option<&Bound<'_, PyAny>>,
        require_surjective: bool,
    ) -> PyResult<Self> {
        from_bases_impl(bases, out_dims, require_surjective)
    }

    /// Same as the constructor.
    #[staticmethod]
    #[pyo3(signature = (bases, out_dims=None, require_surjective=true))]
    fn from_bases(
        bases: &Bound<'_, PyAny>,
        out_dims: Option<&Bound<'_, PyAny>>,
        require_surjective: bool,
    ) -> PyResult<Self> {
        from_bases_impl(bases, out_dims, require_surjective)
    }

    /// The layout with no dims (neutral element of `*`).
    #[staticmethod]
    fn empty() -> Self {
        Self::wrap(LinearLayout::empty())
    }

    /// `x ↦ x` from `in_dim` (size `size`) to `out_dim` (size `size`).
    #[staticmethod]
    fn identity_1d(size: i64, in_dim: &str, out_dim: &str) -> PyResult<Self> {
        let size = non_negative("identity_1d size", size)?;
        run(|| LinearLayout::try_identity_1d(size, dim(in_dim), dim(out_dim))).map(Self::wrap)
    }

    /// `x ↦ 0` from `in_dim` (size `size`) to `out_dim` of size `out_size`.
    #[staticmethod]
    #[pyo3(signature = (size, in_dim, out_dim, out_size=1))]
    fn zeros_1d(size: i64, in_dim: &str, out_dim: &str, out_size: i64) -> PyResult<Self> {
        let size = non_negative("zeros_1d size", size)?;
        let out_size = non_negative("zeros_1d out size", out_size)?;
        run(|| LinearLayout::try_zeros_1d(size, dim(in_dim), dim(out_dim), out_size))
            .map(Self::wrap)
    }

    /// `x ↦ stride * x` from `in_dim` (size `size`) to `out_dim` (size
    /// `stride * size`).
    #[staticmethod]
    fn strided_1d(size: i64, stride: i64, in_dim: &str, out_dim: &str) -> PyResult<Self> {
        let size = non_negative("strided_1d size", size)?;
        let stride = pow2_size("strided_1d stride", stride)?;
        run(|| LinearLayout::try_strided_1d(size, stride, dim(in_dim), dim(out_dim)))
            .map(Self::wrap)
    }

    /// Reads the oracle's JSON schema: `{"register": [[..]], ...}`, optionally
    /// with `"out_dims": [[name, size], ...]`. Without `out_dims` the out dims
    /// are `dim0..` with the sizes of `shape`, or inferred when `shape` is None.
    #[staticmethod]
    #[pyo3(signature = (d, shape=None))]
    fn from_dict(py: Python<'_>, d: &Bound<'_, PyAny>, shape: Option<Vec<i64>>) -> PyResult<Self> {
        let json = py.import("json")?;
        let text: String = json.call_method1("dumps", (d,))?.extract()?;
        Self::from_json(&text, shape)
    }

    /// Like `from_dict`, from JSON text.
    #[staticmethod]
    #[pyo3(signature = (text, shape=None))]
    fn from_json(text: &str, shape: Option<Vec<i64>>) -> PyResult<Self> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| err(format!("invalid layout JSON: {e}")))?;
        let shape = shape.map(parse_shape).transpose()?;
        run(|| LinearLayout::from_json(&v, shape.as_deref())).map(Self::wrap)
    }

    /// The layout of Triton attribute `text` for a tensor of `shape` (see the
    /// module-level `from_mlir`).
    #[staticmethod]
    #[pyo3(signature = (text, shape, threads_per_warp=None, cache=true, num_warps=None))]
    fn from_mlir(
        text: &str,
        shape: Vec<i64>,
        threads_per_warp: Option<i64>,
        cache: bool,
        num_warps: Option<i64>,
    ) -> PyResult<Self> {
        from_mlir(text, shape, threads_per_warp, cache, num_warps)
    }

    // ----- dims -----------------------------------------------------------

    /// Input dims `[(name, size)]`, minor first.
    #[getter]
    fn in_dims<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        sizes_list(py, self.inner.in_dims())
    }

    /// Output dims `[(name, size)]`, first = lowest bits of packed values.
    #[getter]
    fn out_dims<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        sizes_list(py, self.inner.out_dims())
    }

    /// Input dim names, minor first.
    #[getter]
    pub(crate) fn in_dim_names(&self) -> Vec<&'static str> {
        self.inner.in_dim_names().map(|d| d.as_str()).collect()
    }

    /// Output dim names.
    #[getter]
    fn out_dim_names(&self) -> Vec<&'static str> {
        self.inner.out_dim_names().map(|d| d.as_str()).collect()
    }

    /// Size of input dim `d` (a power of two).
    fn in_dim_size(&self, d: &str) -> PyResult<u64> {
        self.check_in(d)?;
        Ok(self.inner.in_dim_size(dim(d)))
    }

    /// log2 of the size of input dim `d` (its number of bases).
    fn in_dim_size_log2(&self, d: &str) -> PyResult<u32> {
        self.check_in(d)?;
        Ok(self.inner.in_dim_size_log2(dim(d)))
    }

    /// Size of output dim `d`.
    fn out_dim_size(&self, d: &str) -> PyResult<u64> {
        self.check_out(d)?;
        Ok(self.inner.out_dim_size(dim(d)))
    }

    /// log2 of the size of output dim `d`.
    fn out_dim_size_log2(&self, d: &str) -> PyResult<u32> {
        self.check_out(d)?;
        Ok(self.inner.out_dim_size_log2(dim(d)))
    }

    /// Product of the input sizes.
    #[getter]
    fn total_in_dim_size(&self) -> u64 {
        self.inner.total_in_dim_size()
    }

    /// Product of the output sizes.
    #[getter]
    fn total_out_dim_size(&self) -> u64 {
        self.inner.total_out_dim_size()
    }

    /// Total number of input bits.
    #[getter]
    fn total_in_dim_size_log2(&self) -> u32 {
        self.inner.total_in_dim_size_log2()
    }

    /// Total number of output bits.
    #[getter]
    fn total_out_dim_size_log2(&self) -> u32 {
        self.inner.total_out_dim_size_log2()
    }

    /// Bases of input dim `d` (`[[c_dim0, c_dim1, ...], ...]`), or of every
    /// input dim as a dict when `d` is None.
    #[pyo3(signature = (d=None))]
    fn bases<'py>(&self, py: Python<'py>, d: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
        match d {
            Some(d) => {
                self.check_in(d)?;
                Ok(self.inner.bases(dim(d)).into_pyobject(py)?.into_any())
            }
            None => {
                let out = PyDict::new(py);
                for (n, bs) in self.inner.all_bases() {
                    out.set_item(n.as_str(), bs)?;
                }
                Ok(out.into_any())
            }
        }
    }

    /// Basis `i` of input dim `d`: the image of `d = 2^i`.
    fn basis(&self, d: &str, i: usize) -> PyResult<Vec<u64>> {
        self.check_in(d)?;
        let n = self.inner.in_dim_size_log2(dim(d)) as usize;
        if i >= n {
            return Err(err(format!(
                "basis index {i} out of range: in dim '{d}' has {n} bases"
            )));
        }
        Ok(self.inner.basis(dim(d), i))
    }

    /// Packed bases of input dim `d` (first out dim in the low bits).
    fn packed_bases(&self, d: &str) -> PyResult<Vec<u64>> {
        self.check_in(d)?;
        Ok(self.inner.packed_bases(dim(d)).to_vec())
    }

    /// Every packed basis, input dims concatenated (columns of the matrix).
    fn columns(&self) -> Vec<u64> {
        self.inner.columns().to_vec()
    }

    /// Splits a packed output into one value per out dim.
    fn unpack(&self, packed: u64) -> Vec<u64> {
        self.inner.unpack(packed).to_vec()
    }

    /// Packs one value per out dim (each must fit its dim).
    fn pack(&self, values: Vec<i64>) -> PyResult<u64> {
        let outs = self.inner.out_dims();
        if values.len() != outs.len() {
            return Err(err(format!(
                "pack needs {} values (one per out dim), got {}",
                outs.len(),
                values.len()
            )));
        }
        for (v, (n, s)) in values.iter().zip(&outs) {
            if *v < 0 || *v as u64 >= *s {
                return Err(err(format!(
                    "value {v} out of range for out dim '{n}' of size {s}"
                )));
            }
        }
        let vals: Vec<u64> = values.into_iter().map(|v| v as u64).collect();
        Ok(self.inner.pack(&vals))
    }

    // ----- properties -----------------------------------------------------

    /// GF(2) rank of the matrix.
    fn rank(&self) -> u32 {
        self.inner.rank()
    }

    /// Every output value is reached.
    fn is_surjective(&self) -> bool {
        self.inner.is_surjective()
    }

    /// No two inputs map to the same output.
    fn is_injective(&self) -> bool {
        self.inner.is_injective()
    }

    /// A bijection.
    fn is_invertible(&self) -> bool {
        self.inner.is_invertible()
    }

    /// Per input dim, the mask of free bits (bits whose basis depends on
    /// earlier bases, zero bases included): `{in_dim: mask}`.
    fn free_variable_masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (n, m) in self.inner.free_variable_masks() {
            out.set_item(n.as_str(), m)?;
        }
        Ok(out)
    }

    /// How many consecutive values of the first in dim map to consecutive
    /// values of the first out dim (Triton's `getNumConsecutiveInOut`).
    fn num_consecutive_in_out(&self) -> u64 {
        self.inner.num_consecutive_in_out()
    }

    /// Whether every basis of `ins` is zero in `outs`.
    fn sublayout_is_zero(&self, ins: Vec<String>, outs: Vec<String>) -> bool {
        self.inner
            .sublayout_is_zero(&to_dims(&ins), &to_dims(&outs))
    }

    /// Whether the layout is `L' × identity(dims)`.
    fn is_trivial_over(&self, dims: Vec<String>) -> PyResult<bool> {
        self.inner.is_trivial_over(&to_dims(&dims)).map_err(err)
    }

    /// Equal dims and bases, output sizes aside.
    fn equal_ignoring_out_dim_sizes(&self, other: &PyLayout) -> bool {
        self.inner.equal_ignoring_out_dim_sizes(&other.inner)
    }
}

impl PyLayout {
    pub(crate) fn check_in(&self, d: &str) -> PyResult<()> {
        if self.inner.has_in_dim(dim(d)) {
            Ok(())
        } else {
            Err(err(format!(
                "input dim '{d}' not found (in dims: {:?})",
                self.in_dim_names()
            )))
        }
    }

    pub(crate) fn check_out(&self, d: &str) -> PyResult<()> {
        if self.inner.has_out_dim(dim(d)) {
            Ok(())
        } else {
            Err(err(format!(
                "output dim '{d}' not found (out dims: {:?})",
                self.out_dim_names()
            )))
        }
    }
}
