//! What the front ends show: the program as TTGIR, a layout on every
//! tensor value (Triton's `#ttg.*` syntax, aliases at the top), the conversions
//! with class, plan and predicted cost, and the comparison of an oracle
//! record's Triton assignment with ours.

use crate::anchors::Target;
use crate::assignment::Assignment;
use crate::check::check;
use crate::cost::{total_cost, weighted, Pricer, LOOP_WEIGHT};
use crate::engine::{assign, Decision, Objective, Options};
use crate::error::{EngineError, Result};
use crate::ir::Program;
use crate::parse::parse_program;
use serde::Serialize;
use serde_json::{json, Value};

/// One conversion as reported.
#[derive(Clone, Debug, Serialize)]
pub struct ConversionReport {
    /// The converted value.
    pub value: String,
    /// The value its `ttg.convert_layout` defines in the TTGIR.
    pub converted: String,
    /// Line of the op that needs it (in the TTIR).
    pub line: usize,
    /// Enclosing loops of the conversion.
    pub depth: usize,
    /// Conversion class (`noop`, `register`, `shuffle`, `shared`, ...).
    pub class: String,
    /// The chosen plan.
    pub plan: String,
    /// The planner's candidate that won (`layout_codegen::planner::plan`).
    pub candidate: String,
    /// Why the price is not the planner's answer for the target as it is
    /// (`cost::Price::note`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Cycles per warp of the plan cost model.
    pub cycles: f64,
    /// `cycles · LOOP_WEIGHT^depth`.
    pub weighted: f64,
    /// Source layout (alias).
    pub src: String,
    /// Destination layout (alias).
    pub dst: String,
}

/// The engine's answer for one kernel, ready to print.
#[derive(Clone, Debug, Serialize)]
pub struct EngineReport {
    /// `#alias = attribute`, in order of first use.
    pub aliases: Vec<(String, String)>,
    /// Every tensor value and its layout alias, in program order.
    pub values: Vec<(String, String)>,
    /// Conversions that move data (trivial ones are dropped).
    pub conversions: Vec<ConversionReport>,
    /// Conversions the algebra proves trivial (register renamings), dropped.
    pub trivial_dropped: usize,
    /// Total weighted cost of the conversions.
    pub cost: f64,
    /// The compute term ([`crate::compute::compute_cost`]): the
    /// elementwise work and memory instructions of every op in its
    /// layout, cycles per warp, loop-weighted.
    pub compute_cost: f64,
    /// Loop weight used.
    pub loop_weight: f64,
    /// Checker violations (always empty for the engine's output).
    pub violations: Vec<String>,
    /// What the engine minimised ([`Objective`]); the decisions' costs
    /// are its scores.
    pub objective: Objective,
    /// Conflicts settled by cost (for `--explain`).
    pub decisions: Vec<Decision>,
    /// The TTIR text with a `// value: #alias` comment on every line
    /// that defines a tensor and the conversions each use needs.
    pub program: String,
    /// The program as Triton's TTGIR ([`crate::ttgir::print_ttgir`]): a
    /// layout on every tensor type, aliases at the top, a
    /// `ttg.convert_layout` per conversion.
    pub ttgir: String,
}

struct Aliases(Vec<(String, String)>);

impl Aliases {
    fn name(&mut self, mlir: &str) -> String {
        if let Some((n, _)) = self.0.iter().find(|(_, m)| m == mlir) {
            return n.clone();
        }
        let base = mlir
            .trim_start_matches('#')
            .split(['<', '.'])
            .nth(1)
            .unwrap_or("layout")
            .to_string();
        let base = match base.as_str() {
            "nvidia_mma" | "amd_mfma" => "mma".to_string(),
            _ => base,
        };
        let n = crate::text::next_alias(&self.0, &base);
        self.0.push((n.clone(), mlir.to_string()));
        n
    }
}

/// Runs the engine on TTIR text and builds the report.
pub fn run_engine(
    ttir: &str,
    target: Target,
    num_warps: u64,
    pricer: &mut Pricer,
) -> Result<EngineReport> {
    run_engine_with(ttir, Options::new(target, num_warps), pricer)
}

/// [`run_engine`] with every option (e.g. another [`crate::engine::Objective`]).
pub fn run_engine_with(ttir: &str, opts: Options, pricer: &mut Pricer) -> Result<EngineReport> {
    let p = parse_program(ttir)?;
    let out = assign(&p, opts, pricer)?;
    let g = crate::ttgir::print_ttgir(&p, ttir, &out.assignment, opts.target, opts.num_warps)?;
    let mut rep = report(&p, ttir, &out.assignment, out.decisions, pricer, g)?;
    rep.objective = opts.objective;
    Ok(rep)
}

fn report(
    p: &Program,
    text: &str,
    a: &Assignment,
    decisions: Vec<Decision>,
    pricer: &mut Pricer,
    g: crate::ttgir::Ttgir,
) -> Result<EngineReport> {
    let priced = pricer.price_all(p, a)?;
    // The TTGIR's names (and its attribute for each map), so that the
    // conversion list and the program's types agree; slices and dot
    // operands, inline in the TTGIR, get aliases of their own here.
    let mut al = Aliases(
        g.aliases
            .iter()
            .filter(|(_, d)| {
                hw_layouts::Encoding::parse(d)
                    .is_ok_and(|e| e.space() == hw_layouts::Space::Distributed)
            })
            .cloned()
            .collect(),
    );
    let canonical = |l: &crate::assignment::Layout| {
        g.canonical
            .get(&l.ll)
            .map(|e| e.to_mlir())
            .unwrap_or_else(|| l.mlir())
    };
    let mut values = Vec::new();
    let mut per_line: Vec<Vec<String>> = vec![Vec::new(); text.lines().count() + 1];
    for o in p.walk() {
        let op = &p.ops[o];
        let mut notes = Vec::new();
        for &r in &op.results {
            if let Some(l) = a.layout(r) {
                let n = al.name(&canonical(l));
                notes.push(format!("{}: {n}", p.values[r].name));
                values.push((p.values[r].name.clone(), n));
            }
        }
        for (i, &v) in op.operands.iter().enumerate() {
            if let Some(seen) = a.uses.get(&(o, i)) {
                let n = al.name(&canonical(seen));
                let how = if a.remat.get(&(o, i)).copied().unwrap_or(false) {
                    "recomputed"
                } else {
                    "converted"
                };
                notes.push(format!("{} {how} to {n}", p.values[v].name));
            }
            if a.shared_operands.contains(&(o, i)) {
                notes.push(format!("{} read from shared memory", p.values[v].name));
            }
        }
        if let Some(slot) = per_line.get_mut(op.line) {
            slot.extend(notes);
        }
    }
    for (v, val) in p.values.iter().enumerate() {
        if matches!(val.def, crate::ir::Def::RegionArg { .. }) {
            if let Some(l) = a.layout(v) {
                let n = al.name(&canonical(l));
                values.push((val.name.clone(), n));
            }
        }
    }
    let mut conversions = Vec::new();
    let mut trivial = 0;
    for (k, (c, pr)) in priced.iter().enumerate() {
        if pr.trivial() {
            trivial += 1;
            continue;
        }
        conversions.push(ConversionReport {
            value: p.values[c.value].name.clone(),
            converted: g.convert_names.get(k).cloned().unwrap_or_default(),
            line: p.ops[c.op].line,
            depth: c.depth,
            class: pr.class.to_string(),
            plan: pr.plan.clone(),
            candidate: pr.candidate.to_string(),
            note: pr.note.clone(),
            cycles: pr.cycles,
            weighted: weighted(pr.cycles, c.depth),
            src: al.name(&canonical(&c.src)),
            dst: al.name(&canonical(&c.dst)),
        });
    }
    let mut program = String::new();
    for (n, m) in &al.0 {
        program.push_str(&format!("{n} = {m}\n"));
    }
    for (i, line) in text.lines().enumerate() {
        program.push_str(line);
        if let Some(notes) = per_line.get(i + 1).filter(|n| !n.is_empty()) {
            program.push_str("  // ");
            program.push_str(&notes.join(", "));
        }
        program.push('\n');
    }
    let violations = check(p, a).iter().map(|v| v.to_string()).collect();
    Ok(EngineReport {
        aliases: al.0,
        values,
        conversions,
        trivial_dropped: trivial,
        cost: total_cost(&priced),
        compute_cost: crate::compute::compute_cost(p, a)?,
        loop_weight: LOOP_WEIGHT,
        violations,
        objective: Objective::Total,
        decisions,
        program,
        ttgir: g.text,
    })
}

impl EngineReport {
    /// The human-readable report: the program as TTGIR, then the
    /// conversions as a comment block (and with `explain`, the conflicts
    /// and their candidates).
    pub fn text(&self, explain: bool) -> String {
        let mut s = self.ttgir.clone();
        // Slices and dot operands print inline in the program; the list
        // below names them.
        let inline: Vec<_> = self
            .aliases
            .iter()
            .filter(|(n, _)| !self.ttgir.contains(&format!("{n} = ")))
            .collect();
        if !inline.is_empty() {
            s.push('\n');
        }
        for (n, d) in inline {
            s.push_str(&format!("// {n} = {d}\n"));
        }
        s.push_str(&format!(
            "\n// conversions: {} (cost {:.1} cycles/warp, loop weight {}^depth; {} trivial dropped)\n",
            self.conversions.len(),
            self.cost,
            self.loop_weight,
            self.trivial_dropped
        ));
        s.push_str(&format!(
            "// compute: {:.1} cycles/warp (elementwise work and memory instructions in each value's layout)\n",
            self.compute_cost
        ));
        for c in &self.conversions {
            s.push_str(&format!(
                "//   {} = {} {} -> {} (TTIR line {}): {} ({}), {:.1} cycles x {}^{} = {:.1}\n",
                c.converted,
                c.value,
                c.src,
                c.dst,
                c.line,
                c.class,
                c.plan,
                c.cycles,
                self.loop_weight,
                c.depth,
                c.weighted
            ));
        }
        if explain {
            let by = match self.objective {
                Objective::Total => "cost",
                Objective::Conversions => {
                    "the conversions' cost (--objective conversions; the other terms break ties)"
                }
            };
            s.push_str(&format!(
                "// conflicts settled by {by}: {}\n",
                self.decisions.len()
            ));
            for d in &self.decisions {
                s.push_str(&format!("//   line {}: {} = {}\n", d.line, d.value, d.op));
                for (k, (l, c)) in d.candidates.iter().enumerate() {
                    let mark = if k == d.chosen { "chosen" } else { "      " };
                    s.push_str(&format!("//     {mark} {c:.1}  {l}\n"));
                }
            }
        }
        if !self.violations.is_empty() {
            s.push_str(&format!(
                "// checker: {} violations\n",
                self.violations.len()
            ));
        }
        s
    }
}

/// One `--compare` line for an oracle record (schema `engine-oracle/1`):
/// `{"id", "ours": {conversions, cost, checked}, "triton": {...}}`, or
/// `{"id", "error"}`.
pub fn compare_record(record: &Value, pricer: &mut Pricer) -> Value {
    compare_record_with(record, Objective::Total, pricer)
}

/// [`compare_record`] with our assignment minimising `objective`.
pub fn compare_record_with(record: &Value, objective: Objective, pricer: &mut Pricer) -> Value {
    let id = record["id"].as_str().unwrap_or("?").to_string();
    match compare_inner(record, objective, pricer) {
        Ok(v) => v,
        Err(e) => json!({"id": id, "error": e.to_string()}),
    }
}

fn compare_inner(r: &Value, objective: Objective, pricer: &mut Pricer) -> Result<Value> {
    let field = |k: &str| -> Result<&str> {
        r[k].as_str()
            .ok_or_else(|| EngineError::Unsupported(format!("record has no string field '{k}'")))
    };
    let id = field("id")?;
    let target_text = r["target"]
        .as_str()
        .or_else(|| r["gpu_target"].as_str())
        .unwrap_or("");
    let target = Target::parse(target_text)
        .ok_or_else(|| EngineError::Unsupported(format!("target '{target_text}'")))?;
    let nw = r["options"]["num_warps"]
        .as_u64()
        .ok_or_else(|| EngineError::Unsupported("record has no options.num_warps".into()))?;
    // Ours.
    let p = parse_program(field("ttir")?)?;
    let out = assign(
        &p,
        Options::new(target, nw).with_objective(objective),
        pricer,
    )?;
    let ours = pricer.price_all(&p, &out.assignment)?;
    let ours_checked = check(&p, &out.assignment).is_empty();
    // Triton's.
    let tp = parse_program(field("ttgir_pre_pipeline")?)?;
    let ta = Assignment::from_types(&tp)?;
    let theirs = pricer.price_all(&tp, &ta)?;
    let t_checked = check(&tp, &ta).is_empty();
    let want = r["facts_pre_pipeline"]["n_convert_layout"].as_u64();
    if let Some(w) = want {
        if w != theirs.len() as u64 {
            return Err(EngineError::Unsupported(format!(
                "read {} conversions from ttgir_pre_pipeline, the record says {w}",
                theirs.len()
            )));
        }
    }
    let nontrivial = |v: &[(crate::assignment::Conversion, crate::cost::Price)]| {
        v.iter().filter(|(_, p)| !p.trivial()).count()
    };
    // The engine chooses by conversions plus reductions plus gathers plus
    // the compute term (`engine::search::total_cost`): both sides' priced
    // alike.
    let reduce = |p: &crate::ir::Program, a: &Assignment| {
        crate::engine::reduction::reductions_cost(p, a).map(round1)
    };
    let (our_red, their_red) = (reduce(&p, &out.assignment)?, reduce(&tp, &ta)?);
    let gather = |p: &crate::ir::Program, a: &Assignment| {
        crate::engine::gather::gathers_cost(p, a).map(round1)
    };
    let (our_g, their_g) = (gather(&p, &out.assignment)?, gather(&tp, &ta)?);
    let compute =
        |p: &crate::ir::Program, a: &Assignment| crate::compute::compute_cost(p, a).map(round1);
    let (our_c, their_c) = (compute(&p, &out.assignment)?, compute(&tp, &ta)?);
    let (our_cost, their_cost) = (round1(total_cost(&ours)), round1(total_cost(&theirs)));
    let mut line = json!({
        "id": id,
        "ours": {
            "conversions": nontrivial(&ours),
            "cost": our_cost,
            "reduction_cost": our_red,
            "gather_cost": our_g,
            "compute_cost": our_c,
            "total": round1(our_cost + our_red + our_g + our_c),
            "checked": ours_checked,
        },
        "triton": {
            "conversions": theirs.len(),
            "nontrivial": nontrivial(&theirs),
            "cost": their_cost,
            "reduction_cost": their_red,
            "gather_cost": their_g,
            "compute_cost": their_c,
            "total": round1(their_cost + their_red + their_g + their_c),
            "checked": t_checked,
        },
    });
    // Named only when not the default, so that default lines keep the
    // issue's schema.
    if objective != Objective::Total {
        line["objective"] = json!(objective);
    }
    Ok(line)
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}
