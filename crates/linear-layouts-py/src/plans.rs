//! Conversions between layouts (`layout_codegen`): bank conflicts, the
//! planned and simulated conversion (`_convert`), the optimal swizzle
//! (`_swizzle`), the partial cross-warp plan (`_partial`) and the local
//! conversion map. The Python wrappers of `linear_layouts` call these.

use linear_layout::{DimName, LinearLayout};
use pyo3::prelude::*;

use crate::error::{err, run};
use crate::layout::PyLayout;

/// `bank_conflicts(reg, shared, bitwidth)`: Triton's `bankConflictsMemDesc`
/// (extra wavefronts per access) for storing/loading the distributed layout
/// `reg` through the shared layout `shared`.
#[pyfunction]
pub(crate) fn bank_conflicts(reg: &PyLayout, shared: &PyLayout, bitwidth: u32) -> PyResult<u64> {
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
    if s.has_in_dim(DimName::LANE) && d.has_in_dim(DimName::LANE) {
        layout_codegen::limits::check_same_threads(s, d).map_err(err)?;
    }
    Ok(())
}

/// `_convert(src, dst, bitwidth)`: (kind, conversion layout, JSON of
/// {"cost", "plan", "text"}) of the planned and simulated conversion
/// ("text": the plan as `linlayout convert` prints it).
#[pyfunction]
pub(crate) fn _convert(
    src: &PyLayout,
    dst: &PyLayout,
    bitwidth: u32,
) -> PyResult<(String, PyLayout, String)> {
    let (s, d) = (&src.inner, &dst.inner);
    check_plan_size(s, d, "convert")?;
    run(|| -> Result<(String, PyLayout, String), String> {
        let comp =
            layout_codegen::conversion::conversion_layout(s, d).map_err(|e| e.to_string())?;
        let kind = layout_codegen::conversion::classify(s, d).map_err(|e| e.to_string())?;
        let plan =
            layout_codegen::choice::plan_conversion(s, d, bitwidth).map_err(|e| e.to_string())?;
        let report = layout_codegen::simulator::simulate(&plan, s, d)
            .map_err(|e| format!("simulation failed: {e}"))?;
        let j = serde_json::json!({"cost": report, "plan": plan, "text": layout_view::plan_text::plan_text(&plan)});
        Ok((
            kind.short_name().to_string(),
            PyLayout::wrap(comp),
            j.to_string(),
        ))
    })
}

/// `_swizzle(src, dst, bitwidth)`: (shared layout, vector elements, write
/// conflicts, read conflicts, lower bound log2) of the optimal swizzle.
#[pyfunction]
pub(crate) fn _swizzle(
    src: &PyLayout,
    dst: &PyLayout,
    bitwidth: u32,
) -> PyResult<(PyLayout, u64, u64, u64, u32)> {
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
pub(crate) fn _partial(src: &PyLayout, dst: &PyLayout, bitwidth: u32) -> PyResult<String> {
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
pub(crate) fn local_conversion(src: &PyLayout, dst: &PyLayout) -> PyResult<PyLayout> {
    run(|| {
        layout_codegen::replica::local_conversion_layout(&src.inner, &dst.inner).map(PyLayout::wrap)
    })
}

/// `_plan(src, dst, bitwidth, target)`: JSON of the planner's answer
/// (`layout_codegen::planner::plan`: the cheapest proved candidate among
/// Triton's plan, warp shuffles, the paper's swizzle and partial cross-warp
/// plans, on one cost scale) for `target` `"sm90"` or `"cdna3"`, with
/// `"kind"` (`"noop"`, `"register"`, `"shuffle"`, `"shared"`, `"partial"`
/// or `"staged"`) and `"text"`: a whole-CTA or staged plan as `linlayout
/// convert` prints it (`null` for a partial plan).
#[pyfunction]
pub(crate) fn _plan(src: &PyLayout, dst: &PyLayout, bitwidth: u32, target: &str) -> PyResult<String> {
    use layout_codegen::planner::{plan, Target};
    let (s, d) = (&src.inner, &dst.inner);
    check_plan_size(s, d, "plan")?;
    let target = match target {
        "sm90" => Target::SM90,
        "cdna3" => Target::CDNA3,
        other => {
            return Err(crate::err(format!(
                "target must be \"sm90\" or \"cdna3\", got {other:?}"
            )))
        }
    };
    run(|| {
        plan(s, d, bitwidth, &target).map(|p| {
            let text = match p.lowering.staged() {
                Some((regroup, then)) => Some(layout_view::plan_text::staged_text(regroup, then)),
                None => p.lowering.whole().map(layout_view::plan_text::plan_text),
            };
            let mut j = serde_json::to_value(&p).expect("json");
            j["text"] = serde_json::json!(text);
            j["kind"] = serde_json::json!(p.lowering.kind_name());
            j.to_string()
        })
    })
}
