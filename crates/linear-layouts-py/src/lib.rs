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

mod cute;
mod engine;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use hw_layouts::Encoding;
use linear_layout::{DimName, LinearLayout};
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList, PyString, PyTuple};

create_exception!(
    linear_layouts,
    LayoutError,
    PyValueError,
    "A rejected layout operation or input; the message names the problem and the value."
);

fn err(e: impl std::fmt::Display) -> PyErr {
    LayoutError::new_err(e.to_string())
}

thread_local! {
    /// Set while `guard` runs: the panic hook stays silent (the panic becomes
    /// a `LayoutError` carrying its message).
    static IN_GUARD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs (once) a panic hook that is silent inside `guard` and otherwise
/// defers to the previous hook.
fn install_quiet_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_GUARD.with(|g| g.get()) {
                previous(info);
            }
        }));
    });
}

/// Runs `f`, turning an `Err` into `LayoutError` and a panic into
/// `LayoutError("internal error: ...")`.
fn guard<T>(f: impl FnOnce() -> Result<T, String>) -> PyResult<T> {
    let was = IN_GUARD.with(|g| g.replace(true));
    let r = catch_unwind(AssertUnwindSafe(f));
    IN_GUARD.with(|g| g.set(was));
    match r {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(m)) => Err(LayoutError::new_err(m)),
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(LayoutError::new_err(format!("internal error: {msg}")))
        }
    }
}

/// Runs a fallible Rust call under `guard`, with its error's message.
fn run<T, E: std::fmt::Display>(f: impl FnOnce() -> Result<T, E>) -> PyResult<T> {
    guard(|| f().map_err(|e| e.to_string()))
}

/// A non-negative integer argument (named in the error).
fn non_negative(what: &str, v: i64) -> PyResult<u64> {
    if v < 0 {
        Err(err(format!("{what} must be non-negative, got {v}")))
    } else {
        Ok(v as u64)
    }
}

/// A size argument: a positive power of two.
fn pow2_size(what: &str, v: i64) -> PyResult<u64> {
    if v <= 0 || (v & (v - 1)) != 0 {
        Err(err(format!("{what} must be a power of two, got {v}")))
    } else {
        Ok(v as u64)
    }
}

fn dim(s: &str) -> DimName {
    DimName::new(s)
}

fn to_dims(v: &[String]) -> Vec<DimName> {
    v.iter().map(|s| dim(s)).collect()
}

/// `[(name, size)]` from a dict `{name: size}` or a sequence of pairs.
fn named_sizes(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<(DimName, u64)>> {
    let mut out = Vec::new();
    if let Ok(d) = obj.downcast::<PyDict>() {
        for (k, v) in d.iter() {
            let name: String = k.extract()?;
            let size: i64 = v.extract()?;
            out.push((
                dim(&name),
                non_negative(&format!("size of {what} '{name}'"), size)?,
            ));
        }
        return Ok(out);
    }
    for item in obj.try_iter()? {
        let (name, size): (String, i64) = item?.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "{what}s must be a dict {{name: size}} or a list of (name, size) pairs"
            ))
        })?;
        out.push((
            dim(&name),
            non_negative(&format!("size of {what} '{name}'"), size)?,
        ));
    }
    Ok(out)
}

/// Input bases from a dict `{in_dim: [[c0, c1, ...], ...]}` or a sequence
/// of `(in_dim, bases)` pairs; negative components are rejected.
fn named_bases(obj: &Bound<'_, PyAny>) -> PyResult<Vec<(DimName, Vec<Vec<u64>>)>> {
    let pairs: Vec<(String, Vec<Vec<i128>>)> = if let Ok(d) = obj.downcast::<PyDict>() {
        d.iter()
            .map(|(k, v)| Ok((k.extract()?, v.extract()?)))
            .collect::<PyResult<_>>()?
    } else {
        obj.extract().map_err(|_| {
            PyTypeError::new_err(
                "bases must be a dict {in_dim: [[component, ...], ...]} or a list of (in_dim, bases) pairs",
            )
        })?
    };
    pairs
        .into_iter()
        .map(|(name, bs)| {
            let bs = bs
                .into_iter()
                .enumerate()
                .map(|(i, b)| {
                    b.into_iter()
                        .map(|c| {
                            if c < 0 {
                                Err(err(format!(
                                    "basis {i} of in dim '{name}' has a negative component {c}"
                                )))
                            } else if c > u64::MAX as i128 {
                                Err(err(format!(
                                    "basis {i} of in dim '{name}' has a component {c} beyond 64 bits"
                                )))
                            } else {
                                Ok(c as u64)
                            }
                        })
                        .collect::<PyResult<Vec<u64>>>()
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok((dim(&name), bs))
        })
        .collect()
}

fn sizes_list<'py>(py: Python<'py>, v: Vec<(DimName, u64)>) -> PyResult<Bound<'py, PyList>> {
    let items: Vec<Bound<'py, PyTuple>> = v
        .into_iter()
        .map(|(n, s)| {
            PyTuple::new(
                py,
                [
                    n.as_str().into_pyobject(py)?.into_any(),
                    s.into_pyobject(py)?.into_any(),
                ],
            )
        })
        .collect::<PyResult<_>>()?;
    PyList::new(py, items)
}

fn bases_text(bs: &[Vec<u64>]) -> String {
    let mut s = String::from("[");
    for (i, b) in bs.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push('[');
        for (k, c) in b.iter().enumerate() {
            if k > 0 {
                s.push_str(", ");
            }
            let _ = write!(s, "{c}");
        }
        s.push(']');
    }
    s.push(']');
    s
}

/// Whether Triton prints a distributed linear layout as `#ttg.linear`
/// (rather than `#ttg.generic_linear`): after dropping zero bases, every
/// basis has exactly one non-zero component, a power of two, and the
/// remaining bases are distinct and cover every output bit (a permutation
/// matrix).
fn is_permutation_after_zeros(l: &LinearLayout) -> bool {
    let mut seen = 0u64;
    let mut count = 0u32;
    for (_, bs) in l.all_bases() {
        for b in bs {
            let nz: Vec<u64> = b.iter().copied().filter(|&c| c != 0).collect();
            if nz.is_empty() {
                continue;
            }
            if nz.len() != 1 || !nz[0].is_power_of_two() {
                return false;
            }
        }
    }
    for d in l.in_dim_names() {
        for &c in l.packed_bases(d) {
            if c == 0 {
                continue;
            }
            if seen & c != 0 {
                return false;
            }
            seen |= c;
            count += 1;
        }
    }
    count == l.total_out_dim_size_log2()
}

/// Triton's attribute text for a layout given by its bases (see
/// [`PyLayout::to_mlir`]).
fn linear_to_mlir(l: &LinearLayout, alignment: Option<u64>) -> Result<String, String> {
    let outs: Vec<DimName> = l.out_dim_names().collect();
    if outs != DimName::standard_out_dims(outs.len()) || outs.is_empty() {
        return Err(format!(
            "to_mlir needs the output dims dim0..dim{{rank-1}} in order, got {:?}",
            outs.iter().map(|d| d.as_str()).collect::<Vec<_>>()
        ));
    }
    let ins: Vec<DimName> = l.in_dim_names().collect();
    let is_in = |set: &[DimName]| ins.iter().all(|d| set.contains(d));
    let get = |d: DimName| {
        if l.has_in_dim(d) {
            l.bases(d)
        } else {
            Vec::new()
        }
    };
    let dist = [
        DimName::REGISTER,
        DimName::LANE,
        DimName::WARP,
        DimName::BLOCK,
    ];
    let shared = [DimName::OFFSET, DimName::BLOCK];
    let only_block = ins.iter().all(|&d| d == DimName::BLOCK);
    if is_in(&dist) && !(alignment.is_some() && only_block) {
        if alignment.is_some() {
            return Err("alignment applies to shared layouts (in dims offset, block) only".into());
        }
        let name = if is_permutation_after_zeros(l) {
            "linear"
        } else {
            "generic_linear"
        };
        let parts: Vec<String> = dist
            .iter()
            .map(|&d| format!("{} = {}", d.as_str(), bases_text(&get(d))))
            .collect();
        return Ok(format!("#ttg.{name}<{{{}}}>", parts.join(", ")));
    }
    if is_in(&shared) {
        let mut s = format!(
            "#ttg.shared_linear<{{offset = {}",
            bases_text(&get(DimName::OFFSET))
        );
        let block = get(DimName::BLOCK);
        if !block.is_empty() {
            let _ = write!(s, ", block = {}", bases_text(&block));
        }
        let _ = write!(s, "}}, alignment = {}>", alignment.unwrap_or(16));
        return Ok(s);
    }
    Err(format!(
        "to_mlir needs the in dims of a distributed layout (register, lane, warp, block) or of a \
         shared one (offset, block), got {:?}",
        ins.iter().map(|d| d.as_str()).collect::<Vec<_>>()
    ))
}

fn parse_shape(shape: Vec<i64>) -> PyResult<Vec<u64>> {
    shape
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            if s <= 0 {
                Err(err(format!(
                    "invalid shape: dimension {i} is {s}, must be a positive power of two"
                )))
            } else {
                Ok(s as u64)
            }
        })
        .collect()
}

/// A linear layout over GF(2) (Triton's `LinearLayout`): immutable, hashable,
/// picklable. Build one from bases (`LinearLayout({"register": [[1], [2]]},
/// [("dim0", 4)])`), from 1-D pieces (`identity_1d`, `zeros_1d`,
/// `strided_1d`) combined with `*`, or from Triton attribute text
/// (`from_mlir`).
#[pyclass(name = "LinearLayout", module = "linear_layouts", frozen, eq, hash)]
#[derive(Clone)]
pub struct PyLayout {
    inner: LinearLayout,
    /// What Triton 3.9's `to_linear_layout` reports for the attribute this
    /// layout was read from (`from_mlir`), where that differs from `inner`:
    /// padded shared gives block bases in CTA-tile units, partitioned shared
    /// and multi-CTA tensor memory drop an input dim. `to_dict()` prints it,
    /// `to_dict(full=True)` prints `inner`. Not part of equality or hashing.
    triton: Option<Box<LinearLayout>>,
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
    fn wrap(inner: LinearLayout) -> Self {
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
                            *size = (*size).max(c.saturating_add(1).checked_next_power_of_two().unwrap_or(u64::MAX));
                        }
                    }
                }
                let outs = DimName::standard_out_dims(rank).into_iter().zip(sizes).collect();
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
    fn in_dim_names(&self) -> Vec<&'static str> {
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

    // ----- evaluation -----------------------------------------------------

    /// `apply(register=3, lane=5, ...)` (or `apply({"register": 3, ...})`):
    /// the output `{out_dim: value}` for the given value of every input dim
    /// (size-1 dims may be omitted). Each value must be in `0..size` of its dim.
    #[pyo3(signature = (coords=None, /, **kwargs))]
    fn apply<'py>(
        &self,
        py: Python<'py>,
        coords: Option<&Bound<'py, PyDict>>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut ins = Vec::new();
        for d in [coords, kwargs].into_iter().flatten() {
            for (k, v) in d.iter() {
                let name: String = k.extract()?;
                let v: i64 = v.extract()?;
                let Some(size) = self
                    .inner
                    .in_dims()
                    .iter()
                    .find(|x| x.0.as_str() == name)
                    .map(|x| x.1)
                else {
                    return Err(err(format!(
                        "input dim '{name}' not found (in dims: {:?})",
                        self.in_dim_names()
                    )));
                };
                if v < 0 || v as u64 >= size {
                    return Err(err(format!(
                        "value {v} out of range for in dim '{name}' of size {size}"
                    )));
                }
                ins.push((dim(&name), v as u64));
            }
        }
        // Size-1 input dims (whose only value is 0) may be omitted.
        for (d, size) in self.inner.in_dims() {
            if size == 1 && !ins.iter().any(|x| x.0 == d) {
                ins.push((d, 0));
            }
        }
        let out = run(|| self.inner.apply(&ins))?;
        let d = PyDict::new(py);
        for (n, v) in out {
            d.set_item(n.as_str(), v)?;
        }
        Ok(d)
    }

    /// The packed output for a flat input index (first in dim lowest).
    fn apply_flat(&self, index: i64) -> PyResult<u64> {
        let index = non_negative("flat index", index)?;
        let n = self.inner.total_in_dim_size_log2();
        if n < 64 && index >> n != 0 {
            return Err(err(format!(
                "flat index {index} out of range: {n} input bits"
            )));
        }
        Ok(self.inner.apply_flat(index))
    }

    /// The whole function as a NumPy array: entry `i` is the output for flat
    /// input index `i` (input dims concatenated, the first in the low bits),
    /// packed (first out dim in the low bits, dtype uint64), or with
    /// `unpacked=True` an `(N, number of out dims)` array of coordinates.
    #[pyo3(signature = (unpacked=false))]
    ///
    /// At most `2**24` values (entries times coordinates): the table is
    /// built in Rust and copied twice on the way to NumPy (about 400 MB at
    /// the limit), so a larger one is refused at once instead of exhausting
    /// memory (a 2**32-entry table needs 32 GB per copy).
    fn table<'py>(&self, py: Python<'py>, unpacked: bool) -> PyResult<Bound<'py, PyAny>> {
        const MAX_TABLE_VALUES_LOG2: u32 = 24;
        let bits = self.inner.total_in_dim_size_log2();
        let cols = if unpacked { self.inner.out_dims().len().max(1) } else { 1 };
        let values_log2 = bits + (cols as u32).next_power_of_two().trailing_zeros();
        if values_log2 > MAX_TABLE_VALUES_LOG2 && bits <= 32 {
            return Err(err(format!(
                "table: 2**{bits} entries x {cols} coordinate(s) exceed the limit of 2**{MAX_TABLE_VALUES_LOG2} values; use apply() or apply_flat() for single indices"
            )));
        }
        let t = run(|| self.inner.table())?;
        let np = py.import("numpy")?;
        let outs = self.inner.out_dims();
        let (values, ncols): (Vec<u64>, usize) = if unpacked {
            let mut v = Vec::with_capacity(t.len() * outs.len());
            for &p in &t {
                v.extend(self.inner.unpack(p));
            }
            (v, outs.len())
        } else {
            (t, 0)
        };
        let n = if unpacked {
            values.len() / ncols.max(1)
        } else {
            values.len()
        };
        let mut bytes = Vec::with_capacity(values.len() * 8);
        for v in &values {
            bytes.extend_from_slice(&v.to_ne_bytes());
        }
        let ba = PyByteArray::new(py, &bytes);
        let arr = np.call_method1("frombuffer", (ba, np.getattr("uint64")?))?;
        if unpacked {
            arr.call_method1("reshape", ((n, ncols),))
        } else {
            Ok(arr)
        }
    }

    /// The matrix over GF(2) as a NumPy uint8 array of shape
    /// `(output bits, input bits)`: entry `[i, j]` is bit `i` of the packed
    /// image of input bit `j` (rows: first out dim's bits first, low bit
    /// first; columns: first in dim's bits first).
    fn matrix<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows = self.inner.total_out_dim_size_log2() as usize;
        let cols = self.inner.columns();
        let mut m = vec![0u8; rows * cols.len()];
        for (j, &c) in cols.iter().enumerate() {
            for i in 0..rows {
                m[i * cols.len() + j] = ((c >> i) & 1) as u8;
            }
        }
        let np = py.import("numpy")?;
        let ba = PyByteArray::new(py, &m);
        let arr = np.call_method1("frombuffer", (ba, np.getattr("uint8")?))?;
        arr.call_method1("reshape", ((rows, cols.len()),))
    }

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
    fn to_dict<'py>(&self, py: Python<'py>, out_dims: bool, full: bool) -> PyResult<Bound<'py, PyDict>> {
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
    fn svg(&self, hw: bool, rows: Option<(u64, u64)>, cols: Option<(u64, u64)>) -> PyResult<String> {
        let shape: Vec<u64> = self.inner.out_dims().iter().map(|d| d.1).collect();
        let l = &self.inner;
        let window = layout_view::Window {
            rows: rows.map(|(a, b)| a..b),
            cols: cols.map(|(a, b)| a..b),
        };
        if hw && window != layout_view::Window::default() {
            return Err(err("rows/cols select a window of the tensor picture, not of hw=True"));
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

impl PyLayout {
    fn check_in(&self, d: &str) -> PyResult<()> {
        if self.inner.has_in_dim(dim(d)) {
            Ok(())
        } else {
            Err(err(format!(
                "input dim '{d}' not found (in dims: {:?})",
                self.in_dim_names()
            )))
        }
    }

    fn check_out(&self, d: &str) -> PyResult<()> {
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

/// `from_mlir(text, shape, threads_per_warp=None)`: the linear layout of a
/// tensor of `shape` (dim0 first, powers of two) in the Triton layout
/// attribute `text` (`#ttg.blocked<{...}>`, `#ttg.nvmma_shared<{...}>`, ...).
/// Distributed layouts have in dims `register, lane, warp, block`, shared
/// ones `offset, block`, tensor memory `row, col`. With `threads_per_warp`,
/// a distributed layout whose lane count differs is rejected (Triton's
/// module-level check).
///
/// Results are memoised per `(text, shape)` (as Triton caches linear layouts
/// per attribute and shape): layouts are immutable values, so a repeated
/// call returns an equal layout without re-parsing. `cache=False` bypasses
/// the memo; `clear_cache()` empties it.
#[pyfunction]
#[pyo3(signature = (text, shape, threads_per_warp=None, cache=true, num_warps=None))]
fn from_mlir(
    text: &str,
    shape: Vec<i64>,
    threads_per_warp: Option<i64>,
    cache: bool,
    num_warps: Option<i64>,
) -> PyResult<PyLayout> {
    let shape = parse_shape(shape)?;
    let cached = if cache { cache_get(text, &shape) } else { None };
    let l = match cached {
        Some(l) => l,
        None => {
            hw_layouts::check_shape(&shape).map_err(err)?;
            let l = guard(|| {
                let enc = Encoding::parse(text).map_err(|e| e.to_string())?;
                let inner = enc.to_linear_layout(&shape).map_err(|e| e.to_string())?;
                // Triton's report differs only outside distributed layouts.
                let triton = match enc.space() {
                    hw_layouts::Space::Distributed => None,
                    _ => Some(enc.to_triton_linear_layout(&shape).map_err(|e| e.to_string())?)
                        .filter(|t| *t != inner)
                        .map(Box::new),
                };
                Ok(PyLayout { inner, triton })
            })?;
            if cache {
                cache_put(text, &shape, &l);
            }
            l
        }
    };
    let size = |d| if l.inner.has_in_dim(d) { l.inner.in_dim_size(d) as i64 } else { 1 };
    let distributed = l.inner.has_in_dim(DimName::LANE) || l.inner.has_in_dim(DimName::REGISTER);
    if let (Some(tpw), true) = (threads_per_warp, distributed) {
        if size(DimName::LANE) != tpw {
            return Err(err(format!(
                "layout has {} threads per warp, expected threads_per_warp = {tpw}",
                size(DimName::LANE)
            )));
        }
    }
    if let (Some(w), true) = (num_warps, distributed) {
        if size(DimName::WARP) != w {
            return Err(err(format!(
                "layout has {} warps, expected num_warps = {w}",
                size(DimName::WARP)
            )));
        }
    }
    Ok(l)
}

/// Memo of `from_mlir`: text → shape → layout. Bounded: emptied when it
/// holds more than `CACHE_LIMIT` layouts.
type Memo = HashMap<String, HashMap<Vec<u64>, PyLayout>>;
const CACHE_LIMIT: usize = 4096;
static CACHE: Mutex<Option<(Memo, usize)>> = Mutex::new(None);

fn cache_get(text: &str, shape: &[u64]) -> Option<PyLayout> {
    let g = CACHE.lock().ok()?;
    g.as_ref()?.0.get(text)?.get(shape).cloned()
}

fn cache_put(text: &str, shape: &[u64], l: &PyLayout) {
    let Ok(mut g) = CACHE.lock() else { return };
    let (memo, count) = g.get_or_insert_with(|| (HashMap::new(), 0));
    if *count >= CACHE_LIMIT {
        memo.clear();
        *count = 0;
    }
    memo.entry(text.to_owned())
        .or_default()
        .insert(shape.to_vec(), l.clone());
    *count += 1;
}

/// `clear_cache()`: empties the memo of `from_mlir`.
#[pyfunction]
fn clear_cache() {
    if let Ok(mut g) = CACHE.lock() {
        *g = None;
    }
}

/// `normalize_mlir(text)`: parses Triton attribute text and prints it back
/// in Triton's printed form.
#[pyfunction]
fn normalize_mlir(text: &str) -> PyResult<String> {
    guard(|| {
        Encoding::parse(text)
            .map(|e| e.to_mlir())
            .map_err(|e| e.to_string())
    })
}

/// `mlir_space(text)`: `"distributed"`, `"shared"` or `"tensor_memory"`.
#[pyfunction]
fn mlir_space(text: &str) -> PyResult<&'static str> {
    guard(|| {
        Encoding::parse(text)
            .map(|e| match e.space() {
                hw_layouts::Space::Distributed => "distributed",
                hw_layouts::Space::Shared => "shared",
                hw_layouts::Space::TensorMemory => "tensor_memory",
            })
            .map_err(|e| e.to_string())
    })
}

/// `factor_through(a, b)`: `X` with `a ∘ X == b` (solving `a(X(x)) = b(x)`),
/// or None when `b`'s image is not inside `a`'s.
#[pyfunction]
fn factor_through(a: &PyLayout, b: &PyLayout) -> PyResult<Option<PyLayout>> {
    a.factor_through(b)
}

/// `supremum(x, y)`: the smallest dim order containing both orders.
#[pyfunction]
fn supremum(x: Vec<String>, y: Vec<String>) -> PyResult<Vec<&'static str>> {
    linear_layout::supremum(&to_dims(&x), &to_dims(&y))
        .map(|v| v.into_iter().map(|d| d.as_str()).collect())
        .map_err(err)
}

/// `bank_conflicts(reg, shared, bitwidth)`: Triton's `bankConflictsMemDesc`
/// (extra wavefronts per access) for storing/loading the distributed layout
/// `reg` through the shared layout `shared`.
#[pyfunction]
fn bank_conflicts(reg: &PyLayout, shared: &PyLayout, bitwidth: u32) -> PyResult<u64> {
    run(|| layout_codegen::bank_conflicts::bank_conflicts(&reg.inner, &shared.inner, bitwidth))
}

/// Refuses, before planning, a conversion above
/// `layout_codegen::limits` (the work is per element), and two distributed
/// layouts on different threads (named, instead of a failed simulation).
fn check_plan_size(s: &LinearLayout, d: &LinearLayout, command: &str) -> PyResult<()> {
    use layout_codegen::limits::{check_plan_layout, check_plan_shape};
    let shape: Vec<u64> = d.out_dims().iter().map(|o| o.1).collect();
    check_plan_shape(&shape, command).map_err(err)?;
    check_plan_layout(s, "the source layout", command).map_err(err)?;
    check_plan_layout(d, "the destination layout", command).map_err(err)?;
    let size = |l: &LinearLayout, n| if l.has_in_dim(n) { l.in_dim_size(n) } else { 1 };
    if s.has_in_dim(DimName::LANE) && d.has_in_dim(DimName::LANE) {
        for (n, what) in [(DimName::LANE, "threads per warp"), (DimName::WARP, "warps"), (DimName::BLOCK, "CTAs")] {
            let (a, b) = (size(s, n), size(d, n));
            if a != b {
                return Err(err(format!(
                    "the source layout has {a} {what} but the destination has {b}: a conversion keeps the kernel's {what}"
                )));
            }
        }
    }
    Ok(())
}

/// `_convert(src, dst, bitwidth)`: (kind, conversion layout, JSON of
/// {"cost", "plan", "text"}) of the planned and simulated conversion
/// ("text": the plan as `linlayout convert` prints it).
#[pyfunction]
fn _convert(src: &PyLayout, dst: &PyLayout, bitwidth: u32) -> PyResult<(String, PyLayout, String)> {
    let (s, d) = (&src.inner, &dst.inner);
    check_plan_size(s, d, "convert")?;
    run(|| -> Result<(String, PyLayout, String), String> {
        let comp = layout_codegen::conversion::conversion_layout(s, d).map_err(|e| e.to_string())?;
        let kind = layout_codegen::conversion::classify(s, d).map_err(|e| e.to_string())?;
        let plan = layout_codegen::plan::plan_conversion(s, d, bitwidth).map_err(|e| e.to_string())?;
        let report = layout_codegen::simulator::simulate(&plan, s, d).map_err(|e| format!("simulation failed: {e}"))?;
        let j = serde_json::json!({"cost": report, "plan": plan, "text": layout_view::plan_text::plan_text(&plan)});
        Ok((kind.short_name().to_string(), PyLayout::wrap(comp), j.to_string()))
    })
}

/// `_swizzle(src, dst, bitwidth)`: (shared layout, vector elements, write
/// conflicts, read conflicts, lower bound log2) of the optimal swizzle.
#[pyfunction]
fn _swizzle(src: &PyLayout, dst: &PyLayout, bitwidth: u32) -> PyResult<(PyLayout, u64, u64, u64, u32)> {
    let (s, d) = (&src.inner, &dst.inner);
    run(|| {
        layout_codegen::swizzle::optimal_swizzling(s, d, bitwidth).map(|r| {
            (
                PyLayout::wrap(r.shared),
                r.vector_elems,
                r.write_conflicts,
                r.read_conflicts,
                r.lower_bound_log2,
            )
        })
    })
}

/// `_partial(src, dst, bitwidth)`: JSON of the partial cross-warp plan
/// through the optimal swizzle (`layout_codegen::partial::plan_split_optimal`,
/// proved by its simulator): `{"plan", "report", "partial_units",
/// "full_units"}`; raises `LayoutError` naming the failed condition.
#[pyfunction]
fn _partial(src: &PyLayout, dst: &PyLayout, bitwidth: u32) -> PyResult<String> {
    let (s, d) = (&src.inner, &dst.inner);
    check_plan_size(s, d, "partial")?;
    run(|| {
        layout_codegen::partial::plan_split_optimal(s, d, bitwidth).map(|(p, r)| {
            serde_json::json!({
                "plan": p, "report": r,
                "partial_units": p.cost.partial_units(), "full_units": p.cost.full_units(),
            })
            .to_string()
        })
    })
}

/// `local_conversion(src, dst)`: destination hardware → source hardware
/// holding the same element, reading a broadcast source's copy in the
/// reader's own block, warp, then lane where there is one
/// (`layout_codegen::replica::local_conversion_layout`; Triton's map for an
/// injective source).
#[pyfunction]
fn local_conversion(src: &PyLayout, dst: &PyLayout) -> PyResult<PyLayout> {
    run(|| layout_codegen::replica::local_conversion_layout(&src.inner, &dst.inner).map(PyLayout::wrap))
}

mod cuda;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    install_quiet_hook();
    m.add_class::<PyLayout>()?;
    m.add("LayoutError", m.py().get_type::<LayoutError>())?;
    m.add_function(wrap_pyfunction!(from_mlir, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_mlir, m)?)?;
    m.add_function(wrap_pyfunction!(clear_cache, m)?)?;
    m.add_function(wrap_pyfunction!(mlir_space, m)?)?;
    m.add_function(wrap_pyfunction!(factor_through, m)?)?;
    m.add_function(wrap_pyfunction!(supremum, m)?)?;
    m.add_function(wrap_pyfunction!(bank_conflicts, m)?)?;
    m.add_function(wrap_pyfunction!(_convert, m)?)?;
    m.add_function(wrap_pyfunction!(_swizzle, m)?)?;
    m.add_function(wrap_pyfunction!(_partial, m)?)?;
    m.add_function(wrap_pyfunction!(local_conversion, m)?)?;
    cute::register(m)?;
    m.add_function(wrap_pyfunction!(engine::assign_layouts, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::_cuda, m)?)?;
    Ok(())
}
