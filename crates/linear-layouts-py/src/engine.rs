//! `assign_layouts`: the layout engine (`layout_engine`) on a kernel's TTIR.

use pyo3::prelude::*;

/// `assign_layouts(ttir_text, target="sm90", num_warps=4, objective="total")`: layouts for a
/// whole layout-free kernel and the conversions that remain, as plain
/// Python objects (the same as `linlayout engine --json`): `aliases`
/// (`[alias, attribute]` pairs), `values` (`[value, alias]` pairs),
/// `conversions` (value, line, depth, class, plan, candidate, cycles, weighted, src,
/// dst), `trivial_dropped`, `cost`, `loop_weight`, `violations` (empty),
/// `objective`, `decisions` (conflicts with their candidates and costs), `ttgir` (the
/// program as Triton's TTGIR: a layout on every tensor type, a
/// `ttg.convert_layout` per conversion) and `program` (the TTIR annotated
/// with `// value: #alias` comments). `objective` is what the engine
/// minimises: `"total"` (every term) or `"conversions"` (the conversions'
/// cost, the rest breaking ties). Raises `LayoutError` naming the problem (an
/// unknown op and its line, a bad target, ...).
#[pyfunction]
#[pyo3(signature = (ttir_text, target = "sm90", num_warps = 4, objective = "total"))]
pub fn assign_layouts(
    py: Python<'_>,
    ttir_text: &str,
    target: &str,
    num_warps: i64,
    objective: &str,
) -> PyResult<PyObject> {
    let json = crate::run(|| -> Result<String, String> {
        let t = layout_engine::anchors::Target::parse(target)
            .ok_or_else(|| format!("target must be sm80, sm90 or gfx942, got '{target}'"))?;
        if num_warps <= 0 {
            return Err(format!("num_warps must be positive, got {num_warps}"));
        }
        let objective = layout_engine::engine::Objective::parse(objective).ok_or_else(|| {
            format!("objective must be 'total' or 'conversions', got '{objective}'")
        })?;
        let opts = layout_engine::engine::Options::new(t, num_warps as u64).with_objective(objective);
        let mut pricer = layout_engine::cost::Pricer::new();
        let rep = layout_engine::report::run_engine_with(ttir_text, opts, &mut pricer)
            .map_err(|e| e.to_string())?;
        serde_json::to_string(&rep).map_err(|e| e.to_string())
    })?;
    let loads = py.import("json")?.getattr("loads")?;
    Ok(loads.call1((json,))?.unbind())
}
