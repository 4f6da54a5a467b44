//! The engine with its choices fixed: the sweeps over loop-carried
//! values (module doc of [`super`], step 5) and the assignment of a
//! sweep's output.

use super::{run_pass, shape, Choices, EngineOutput, Options, PassOutput};
use crate::assignment::Assignment;
use crate::axis::{analyse, AxisInfo};
use crate::cost::Pricer;
use crate::error::{EngineError, Result};
use crate::ir::{OpKind, Program};
use foldhash::{HashMap, HashMapExt};
use std::rc::Rc;

/// The engine with `choices` fixed (see the module doc).
pub(super) fn assign_with(
    p: &Program,
    opts: Options,
    pricer: &mut Pricer,
    choices: &Choices,
) -> Result<EngineOutput> {
    let info = prepare(p, opts)?;
    assign_prepared(p, &info, opts, pricer, choices)
}

/// Checks that the engine can take `p` with `opts` and runs the axis
/// analysis, which no choice changes (the search runs it once for all its
/// candidates).
pub(super) fn prepare(p: &Program, opts: Options) -> Result<Vec<AxisInfo>> {
    if opts.num_warps == 0 || !opts.num_warps.is_power_of_two() || opts.num_warps > 64 {
        return Err(EngineError::Unsupported(format!(
            "num_warps = {} (a power of two up to 64)",
            opts.num_warps
        )));
    }
    for v in &p.values {
        if v.ty.encoding().is_some() {
            return Err(EngineError::Unsupported(format!(
                "{} already has a layout: the engine reads layout-free TTIR",
                v.name
            )));
        }
        if let Some(s) = v.ty.tensor_shape() {
            hw_layouts::check_shape(s)
                .map_err(|e| EngineError::Unsupported(format!("{}: {e}", v.name)))?;
        }
    }
    Ok(analyse(p))
}

/// [`assign_with`] given the axis analysis of [`prepare`].
pub(super) fn assign_prepared(
    p: &Program,
    info: &[AxisInfo],
    opts: Options,
    pricer: &mut Pricer,
    choices: &Choices,
) -> Result<EngineOutput> {
    // Sweep 1: loop-carried values with index-arithmetic inits take the
    // layout their uses want ...
    let none = HashMap::new();
    let first = run_pass(p, info, opts, pricer, &none, choices)?;
    let (lay, free) = (&first.0, &first.1);
    let mut fixed = HashMap::new();
    // ... or the layout of the value the loop yields into them (an
    // accumulator stays in its dot's layout); both are tried and the
    // cheaper whole assignment wins.
    let mut by_yield = HashMap::new();
    for op in &p.ops {
        if matches!(op.kind, OpKind::For | OpKind::While) {
            let body = &op.regions[0];
            let yielded = body
                .ops
                .last()
                .filter(|&&t| p.ops[t].kind == OpKind::Yield && op.kind == OpKind::For)
                .map(|&t| p.ops[t].operands.clone())
                .unwrap_or_default();
            for (k, &arg) in body.args.iter().enumerate() {
                if free[arg] {
                    if let Some(l) = lay[arg].clone() {
                        fixed.insert(arg, l.clone());
                        let y = k.checked_sub(1).and_then(|i| yielded.get(i)).copied();
                        let yl = y
                            .filter(|&y| !free[y] && shape(p, y) == shape(p, arg))
                            .and_then(|y| lay[y].clone());
                        by_yield.insert(arg, yl.unwrap_or(l));
                    }
                }
            }
        }
    }
    // Sweep 2 with nothing fixed is sweep 1 again (same inputs): reuse it.
    let out = if fixed.is_empty() {
        first
    } else {
        run_pass(p, info, opts, pricer, &fixed, choices)?
    };
    let mut best = finish(p, out)?;
    if by_yield != fixed {
        let other = finish(p, run_pass(p, info, opts, pricer, &by_yield, choices)?)?;
        // The engine's total (conversions, reductions, gathers, compute),
        // or its score under another objective.
        let cost = |pricer: &mut Pricer, o: &EngineOutput| {
            super::search::score_with(p, o, pricer, info, opts.objective)
        };
        if cost(pricer, &other)? < cost(pricer, &best)? {
            best = other;
        }
    }
    Ok(best)
}

/// The assignment of a sweep's output: a use whose demanded layout differs
/// from its value's is a conversion (or a rematerialisation of index
/// arithmetic).
fn finish(p: &Program, out: PassOutput) -> Result<EngineOutput> {
    let (lay, free, demand, shared, decisions) = out;
    let mut a = Assignment {
        layouts: lay,
        uses: HashMap::new(),
        remat: HashMap::new(),
        shared_operands: shared,
    };
    for ((o, i), d) in demand {
        let v = p.ops[o].operands[i];
        let Some(l) = a.layouts[v].as_ref() else {
            continue;
        };
        if l.ll != d.ll {
            if free[v] {
                a.remat.insert((o, i), true);
            }
            a.uses.insert((o, i), Rc::unwrap_or_clone(d));
        }
    }
    for v in 0..p.values.len() {
        if p.is_tensor(v) && a.layouts[v].is_none() {
            return Err(EngineError::Unsupported(format!(
                "no layout found for {}",
                p.values[v].name
            )));
        }
    }
    Ok(EngineOutput {
        assignment: a,
        decisions,
    })
}
