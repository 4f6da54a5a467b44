//! Reading Python arguments: sizes, dim names, `{name: size}` and
//! `{in_dim: bases}` objects, shapes. Each reader names the argument and
//! the value it rejects (as a `LayoutError` or `TypeError`).

use linear_layout::DimName;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::error::err;

/// A non-negative integer argument (named in the error).
pub(crate) fn non_negative(what: &str, v: i64) -> PyResult<u64> {
    if v < 0 {
        Err(err(format!("{what} must be non-negative, got {v}")))
    } else {
        Ok(v as u64)
    }
}

/// A size argument: a positive power of two.
pub(crate) fn pow2_size(what: &str, v: i64) -> PyResult<u64> {
    if v <= 0 || (v & (v - 1)) != 0 {
        Err(err(format!("{what} must be a power of two, got {v}")))
    } else {
        Ok(v as u64)
    }
}

pub(crate) fn dim(s: &str) -> DimName {
    DimName::new(s)
}

pub(crate) fn to_dims(v: &[String]) -> Vec<DimName> {
    v.iter().map(|s| dim(s)).collect()
}

/// `[(name, size)]` from a dict `{name: size}` or a sequence of pairs.
pub(crate) fn named_sizes(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<(DimName, u64)>> {
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
pub(crate) fn named_bases(obj: &Bound<'_, PyAny>) -> PyResult<Vec<(DimName, Vec<Vec<u64>>)>> {
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

pub(crate) fn sizes_list<'py>(
    py: Python<'py>,
    v: Vec<(DimName, u64)>,
) -> PyResult<Bound<'py, PyList>> {
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

pub(crate) fn parse_shape(shape: Vec<i64>) -> PyResult<Vec<u64>> {
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
