//! Triton's attribute text: `from_mlir` (text and shape → layout, memoised
//! as Triton caches layouts per attribute and shape), `normalize_mlir`,
//! `mlir_space`, and the text `LinearLayout.to_mlir()` writes
//! (`#ttg.linear`, `#ttg.generic_linear`, `#ttg.shared_linear`).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Mutex;

use hw_layouts::Encoding;
use linear_layout::{DimName, LinearLayout};
use pyo3::prelude::*;

use crate::args::parse_shape;
use crate::error::{err, guard};
use crate::layout::PyLayout;

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
pub(crate) fn linear_to_mlir(l: &LinearLayout, alignment: Option<u64>) -> Result<String, String> {
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
pub(crate) fn from_mlir(
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
                    _ => Some(
                        enc.to_triton_linear_layout(&shape)
                            .map_err(|e| e.to_string())?,
                    )
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
    let size = |d| {
        if l.inner.has_in_dim(d) {
            l.inner.in_dim_size(d) as i64
        } else {
            1
        }
    };
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
pub(crate) fn clear_cache() {
    if let Ok(mut g) = CACHE.lock() {
        *g = None;
    }
}

/// `normalize_mlir(text)`: parses Triton attribute text and prints it back
/// in Triton's printed form.
#[pyfunction]
pub(crate) fn normalize_mlir(text: &str) -> PyResult<String> {
    guard(|| {
        Encoding::parse(text)
            .map(|e| e.to_mlir())
            .map_err(|e| e.to_string())
    })
}

/// `mlir_space(text)`: `"distributed"`, `"shared"` or `"tensor_memory"`.
#[pyfunction]
pub(crate) fn mlir_space(text: &str) -> PyResult<&'static str> {
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
