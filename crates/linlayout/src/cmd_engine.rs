//! `linlayout engine`: layouts for a whole kernel. Front end only: the
//! work is `layout_engine`'s.
//!
//! - `linlayout engine kernel.ttir --target sm90 --num-warps 4 [--json] [--explain]`:
//!   the program as Triton's TTGIR (a layout on every tensor type, aliases
//!   at the top, a `ttg.convert_layout` per conversion), then the
//!   conversions with class, plan and predicted cost as a comment block;
//!   `--explain` adds every conflict with its candidates and their costs;
//!   `--json` has the same, the TTGIR text under `ttgir`.
//! - `linlayout engine --compare RECORDS.jsonl --json`: one JSON line per
//!   oracle record, ours against Triton's pre-pipeline assignment.
//! - `--objective conversions` (either form): the engine ranks its
//!   candidates by the conversions' cost, the other terms breaking ties
//!   (`layout_engine::engine::Objective`); `total` is the default.

use crate::error::CliError;
use layout_engine::anchors::Target;
use layout_engine::cost::Pricer;
use layout_engine::engine::{Objective, Options};
use layout_engine::report::{compare_record_with, run_engine_with};
use std::io::{BufRead, Write};

/// Arguments of `engine`.
#[derive(clap::Args)]
pub struct Args {
    /// The kernel's TTIR (layout-free), '-' for stdin.
    #[arg(required_unless_present = "compare", conflicts_with = "compare")]
    pub kernel: Option<String>,
    /// Target: sm80, sm90 or gfx942.
    #[arg(long, default_value = "sm90")]
    pub target: String,
    /// Warps per CTA (a power of two up to 64).
    #[arg(long, default_value_t = 4)]
    pub num_warps: u64,
    /// Print JSON (with the TTGIR text under `ttgir`) instead of the TTGIR.
    #[arg(long)]
    pub json: bool,
    /// List every conflict with the candidates considered and their costs.
    #[arg(long)]
    pub explain: bool,
    /// Compare with Triton on oracle records (JSON lines, schema engine-oracle/1).
    #[arg(long, value_name = "RECORDS.jsonl")]
    pub compare: Option<String>,
    /// What the engine minimises: `total` (conversions, reductions,
    /// gathers and compute alike) or `conversions` (the conversions' cost
    /// first, the rest breaking ties).
    #[arg(long, default_value = "total", value_name = "total|conversions")]
    pub objective: String,
}

fn read_input(path: &str) -> Result<String, CliError> {
    if path == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| format!("stdin: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}").into())
    }
}

/// Runs the command.
pub fn run(a: Args) -> Result<(), CliError> {
    let mut pricer = Pricer::new();
    let objective = Objective::parse(&a.objective).ok_or_else(|| {
        format!(
            "--objective must be total or conversions, got '{}'",
            a.objective
        )
    })?;
    if let Some(path) = &a.compare {
        let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
        let out = std::io::stdout();
        let mut out = out.lock();
        for (k, line) in std::io::BufReader::new(f).lines().enumerate() {
            let line = line.map_err(|e| format!("{path}: {e}"))?;
            if line.trim().is_empty() {
                continue;
            }
            let v = match serde_json::from_str::<serde_json::Value>(&line) {
                Ok(r) => compare_record_with(&r, objective, &mut pricer),
                Err(e) => {
                    serde_json::json!({"id": format!("line {}", k + 1), "error": format!("not JSON: {e}")})
                }
            };
            let _ = writeln!(out, "{v}");
        }
        return Ok(());
    }
    let target = Target::parse(&a.target)
        .ok_or_else(|| format!("--target must be sm80, sm90 or gfx942, got '{}'", a.target))?;
    let text = read_input(a.kernel.as_deref().unwrap_or("-"))?;
    let opts = Options::new(target, a.num_warps).with_objective(objective);
    let rep = run_engine_with(&text, opts, &mut pricer)?;
    if a.json {
        let mut v = serde_json::to_value(&rep).map_err(|e| e.to_string())?;
        if !a.explain {
            if let Some(o) = v.as_object_mut() {
                o.remove("decisions");
            }
        }
        println!("{v}");
    } else {
        print!("{}", rep.text(a.explain));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(kernel: Option<&str>, target: &str, compare: Option<&str>) -> Args {
        Args {
            kernel: kernel.map(str::to_string),
            target: target.into(),
            num_warps: 4,
            json: false,
            explain: false,
            compare: compare.map(str::to_string),
            objective: "total".into(),
        }
    }

    #[test]
    fn bad_input_is_a_one_line_error() {
        let e = run(args(Some("/nonexistent.ttir"), "sm90", None)).unwrap_err();
        assert!(e.to_string().contains("/nonexistent.ttir"), "{e}");
        let e = run(args(Some("-"), "sm70", None)).unwrap_err();
        assert!(e.to_string().contains("sm70"), "{e}");
        let e = run(args(None, "sm90", Some("/nonexistent.jsonl"))).unwrap_err();
        assert!(e.to_string().contains("/nonexistent.jsonl"), "{e}");
        let mut a = args(None, "sm90", Some("/nonexistent.jsonl"));
        a.objective = "cheapest".into();
        let e = run(a).unwrap_err();
        assert!(e.to_string().contains("cheapest"), "{e}");
    }
}
