//! Writes the GPU benchmark suite: one `.cu` program per case of
//! `bench/gpu/cases.toml` (see [`cases`]) plus `cases.json` (layout bases
//! for the Triton baseline and the predicted shared-memory wavefronts) into
//! the directory given as the first argument (default
//! `bench/gpu/generated`):
//!
//! ```text
//! cargo run -p gpu-suite [-- OUT_DIR [CASES_TOML]]
//! ```
//!
//! Gather cases (the paper's Figure 6, by warp shuffles `_shfl` and
//! through shared memory `_smem`) follow the conversion cases, with
//! `kind: "gather"` in `cases.json`.

use hw_layouts::Encoding;
use layout_codegen::plan::ConversionPlan;
use layout_codegen::plan_options::PlanOptions;
use layout_codegen::planner::PlannedConversion;
use layout_codegen::planner::{SplitForm, Target};
use layout_codegen::round_trip::{plan_partial_round_trip, PartialRoundTrip};
use layout_cuda::{emit_benchmark_planned, ConversionCase, Path};
use linear_layout::LinearLayout;
use serde_json::json;

mod cases;
use cases::{dtype_bits, Suite};

/// Iterations per kernel of the benchmark (both sides): large enough that
/// the fixed part (t(0): loads, stores, launch) is a few percent of t(R).
/// At R = 64 Triton's t(0) was up to 1.3x ours on some cases and partly
/// overlapped the loop, which the subtraction in (t(R) - t(0)) / 2R
/// charged to our conversions (H200, 2026-11-21: swap1 64x64 f32 read 0.92x at
/// R = 64 and 0.98x at R = 256, with equal slopes between the two).
const BENCH_R: u32 = 256;

/// One conversion of the suite as the emitters take it (from a
/// `[[conversion]]` or `[[partial]]` entry of the case file).
#[derive(Clone, Copy, Debug)]
struct CaseSpec {
    name: &'static str,
    shape: [u64; 2],
    bits: u32,
    nw: u32,
    src_t: &'static str,
    dst_t: &'static str,
    /// Through shared memory even where shuffles would do.
    force_shared: bool,
    /// Matrix (stmatrix/ldmatrix) variant wanted.
    matrix_variant: bool,
    /// A held-out pair (see `bench/gpu/cases.toml`).
    held_out: bool,
}

/// The text of the case file lives as long as the program: the emitters'
/// case tuples borrow it for `'static`.
fn keep(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

fn spec_of(suite: &Suite, c: &cases::Conversion) -> CaseSpec {
    CaseSpec {
        name: keep(&c.name),
        shape: c.shape,
        bits: dtype_bits(&c.dtype).expect("checked by Suite::parse"),
        nw: c.warps,
        src_t: keep(suite.attr(&c.src)),
        dst_t: keep(suite.attr(&c.dst)),
        force_shared: c.force_shared,
        matrix_variant: c.matrix_variant,
        held_out: c.held_out,
    }
}

fn partial_spec_of(suite: &Suite, c: &cases::Partial) -> CaseSpec {
    CaseSpec {
        name: keep(&c.name),
        shape: c.shape,
        bits: dtype_bits(&c.dtype).expect("checked by Suite::parse"),
        nw: c.warps,
        src_t: keep(suite.attr(&c.src)),
        dst_t: keep(suite.attr(&c.dst)),
        force_shared: false,
        matrix_variant: false,
        held_out: false,
    }
}

/// `gpu-suite [OUT_DIR] [CASES_TOML]` (defaults `bench/gpu/generated`,
/// `bench/gpu/cases.toml`, relative to the repository root).
fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "bench/gpu/generated".into());
    let file = args.next().unwrap_or_else(|| "bench/gpu/cases.toml".into());
    let suite = match Suite::read(&file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("gpu-suite: {e}");
            std::process::exit(2);
        }
    };
    std::fs::create_dir_all(&dir).expect("output dir");
    let cases: Vec<CaseSpec> = suite
        .conversion
        .iter()
        .map(|c| spec_of(&suite, c))
        .collect();
    let mut meta = Vec::new();
    for &spec in &cases {
        conversion_case(&dir, spec, false, &mut meta);
    }
    gather_cases(&dir, &suite, &mut meta);
    // The stmatrix/ldmatrix variants ("_mx").
    for &spec in cases.iter().filter(|s| s.matrix_variant) {
        conversion_case(&dir, spec, true, &mut meta);
    }
    // Partial cross-warp conversions and their full shared-memory twins
    // (see `partial_cases` at the end of this file).
    let partials: Vec<(CaseSpec, bool)> = suite
        .partial
        .iter()
        .map(|c| (partial_spec_of(&suite, c), c.branch_variant))
        .collect();
    partial_cases(&dir, &partials, &mut meta);
    // Every other conversion whose pair of directions the partial planner
    // takes gets a `_partial` variant (full twin: the case itself).
    for &spec in &cases {
        partial_variant(&dir, spec, &mut meta);
    }
    // The program of each pair that runs the planner's answer.
    let answers = cases
        .iter()
        .chain(partials.iter().map(|(s, _)| s))
        .filter_map(|s| Some((s.name, planner_answer(s)?)))
        .collect();
    let partial_families = partials.iter().map(|(s, _)| s.name).collect();
    mark_planner_choice(&mut meta, &answers, &partial_families);
    std::fs::write(
        format!("{dir}/cases.json"),
        serde_json::to_string_pretty(&meta).expect("json"),
    )
    .expect("write");
}

/// Emits one conversion case (`mx`: its `_mx` variant through
/// stmatrix/ldmatrix where the tiling applies) and appends its entry.
fn conversion_case(dir: &str, spec: CaseSpec, mx: bool, meta: &mut Vec<serde_json::Value>) {
    let CaseSpec {
        name,
        shape,
        src_t,
        dst_t,
        ..
    } = spec;
    let full_name = if mx {
        format!("{name}_mx")
    } else {
        name.to_string()
    };
    let name = full_name.as_str();
    let src = Encoding::parse(src_t).and_then(|e| e.to_linear_layout(&shape));
    let src = match src {
        Ok(l) => l,
        Err(e) => {
            eprintln!("skip {name}: {e}");
            return;
        }
    };
    let dst = match Encoding::parse(dst_t).and_then(|e| e.to_linear_layout(&shape)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("skip {name}: {e}");
            return;
        }
    };
    // The planner chooses the shared layout (and, for `_mx`, the matrix
    // instructions): the case only says which kind of plan it asks for.
    let smem = layout_cuda::gather::row_major_smem(&shape);
    emit_and_record(dir, name, spec, &src, &dst, smem, mx, meta);
}

/// The `ConversionCase` of `spec` named `name` through `smem` (`mx`:
/// stmatrix/ldmatrix where the tiling applies; names ending in `_smem` and
/// `mx` variants go through shared memory even where shuffles would do).
fn case_of(
    name: &str,
    spec: CaseSpec,
    (src, dst, smem): (&LinearLayout, &LinearLayout, &LinearLayout),
    mx: bool,
) -> ConversionCase {
    let CaseSpec {
        shape, bits, nw, ..
    } = spec;
    ConversionCase {
        name: name.into(),
        shape: shape.to_vec(),
        bits,
        num_warps: nw,
        src: src.clone(),
        dst: dst.clone(),
        smem: smem.clone(),
        // The comparison variants are planner requests.
        options: if mx {
            PlanOptions::matrix_only()
        } else if spec.force_shared {
            PlanOptions::shared_only()
        } else {
            PlanOptions::whole()
        },
    }
}

/// Emits the program of one conversion case through `smem` and appends
/// its `cases.json` entry (`mx`: stmatrix/ldmatrix where the tiling applies).
#[allow(clippy::too_many_arguments)]
fn emit_and_record(
    dir: &str,
    name: &str,
    spec: CaseSpec,
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: LinearLayout,
    mx: bool,
    meta: &mut Vec<serde_json::Value>,
) {
    let CaseSpec {
        shape,
        bits,
        nw,
        src_t,
        dst_t,
        ..
    } = spec;
    let case = case_of(name, spec, (src, dst, &smem), mx);
    let em = match emit_benchmark_planned(&case) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("skip {name}: {e}");
            return;
        }
    };
    let (fwd, bwd) = (em.fwd, em.bwd);
    std::fs::write(format!("{dir}/{name}.cu"), &em.code).expect("write");
    let path = |p: Path| match p {
        Path::Registers => "registers",
        Path::WarpShuffle => "shuffle",
        Path::SharedMemory => "shared",
    };
    let (fp, bp) = (predict(&em.plans.0), predict(&em.plans.1));
    meta.push(json!({
        "name": name, "shape": shape, "bits": bits, "num_warps": nw, "tiles": 1056, "R": BENCH_R,
        "src_attr": src_t, "dst_attr": dst_t,
        "src": src.bases_json(), "dst": dst.bases_json(),
        "held_out": spec.held_out,
        "path_fwd": path(fwd), "path_bwd": path(bwd),
        "packed": em.packed,
        "predicted_fwd": fp, "predicted_bwd": bp,
        "plan_fwd": plan_summary(&em.plans.0), "plan_bwd": plan_summary(&em.plans.1),
    }));
    if spec.held_out {
        // Kept apart from the suite's conversions (kind absent) wherever a
        // reader counts or tunes on them.
        if let Some(e) = meta.last_mut() {
            e["kind"] = json!("held_out");
        }
    }
    eprintln!("wrote {name} ({} / {})", path(fwd), path(bwd));
}

/// The predicted shared-memory counts of one planned direction, per CTA
/// (the planner's cost: store wavefronts under the replica predicate of
/// `layout_codegen::store_replicas`, load wavefronts from the simulator),
/// or `null` when the plan does not go through shared memory (a staged
/// plan's: its word stage's).
fn predict(p: &PlannedConversion) -> serde_json::Value {
    let whole = p
        .lowering
        .whole()
        .or_else(|| p.lowering.staged().map(|s| s.1));
    let Some(ConversionPlan::SharedMemory(m)) = whole else {
        return json!(null);
    };
    let count =
        |f: fn(&layout_codegen::plan::Round) -> usize| -> usize { m.rounds.iter().map(f).sum() };
    json!({"st_wavefronts": p.cost.store_wavefronts, "ld_wavefronts": p.cost.load_wavefronts,
           "st_vec": m.store_vec, "ld_vec": m.load_vec,
           "st_instr": count(|r| r.stores.len()), "ld_instr": count(|r| r.loads.len()),
           "rounds": m.rounds.len()})
}

/// The planner's answer in brief: the chosen candidate, its class, its
/// predicted cycles per warp and its counts.
fn plan_summary(p: &PlannedConversion) -> serde_json::Value {
    let considered: Vec<serde_json::Value> = p
        .candidates
        .iter()
        .filter_map(|c| Some(json!([c.name, c.kind?, c.cycles?])))
        .collect();
    json!({"candidate": p.candidate, "class": p.lowering.kind_name(), "cycles": p.cycles,
           "cost": p.cost, "lower_bound_cycles": p.lower_bound.cycles,
           "candidates": considered})
}

/// The gather cases (the paper's Figure 6): every entry of
/// `layout_cuda::gather::suite_specs` by warp shuffles (`_shfl`) and through
/// shared memory (`_smem`), with `kind: "gather"` in `cases.json`.
fn gather_cases(dir: &str, suite: &Suite, meta: &mut Vec<serde_json::Value>) {
    use layout_cuda::gather::{cases_of, emit_gather_benchmark};
    for g in &suite.gather {
        let bits = dtype_bits(&g.dtype).expect("checked by Suite::parse");
        let spec = (
            keep(&g.name),
            g.shape,
            bits,
            g.warps,
            keep(suite.attr(&g.layout)),
            g.axis,
        );
        let cases = match cases_of(&spec) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("skip {}: {e}", spec.0);
                continue;
            }
        };
        // The planner's choice between the two lowerings, from predictions
        // only (`layout_codegen::gather_cost`): cycles per warp of each.
        let predicted = cases
            .first()
            .and_then(|c| layout_codegen::gather_cost::plan_gather(&c.layout, c.axis, c.bits).ok());
        for case in cases {
            let em = match emit_gather_benchmark(&case) {
                Ok(x) => x,
                Err(e) => {
                    eprintln!("skip {}: {e}", case.name);
                    continue;
                }
            };
            std::fs::write(format!("{dir}/{}.cu", case.name), &em.code).expect("write");
            meta.push(json!({
                "name": case.name, "kind": "gather", "base": spec.0,
                "variant": case.variant.suffix(), "shape": case.shape, "bits": case.bits,
                "num_warps": case.num_warps, "axis": case.axis, "tiles": 1056, "R": BENCH_R,
                "attr": spec.4, "layout": case.layout.bases_json(),
                "shuffles": em.shuffles, "selects": em.selects,
                "candidates": em.candidates, "smem_bytes": em.smem_bytes,
            }));
            if let (Some(p), Some(e)) = (&predicted, meta.last_mut()) {
                let shfl = case.variant.suffix() == "shfl";
                e["predicted_cycles"] = json!(if shfl { p.shuffle } else { Some(p.shared()) });
                e["chosen"] = json!(p.prefers_shuffles() == shfl);
            }
            eprintln!(
                "wrote {} (gather, {} shuffles, {} selects, {} B shared)",
                case.name, em.shuffles, em.selects, em.smem_bytes
            );
        }
    }
}

/// The planner's answer for one pair of the suite, both directions
/// ([`layout_codegen::planner::plan`], every class it chooses among by
/// default): whether either direction is a partial cross-warp plan or uses
/// `stmatrix`/`ldmatrix`, and the chosen candidates.
#[derive(Clone, Debug)]
struct PlannerAnswer {
    partial: bool,
    matrix: bool,
    candidates: [&'static str; 2],
}

/// [`PlannerAnswer`] of `spec`'s pair, or `None` where the planner has no
/// plan for a direction (the suite's own emitters then skip it too).
fn planner_answer(spec: &CaseSpec) -> Option<PlannerAnswer> {
    use layout_codegen::planner::{plan, uses_matrix, Target};
    let ll = |t: &str| {
        Encoding::parse(t)
            .and_then(|e| e.to_linear_layout(&spec.shape))
            .ok()
    };
    let (src, dst) = (ll(spec.src_t)?, ll(spec.dst_t)?);
    let fwd = plan(&src, &dst, spec.bits, &Target::SM90).ok()?;
    let bwd = plan(&dst, &src, spec.bits, &Target::SM90).ok()?;
    let partial = |p: &PlannedConversion| p.lowering.partial().is_some();
    Some(PlannerAnswer {
        partial: partial(&fwd) || partial(&bwd),
        matrix: uses_matrix(&fwd.lowering) || uses_matrix(&bwd.lowering),
        candidates: [fwd.candidate, bwd.candidate],
    })
}

/// Marks every conversion entry of `meta` (kind absent) with `"chosen":
/// true|false`: the program of its pair that runs what the planner chose
/// ([`planner_answer`], recorded as `"planner_choice"`), before any timing.
/// A pair's programs are its whole-CTA program (`X`, or `X_full` for a
/// `[[partial]]` entry `X`), its `_mx` variant and its partial program
/// (`X_partial`, or `X` itself for a `[[partial]]` entry) and its
/// transposed-staying program `X_transposed`; the transposed program is
/// chosen where the planner's answer has transposed staying moves
/// (`partial_transposed_*`) in either direction, the partial program where
/// it is partial in either direction, the `_mx` program where it uses matrix instructions, else
/// the whole-CTA one. The run-time-branch form `_branch` is a comparison
/// of the warp-specialised program, never chosen; a variant the suite did
/// not emit is never chosen (then the whole-CTA program is).
fn mark_planner_choice(
    meta: &mut [serde_json::Value],
    answers: &std::collections::HashMap<&'static str, PlannerAnswer>,
    partial_families: &std::collections::HashSet<&'static str>,
) {
    #[derive(Clone, Copy, PartialEq)]
    enum Variant {
        Whole,
        Matrix,
        Partial,
        Transposed,
        Branch,
    }
    let names: std::collections::HashSet<String> = meta
        .iter()
        .filter_map(|e| e["name"].as_str().map(String::from))
        .collect();
    // (family, variant) of a name, and the name of a family's variant.
    let pf = |f: &str| partial_families.contains(f);
    let split = |name: &str| -> (String, Variant) {
        let strip = |suffix: &str| name.strip_suffix(suffix).map(String::from);
        if pf(name) {
            return (name.to_string(), Variant::Partial);
        }
        if let Some(f) = strip("_transposed") {
            return (f, Variant::Transposed);
        }
        match (
            strip("_branch"),
            strip("_full"),
            strip("_mx"),
            strip("_partial"),
        ) {
            (Some(f), ..) if pf(&f) => (f, Variant::Branch),
            (_, Some(f), ..) if pf(&f) => (f, Variant::Whole),
            (_, _, Some(f), _) => (f, Variant::Matrix),
            (.., Some(f)) => (f, Variant::Partial),
            _ => (name.to_string(), Variant::Whole),
        }
    };
    let program = |family: &str, v: Variant| -> String {
        match (v, pf(family)) {
            (Variant::Whole, true) => format!("{family}_full"),
            (Variant::Whole, false) => family.to_string(),
            (Variant::Matrix, _) => format!("{family}_mx"),
            (Variant::Partial, true) => family.to_string(),
            (Variant::Partial, false) => format!("{family}_partial"),
            (Variant::Transposed, _) => format!("{family}_transposed"),
            (Variant::Branch, _) => format!("{family}_branch"),
        }
    };
    // Conversion entries: the suite's (kind absent) and the held-out pairs.
    let conversion = |e: &serde_json::Value| e.get("kind").is_none() || e["kind"] == "held_out";
    for e in meta.iter_mut().filter(|e| conversion(e)) {
        let name = e["name"].as_str().unwrap_or("").to_string();
        let (family, variant) = split(&name);
        let answer = answers.get(family.as_str());
        let emitted = |v: Variant| names.contains(&program(&family, v));
        let transposed = |a: &PlannerAnswer| {
            a.candidates
                .iter()
                .any(|c| c.starts_with("partial_transposed"))
        };
        let pick = match answer {
            Some(a) if transposed(a) && emitted(Variant::Transposed) => Variant::Transposed,
            Some(a) if a.partial && emitted(Variant::Partial) => Variant::Partial,
            Some(a) if a.matrix && emitted(Variant::Matrix) => Variant::Matrix,
            _ => Variant::Whole,
        };
        let chosen = variant == pick;
        e["chosen"] = json!(chosen);
        if let Some(a) = answer {
            e["planner_choice"] = json!(a.candidates);
        }
        eprintln!(
            "  {name}: planner's choice {:?}, chosen {chosen}",
            answer.map(|a| a.candidates)
        );
    }
}

// ---------------------------------------------------------------------------
// Partial cross-warp conversions (`layout_cuda::partial`): only the elements
// that leave their warp go through shared memory. Each case `partial_X` has a
// twin `partial_X_full` through the same shared layout by the full plan.
// ---------------------------------------------------------------------------

/// Predicted wavefronts of one direction of a partial plan (one CTA), in
/// the `predicted_*` form of the conversion cases plus the partial plan's
/// own counts and the full plan's wavefronts through the same layout.
fn partial_prediction(
    p: &layout_codegen::partial::PartialCrossWarpPlan,
    shuffles: u64,
) -> serde_json::Value {
    let bytes = p.bitwidth as u64 / 8;
    let phases = |n: usize| (32 * n as u64 * bytes / 128).max(1);
    let (mut si, mut li) = (0, 0);
    for w in 0..p.num_warps {
        let k = &p.classes[p.class_of(w).expect("class")];
        si += k
            .stores
            .iter()
            .map(|a| phases(a.registers.len()))
            .sum::<u64>();
        li += k
            .loads
            .iter()
            .map(|a| phases(a.registers.len()))
            .sum::<u64>();
    }
    // Shared-memory instructions per thread, averaged over warps (the full
    // plan's `st_instr`/`ld_instr` are per thread, every warp alike).
    let per_thread = |f: fn(&layout_codegen::partial::WarpClass) -> usize| {
        let total: u64 = (0..p.num_warps)
            .map(|w| f(&p.classes[p.class_of(w).expect("class")]) as u64)
            .sum();
        total.div_ceil(p.num_warps.max(1))
    };
    let st_instr = per_thread(|k| k.stores.len());
    let ld_instr = per_thread(|k| k.loads.len());
    let c = &p.cost;
    json!({"st_wavefronts": c.store_wavefronts, "st_ideal": si,
           "st_instr": st_instr, "ld_instr": ld_instr,
           "ld_wavefronts": c.load_wavefronts, "ld_ideal": li,
           "shuffles": shuffles, "selects": c.selects, "register_moves": c.register_moves,
           "staying_elements": c.staying_elements, "elements": c.elements,
           "warp_classes": p.classes.len(),
           "full_st_wavefronts": c.full_store_wavefronts,
           "full_ld_wavefronts": c.full_load_wavefronts,
           "partial_units": c.partial_units(), "full_units": c.full_units()})
}

/// The partial program of a conversion pair whose planner answers
/// ([`layout_codegen::planner::plan`], both directions, every class by
/// default) are partial cross-warp plans: `X_transposed` where a staying
/// move is transposed, else `X_partial`, run by the warp-specialised
/// partial emitter. Its full twin is the case itself. Pairs whose answer is
/// another class in either direction get no partial program (their
/// whole-CTA program is the planner's).
fn partial_variant(dir: &str, spec: CaseSpec, meta: &mut Vec<serde_json::Value>) {
    let CaseSpec {
        name,
        shape,
        src_t,
        dst_t,
        ..
    } = spec;
    let ll = |t: &str| Encoding::parse(t).and_then(|e| e.to_linear_layout(&shape));
    let (Ok(src), Ok(dst)) = (ll(src_t), ll(dst_t)) else {
        return;
    };
    if spec.force_shared {
        return;
    }
    let request = PartialRequest::Planner;
    let rt = match plan_partial_round_trip(&src, &dst, spec.bits, &Target::SM90, &request.options())
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("  no partial program for {name}: {e}");
            return;
        }
    };
    let transposed = [&rt.fwd, &rt.bwd]
        .iter()
        .flat_map(|p| &p.classes)
        .any(|k| k.is_transposed());
    let suffix = if transposed {
        "_transposed"
    } else {
        "_partial"
    };
    emit_partial_entry(
        dir,
        &format!("{name}{suffix}"),
        spec,
        (&src, &dst),
        (&rt, request),
        true,
        name,
        meta,
    );
}

/// How a partial program's round trip is asked of the planner (recorded as
/// `plan_request` in `cases.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PartialRequest {
    /// The planner's own answer (`PlanOptions::default()`), partial in both
    /// directions.
    Planner,
    /// The partial class (`PlanOptions::partial_only()`, lane-predicated
    /// where the plain class refuses): a `[[partial]]` entry whose
    /// planner answer is another class.
    Class,
}

impl PartialRequest {
    fn options(self) -> PlanOptions {
        match self {
            PartialRequest::Planner => PlanOptions::default(),
            PartialRequest::Class => PlanOptions {
                split_form: Some(SplitForm::Predicated),
                ..PlanOptions::partial_only()
            },
        }
    }

    fn name(self) -> &'static str {
        match self {
            PartialRequest::Planner => "planner",
            PartialRequest::Class => "partial_class",
        }
    }
}

/// Emits one partial-plan program of the planner's round trip `rt`
/// (`specialise`: one copy of the loop per warp) and appends its
/// `cases.json` entry with its full twin's name.
#[allow(clippy::too_many_arguments)]
fn emit_partial_entry(
    dir: &str,
    name: &str,
    spec: CaseSpec,
    (src, dst): (&LinearLayout, &LinearLayout),
    (rt, request): (&PartialRoundTrip, PartialRequest),
    specialise: bool,
    full_twin: &str,
    meta: &mut Vec<serde_json::Value>,
) {
    let CaseSpec {
        shape,
        bits,
        nw,
        src_t,
        dst_t,
        ..
    } = spec;
    // The case's own shared layout is not read: each direction goes
    // through the one its plan chose.
    let smem = layout_cuda::gather::row_major_smem(&shape);
    let case = case_of(name, spec, (src, dst, &smem), false);
    let em = match layout_cuda::partial::emit_partial_planned(&case, rt, specialise) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("  no {name}: {e}");
            return;
        }
    };
    std::fs::write(format!("{dir}/{name}.cu"), &em.code).expect("write");
    let (fp, bp) = (
        partial_prediction(&em.fwd, em.shuffles.0),
        partial_prediction(&em.bwd, em.shuffles.1),
    );
    eprintln!("wrote {name} (partial / partial): fwd {fp}, bwd {bp}");
    meta.push(json!({
        "name": name, "shape": shape, "bits": bits, "num_warps": nw, "tiles": 1056, "R": BENCH_R,
        "src_attr": src_t, "dst_attr": dst_t,
        "src": src.bases_json(), "dst": dst.bases_json(),
        "path_fwd": "partial", "path_bwd": "partial",
        "packed": em.packed,
        "plan_request": request.name(),
        "plan_candidates": [rt.candidates.0, rt.candidates.1],
        "predicted_fwd": fp, "predicted_bwd": bp,
        "full_twin": full_twin, "warp_specialised": specialise,
    }));
}

/// The `[[partial]]` entries (with whether each wants its `_branch` form):
/// each as its warp-specialised program, and its full twin `<name>_full`
/// (the planner's whole-CTA plan).
fn partial_cases(dir: &str, partials: &[(CaseSpec, bool)], meta: &mut Vec<serde_json::Value>) {
    for &(spec, branch) in partials {
        let CaseSpec {
            name,
            shape,
            src_t,
            dst_t,
            ..
        } = spec;
        let ll = |t: &str| Encoding::parse(t).and_then(|e| e.to_linear_layout(&shape));
        let (src, dst) = match (ll(src_t), ll(dst_t)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("skip {name}: {e}");
                continue;
            }
        };
        // The warp-specialised program, and for one case also the form
        // with run-time warp-class branches (`_branch`) to measure the
        // specialisation.
        let variants: &[(bool, &str)] = if branch {
            &[(true, ""), (false, "_branch")]
        } else {
            &[(true, "")]
        };
        let full = format!("{name}_full");
        // The planner's own partial answer where it is one, else the class
        // asked for (lane-predicated where staying depends on the lane).
        let planned = [PartialRequest::Planner, PartialRequest::Class]
            .into_iter()
            .find_map(|r| {
                plan_partial_round_trip(&src, &dst, spec.bits, &Target::SM90, &r.options())
                    .ok()
                    .map(|rt| (rt, r))
            });
        let Some((rt, request)) = planned else {
            eprintln!("skip {name}: no partial round trip");
            continue;
        };
        for &(specialise, suffix) in variants {
            emit_partial_entry(
                dir,
                &format!("{name}{suffix}"),
                spec,
                (&src, &dst),
                (&rt, request),
                specialise,
                &full,
                meta,
            );
        }
        let smem = layout_cuda::gather::row_major_smem(&shape);
        emit_and_record(dir, &full, spec, &src, &dst, smem, false, meta);
    }
}
