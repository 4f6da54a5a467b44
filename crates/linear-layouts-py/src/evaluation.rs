//! Evaluating a `LinearLayout` from Python: `apply` (named inputs → named
//! outputs), `apply_flat` (flat index → packed output), and the whole
//! function or its GF(2) matrix as NumPy arrays (`table`, `matrix`).

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict};

use crate::args::{dim, non_negative};
use crate::error::{err, run};
use crate::layout::PyLayout;

#[pymethods]
impl PyLayout {
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
        let cols = if unpacked {
            self.inner.out_dims().len().max(1)
        } else {
            1
        };
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
}
