//! `linlayout convert`, `swizzle` and `bank-conflicts`.
//!
//! Layout arguments are Triton attribute text (`#ttg.blocked<{...}>`, ...),
//! `-` for stdin, `@file`, or a JSON object of bases as in the oracle's
//! `linear` field (`{"register": [[0, 1]], "lane": [...], ...}` for
//! distributed layouts, `{"offset": [...], "block": []}` for shared ones).

use crate::error::CliError;

#[allow(unused_imports)] // its old home: other subcommands import it from here
pub use crate::common::dtype_bitwidth;
use crate::common::{
    check_plan_layout, check_plan_shape, check_same_threads, DtypeArgs, HardwareArgs,
};
use crate::input::{parse_shape, read_layout_text};
use layout_codegen::bank_conflicts::{bank_conflicts, exact_bank_conflicts};
use layout_codegen::choice::plan_conversion;
use layout_codegen::conversion::{classify, conversion_layout, ConversionKind};
use layout_codegen::partial::PartialCrossWarpPlan;
use layout_codegen::plan::ConversionPlan;
use layout_codegen::planner::{plan, whole_cost, Lowering, PlannedConversion, Target};
use layout_codegen::simulator::SimulationReport;
use layout_codegen::simulator::{simulate, simulate_staged, SimulatorConfig};
use layout_codegen::swizzle::optimal_swizzling;
use layout_view::plan_text::{plan_text, shared_linear_text, staged_text, word_program_text};
use linear_layout::{DimName, LinearLayout};
use serde_json::{json, Map, Value};

/// Arguments of `convert`.
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// Tensor shape, e.g. 128x128 (at most 2^18 elements).
    #[arg(long)]
    pub shape: String,
    #[command(flatten)]
    pub dtype: DtypeArgs,
    #[command(flatten)]
    pub hardware: HardwareArgs,
    /// Print JSON: {"kind", "conversion", "cost", "plan", "best"} ("kind"
    /// is Triton's class; "best" is the planner's kind, candidate and cost,
    /// with Triton's cost beside it, the predicted counts, the lower bound,
    /// every candidate considered, and "words": the packed-word program
    /// that runs for an 8/16-bit warp program, or null).
    #[arg(long)]
    pub json: bool,
    /// Print the planner's plan (layout_codegen::planner::plan: the
    /// cheapest proved candidate among Triton's plan, warp shuffles, the
    /// paper's swizzle, partial cross-warp plans, staged regroups and, where
    /// strictly cheaper, stmatrix/ldmatrix plans, on one cost scale)
    /// instead of Triton's choice, with its lower bound and every candidate.
    /// The printed class stays Triton's classification.
    #[arg(long)]
    pub best: bool,
    /// Also plan the conversion as a partial cross-warp plan through the
    /// optimal swizzle: only the elements that leave their warp go through
    /// shared memory, the rest stay by register moves or shfl.sync.idx (a
    /// broadcast source is read from the copy in the reader's own warp);
    /// prints its warp classes and predicted units against the full plan,
    /// or why the class does not apply ("partial" in the JSON).
    #[arg(long)]
    pub partial: bool,
    /// Write the conversion picture (source, the plan's shared buffer,
    /// destination, with one element's path) as SVG to this file.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<String>,
    /// Write the conversion picture as an HTML page (pointer read-out).
    #[arg(long, value_name = "FILE")]
    pub html: Option<String>,
    /// The element whose path the picture highlights, e.g. 3,5 (default 0,1).
    #[arg(long, value_name = "i,j")]
    pub element: Option<String>,
    /// Zoom the picture's tensor panels on rows a..b (half-open, second-to-last dim).
    #[arg(long, value_name = "a..b")]
    pub rows: Option<String>,
    /// Zoom the picture's tensor panels on columns c..d (half-open, last dim).
    #[arg(long, value_name = "c..d")]
    pub cols: Option<String>,
    /// Source layout.
    pub src: String,
    /// Destination layout.
    pub dst: String,
}

/// Arguments of `swizzle`.
#[derive(clap::Args)]
pub struct SwizzleArgs {
    /// Tensor shape, e.g. 128x128.
    #[arg(long)]
    pub shape: String,
    #[command(flatten)]
    pub dtype: DtypeArgs,
    #[command(flatten)]
    pub hardware: HardwareArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Source layout.
    pub src: String,
    /// Destination layout.
    pub dst: String,
}

/// Arguments of `bank-conflicts`.
#[derive(clap::Args)]
pub struct BankConflictsArgs {
    /// Tensor shape, e.g. 64x64.
    #[arg(long)]
    pub shape: String,
    #[command(flatten)]
    pub dtype: DtypeArgs,
    #[command(flatten)]
    pub hardware: HardwareArgs,
    /// Print JSON with Triton's count and the exact hardware count.
    #[arg(long)]
    pub json: bool,
    /// Distributed layout.
    pub distributed: String,
    /// Shared layout.
    pub shared: String,
}

/// Reads one layout argument for `shape` and checks it against the
/// hardware flags.
pub fn read_plan_layout(
    arg: &str,
    shape: &[u64],
    what: &str,
    hardware: &HardwareArgs,
) -> Result<LinearLayout, CliError> {
    let ll = read_layout(arg, shape, what)?;
    hardware.check(&ll, &format!("the {what} layout"))?;
    Ok(ll)
}

/// Reads one layout argument for `shape`.
pub fn read_layout(arg: &str, shape: &[u64], what: &str) -> Result<LinearLayout, CliError> {
    let text = read_layout_text(arg)?;
    let t = text.trim();
    if t.starts_with('{') {
        let v: Value =
            serde_json::from_str(t).map_err(|e| format!("{what} layout: invalid JSON: {e}"))?;
        // An oracle record (or `swizzle --json`) keeps the bases in "linear".
        let bases = v.get("linear").unwrap_or(&v);
        return LinearLayout::from_json(bases, Some(shape))
            .map_err(|e| format!("{what} layout: {e}").into());
    }
    let enc = hw_layouts::Encoding::parse(t).map_err(|e| format!("{what} layout: {e}"))?;
    enc.to_linear_layout(shape)
        .map_err(|e| format!("{what} layout: {e}").into())
}

/// Parses `--shape` and checks that every dim is a power of two.
pub fn shape_arg(s: &str) -> Result<Vec<u64>, CliError> {
    let shape = parse_shape(s)?;
    if let Some(d) = shape.iter().find(|&&d| d == 0 || !d.is_power_of_two()) {
        return Err(
            format!("invalid shape '{s}': every dim must be a power of two, got {d}").into(),
        );
    }
    Ok(shape)
}

/// Runs `bank-conflicts`.
pub fn run_bank_conflicts(a: BankConflictsArgs) -> Result<(), CliError> {
    let shape = shape_arg(&a.shape)?;
    let bw = a.dtype.bits()?;
    a.hardware.validate()?;
    let reg = read_plan_layout(&a.distributed, &shape, "distributed", &a.hardware)?;
    let smem = read_plan_layout(&a.shared, &shape, "shared", &a.hardware)?;
    // The library's refusal named neither layout ("layout is missing in
    // dim 'offset'" for two distributed layouts).
    for (l, what, dim) in [
        (&reg, "distributed", DimName::REGISTER),
        (&smem, "shared", DimName::OFFSET),
    ] {
        if !l.has_in_dim(dim) {
            let dims: Vec<String> = l.in_dim_names().map(|d| d.to_string()).collect();
            return Err(format!(
                "the {what} layout has no '{dim}' input dim (its input dims: {}): bank-conflicts takes the distributed layout that stores, then the shared layout",
                dims.join(", ")
            )
            .into());
        }
    }
    let n = bank_conflicts(&reg, &smem, bw)?;
    if a.json {
        let exact = exact_bank_conflicts(&reg, &smem, bw)?;
        println!("{}", json!({"conflicts": n, "exact_hardware": exact}));
    } else {
        println!("{n}");
    }
    Ok(())
}

/// Runs `swizzle`.
pub fn run_swizzle(a: SwizzleArgs) -> Result<(), CliError> {
    let shape = shape_arg(&a.shape)?;
    let bitwidth = a.dtype.bits()?;
    a.hardware.validate()?;
    let src = read_plan_layout(&a.src, &shape, "source", &a.hardware)?;
    let dst = read_plan_layout(&a.dst, &shape, "destination", &a.hardware)?;
    check_same_threads(&src, &dst)?;
    let r = optimal_swizzling(&src, &dst, bitwidth)?;
    let text = shared_linear_text(&r.shared, 16);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "shared": text,
                "linear": r.shared.bases_json(),
                "vector_elems": r.vector_elems,
                "vector_bits": r.vector_elems * bitwidth as u64,
                "read_conflicts": r.read_conflicts,
                "write_conflicts": r.write_conflicts,
                "lower_bound_log2": r.lower_bound_log2,
            }))
            .expect("json")
        );
    } else {
        println!("{text}");
        println!(
            "vector: {} elements ({} bits)",
            r.vector_elems,
            r.vector_elems * bitwidth as u64
        );
        println!("write conflicts: {}", r.write_conflicts);
        println!("read conflicts: {}", r.read_conflicts);
        println!(
            "lower bound: {} (log2 wavefronts of the worse side)",
            r.lower_bound_log2
        );
    }
    Ok(())
}

/// `dst.invert_and_compose(src)` as one object per destination basis.
fn conversion_json(c: &LinearLayout) -> Value {
    let mut m = Map::new();
    for (d, bases) in c.all_bases() {
        let list: Vec<Value> = bases
            .iter()
            .map(|b| {
                let mut o = Map::new();
                for ((name, _), v) in c.out_dims().iter().zip(b) {
                    o.insert(name.to_string(), json!(v));
                }
                Value::Object(o)
            })
            .collect();
        m.insert(d.to_string(), Value::Array(list));
    }
    Value::Object(m)
}

/// Why cross-CTA conversions have no plan (Triton moves such data through
/// distributed shared memory in a CTA cluster; the planner and simulator
/// model one CTA).
const CROSS_CTA: &str = "the conversion moves data between CTAs (block level): Triton goes \
     through distributed shared memory in the cluster; cross-CTA plans are not implemented";

/// `convert` for a conversion that moves data between CTAs: the class
/// (Triton's: shared memory, `cross_cta` set) and the conversion map, with
/// the plan an explicit unsupported case (exit 0: the input is valid).
fn report_cross_cta(a: &ConvertArgs, comp: &LinearLayout) -> Result<(), CliError> {
    if a.svg.is_some() || a.html.is_some() {
        return Err(format!("no picture: {CROSS_CTA}").into());
    }
    if a.json {
        let out = json!({
            "kind": ConversionKind::SharedMemory.short_name(),
            "cross_cta": true,
            "conversion": conversion_json(comp),
            "cost": null,
            "plan": {"kind": "unsupported", "reason": CROSS_CTA},
            "best": null,
        });
        println!("{}", serde_json::to_string_pretty(&out).expect("json"));
    } else {
        println!("class: shared (across CTAs)");
        println!("plan: unsupported: {CROSS_CTA}");
    }
    Ok(())
}

/// Runs `convert`.
pub fn run_convert(a: ConvertArgs) -> Result<(), CliError> {
    let shape = shape_arg(&a.shape)?;
    let bw = a.dtype.bits()?;
    a.hardware.validate()?;
    check_plan_shape(&shape, "convert")?;
    let src = read_plan_layout(&a.src, &shape, "source", &a.hardware)?;
    let dst = read_plan_layout(&a.dst, &shape, "destination", &a.hardware)?;
    check_plan_layout(&src, "the source layout", "convert")?;
    check_plan_layout(&dst, "the destination layout", "convert")?;
    check_same_threads(&src, &dst)?;
    let comp = conversion_layout(&src, &dst)?;
    let kind = classify(&src, &dst)?;
    if kind == ConversionKind::CrossCta {
        return report_cross_cta(&a, &comp);
    }
    let triton = plan_conversion(&src, &dst, bw)?;
    let triton_report =
        simulate(&triton, &src, &dst).map_err(|e| format!("simulation failed: {e}"))?;
    let target = target_for(&src);
    let config = SimulatorConfig {
        banks: target.banks,
    };
    // Triton's plan costed by the planner's rule (a warp program of
    // 8/16-bit elements in its packed-word form where that is cheaper, as
    // Triton's lowering packs words too).
    let triton_cost = whole_cost(&config, &triton, &src, &dst, &target)?
        .0
        .cycles();
    // The planner's answer, when asked for or for the JSON's "best".
    let best = if a.best || a.json {
        Some(plan(&src, &dst, bw, &target)?)
    } else {
        None
    };
    // What is shown: the planner's lowering with --best, else Triton's.
    let shown = match best.as_ref().filter(|_| a.best).map(|b| &b.lowering) {
        Some(Lowering::Whole { plan }) => {
            let report =
                simulate(plan, &src, &dst).map_err(|e| format!("simulation failed: {e}"))?;
            Shown::Whole(plan.clone(), report)
        }
        Some(Lowering::Partial { plan, words }) => Shown::Partial(plan.clone(), words.is_some()),
        Some(Lowering::Staged { regroup, then }) => {
            let report = simulate_staged(&config, regroup, then, &src, &dst)
                .map_err(|e| format!("simulation failed: {e}"))?;
            Shown::Staged(regroup.clone(), then.clone(), report)
        }
        None => Shown::Whole(triton, triton_report),
    };
    if (a.element.is_some() || a.rows.is_some() || a.cols.is_some())
        && a.svg.is_none()
        && a.html.is_none()
    {
        return Err(
            "--element/--rows/--cols set up the conversion picture: add --svg or --html".into(),
        );
    }
    if a.svg.is_some() || a.html.is_some() {
        match &shown {
            Shown::Whole(plan, _) => write_conversion_picture(&a, &src, &dst, plan, &shape)?,
            Shown::Partial(..) | Shown::Staged(..) => {
                return Err(
                    "--svg/--html draw whole-CTA plans, and the planner chose a \
                     partial cross-warp or staged plan: draw Triton's plan (without --best)"
                        .into(),
                )
            }
        }
    }
    if a.json {
        let (plan_json, cost) = match &shown {
            Shown::Whole(plan, report) => {
                let mut cost = serde_json::to_value(report).expect("json");
                if let ConversionPlan::SharedMemory(p) = plan {
                    cost["scratch_bytes"] = json!(p.scratch_bytes);
                    cost["store_conflicts_analytic"] = json!(p.store_conflicts);
                    cost["load_conflicts_analytic"] = json!(p.load_conflicts);
                }
                (serde_json::to_value(plan).expect("json"), cost)
            }
            Shown::Partial(p, words) => {
                let mut v = serde_json::to_value(p).expect("json");
                v["kind"] = json!("partial");
                v["packed_words"] = json!(words);
                (v, serde_json::to_value(&p.cost).expect("json"))
            }
            Shown::Staged(regroup, then, report) => (
                json!({"kind": "staged", "regroup": regroup, "then": then}),
                serde_json::to_value(report).expect("json"),
            ),
        };
        let mut out = json!({
            "kind": kind.short_name(),
            "conversion": conversion_json(&comp),
            "cost": cost,
            "plan": plan_json,
            "best": best.as_ref().map(|b| {
                let shown = match &shown {
                    Shown::Whole(_, r) | Shown::Staged(_, _, r) if a.best => Some(r),
                    _ => None,
                };
                best_json(b, triton_cost, shown, (&src, &dst))
            }),
        });
        if a.partial {
            out["partial"] = crate::cmd_partial::partial_json(&src, &dst, bw);
        }
        println!("{}", serde_json::to_string_pretty(&out).expect("json"));
        return Ok(());
    }
    println!("class: {}", kind.short_name());
    if let Some(b) = best.as_ref().filter(|_| a.best) {
        print_best(b, triton_cost);
    }
    match &shown {
        Shown::Whole(plan, report) => {
            match best
                .as_ref()
                .filter(|_| a.best)
                .and_then(|b| b.words.as_ref())
            {
                Some(w) => print!("{}", word_program_text(w)),
                None => print!("{}", plan_text(plan)),
            }
            print_report(report);
        }
        Shown::Partial(p, false) => {
            crate::cmd_partial::print_partial_plan(p, "plan: partial cross-warp", "elements")
        }
        Shown::Partial(p, true) => crate::cmd_partial::print_partial_plan(
            p,
            "plan: partial cross-warp, on the packed 32-bit shared words",
            "words",
        ),
        Shown::Staged(regroup, then, report) => {
            print!("{}", staged_text(regroup, then));
            print_report(report);
        }
    }
    if a.partial {
        crate::cmd_partial::print_partial(&src, &dst, bw);
    }
    Ok(())
}

/// The plan `convert` shows: a whole-CTA plan with its simulator report,
/// or the planner's partial cross-warp plan (and whether it moves packed
/// words of 8/16-bit elements).
enum Shown {
    Whole(ConversionPlan, SimulationReport),
    Partial(Box<PartialCrossWarpPlan>, bool),
    /// A staged plan ([`Lowering::Staged`]) and the report of both stages.
    Staged(
        Box<layout_codegen::plan::Regroup>,
        ConversionPlan,
        SimulationReport,
    ),
}

/// The target the planner is asked for: the warp size of the layouts
/// (64 lanes: AMD CDNA3; otherwise NVIDIA sm_90).
fn target_for(src: &LinearLayout) -> Target {
    let lanes = if src.has_in_dim(DimName::LANE) {
        src.in_dim_size(DimName::LANE)
    } else {
        1
    };
    if lanes == Target::CDNA3.warp_size {
        Target::CDNA3
    } else {
        Target::SM90
    }
}

/// The JSON's `"best"`: the planner's class, candidate, cycles beside
/// Triton's, its predicted counts, lower bound, distance from it and every
/// candidate considered; `"simulated"` (the simulator's report) for a
/// whole-CTA plan (`shown`'s when `convert --best` already simulated it).
fn best_json(
    b: &PlannedConversion,
    triton_cost: f64,
    shown: Option<&SimulationReport>,
    (src, dst): (&LinearLayout, &LinearLayout),
) -> Value {
    let simulated = match shown {
        Some(r) => Some(r.clone()),
        None => b.lowering.whole().and_then(|p| simulate(p, src, dst).ok()),
    }
    .map(|r| serde_json::to_value(r).expect("json"));
    json!({
        "kind": b.lowering.kind_name(),
        "candidate": b.candidate,
        "cost": b.cycles,
        "triton_cost": triton_cost,
        "simulated": simulated,
        "predicted": b.cost,
        "lower_bound": b.lower_bound,
        "above_bound": b.above_bound,
        "candidates": b.candidates,
        // The packed-word form that runs (8/16-bit warp programs), whose
        // counts `predicted` holds; `simulated` is its element program.
        "words": b.words.as_ref().map(|w| {
            let c = w.cost();
            json!({"shuffles": c.shuffles, "permutes": c.permutes, "program": w})
        }),
    })
}

/// The text lines of `convert --best` before the plan: the planner's
/// choice and cost beside Triton's, the conversion's floor, and each
/// candidate's cycles or why it was refused.
fn print_best(b: &PlannedConversion, triton_cost: f64) {
    println!(
        "ours: {} ({}), cost {:.2} cycles per warp; Triton's choice costs {:.2}",
        b.lowering.kind_name(),
        b.candidate,
        b.cycles,
        triton_cost
    );
    let lb = &b.lower_bound;
    println!(
        "lower bound: {:.2} cycles per warp ({:.1} wavefronts, {:.1} shuffles over the CTA); the plan is {:.2}x the bound",
        lb.cycles, lb.wavefronts, lb.shuffles, b.above_bound
    );
    if lb.subword_units > 0.0 {
        println!(
            "  8-bit bytes that pair threads one to one: every plan moves at least {:.1} units (wavefronts and shuffles over the CTA; layout_codegen::lower_bound)",
            lb.subword_units
        );
    }
    if lb.pair_bytes > 0 && lb.pair_bytes < 4 && lb.in_warp_bytes > 0 {
        println!(
            "  one lane holds at most {} bytes another lane of its warp needs: a shuffle slot delivers at most {} needed bytes (the relay bound; layout_codegen::lower_bound)",
            lb.pair_bytes,
            lb.slot_bytes()
        );
    }
    if lb.exchange_cycles > 0.0 {
        println!(
            "  a one-bit register<->lane exchange: every plan pays at least {:.2} cycles per warp (shuffles and selects; layout_codegen::lower_bound)",
            lb.exchange_cycles
        );
    }
    for c in &b.candidates {
        match (c.cycles, &c.refused) {
            (Some(cy), _) => println!(
                "  candidate {}: {} {:.2}",
                c.name,
                c.kind.unwrap_or("?"),
                cy
            ),
            (None, Some(why)) => println!("  candidate {}: refused: {why}", c.name),
            (None, None) => println!("  candidate {}: not planned", c.name),
        }
    }
}

/// The simulator's counts of a whole-CTA plan.
fn print_report(report: &SimulationReport) {
    println!(
        "simulated: {} threads, {} destination registers checked",
        report.threads, report.registers_checked
    );
    // A warp-private plan's barriers join one warp each (`__syncwarp()`).
    let barriers = if report.warp_barriers > 0 {
        format!(
            "{} warp barriers (warp-private scratch)",
            report.warp_barriers
        )
    } else {
        format!("{} barriers", report.barriers)
    };
    println!(
        "cost per thread: {} stores, {} loads, {} shuffles, {} selects, {} prmt, {} register moves; {barriers}",
        report.store_instructions,
        report.load_instructions,
        report.shuffles,
        report.selects,
        report.prmt,
        report.register_moves,
    );
    println!(
        "wavefronts: stores {} (conflicts {} per phase), loads {} (conflicts {} per phase)",
        report.store_wavefronts,
        report.max_store_conflicts,
        report.load_wavefronts,
        report.max_load_conflicts
    );
}

/// The element of `--element` (default `(0, 1)`, or `(0, …, 0, 1)` for
/// other ranks; `(0)` when the last dim has one element).
fn element_arg(text: Option<&str>, shape: &[u64]) -> Result<Vec<u64>, CliError> {
    match text {
        Some(t) => {
            let v: Vec<u64> = t
                .split([',', 'x'])
                .map(|p| {
                    p.trim().parse::<u64>().map_err(|_| {
                        format!("invalid --element '{t}': '{p}' is not a non-negative integer")
                    })
                })
                .collect::<Result<_, _>>()?;
            if v.len() != shape.len() || v.iter().zip(shape).any(|(&x, &n)| x >= n) {
                return Err(format!(
                    "invalid --element '{t}': expected {} coordinates inside the shape {shape:?}",
                    shape.len()
                )
                .into());
            }
            Ok(v)
        }
        None => {
            let mut v = vec![0; shape.len()];
            if let (Some(last), Some(n)) = (v.last_mut(), shape.last()) {
                *last = 1.min(n - 1);
            }
            Ok(v)
        }
    }
}

/// Writes `--svg` / `--html` of `convert`.
fn write_conversion_picture(
    a: &ConvertArgs,
    src: &LinearLayout,
    dst: &LinearLayout,
    plan: &ConversionPlan,
    shape: &[u64],
) -> Result<(), CliError> {
    let range = |r: &Option<String>| {
        r.as_deref()
            .map(layout_view::Window::parse_range)
            .transpose()
            .map_err(|e| e.to_string())
    };
    let window = layout_view::Window {
        rows: range(&a.rows)?,
        cols: range(&a.cols)?,
    };
    let element = match (&a.element, window == layout_view::Window::default()) {
        // Default element in a window: its first row, second column (or
        // first, for a one-column window).
        (None, false) => {
            let rank = shape.len();
            let mut v = vec![0; rank];
            if let (Some(r), true) = (&window.rows, rank >= 2) {
                v[rank - 2] = r.start;
            }
            let (c0, c_end) = window
                .cols
                .as_ref()
                .map_or((0, shape[rank - 1]), |c| (c.start, c.end));
            v[rank - 1] = (c0 + 1).min(c_end.saturating_sub(1)).max(c0);
            v
        }
        _ => element_arg(a.element.as_deref(), shape)?,
    };
    let (pic, _) =
        layout_view::convert::conversion_picture_window(src, dst, plan, shape, &element, &window)?;
    let write = |path: &str, text: &str| {
        std::fs::write(path, text).map_err(|source| CliError::Write {
            path: path.to_string(),
            source,
        })
    };
    if let Some(p) = &a.svg {
        write(p, &pic.svg)?;
    }
    if let Some(p) = &a.html {
        write(p, &layout_view::html::page(&pic))?;
    }
    Ok(())
}
