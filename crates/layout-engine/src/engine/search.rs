//! Choices the one-pass engine cannot make locally, made by running it
//! once per candidate and keeping the assignment of least total cost
//! (of least score under another [`Objective`]: `--objective
//! conversions` ranks by the conversions' cost, the rest breaking ties).
//!
//! **Total cost** ([`total_cost`]): every conversion's plan cost plus every
//! reduction's ([`super::reduction`]), every gather's ([`super::gather`])
//! and the compute term ([`crate::compute`]: the elementwise work and
//! memory instructions of every op in its layout), each weighted by its
//! loop depth ([`crate::cost::weighted`]).
//!
//! 1. **Chained dots** (`chain::chains`: attention's `Q·Kᵀ` →
//!    softmax → `P·V`). AccelerateMatmul fixes each chain's warps by rule
//!    ([`crate::anchors::dot_layout`]); here every combination of the
//!    chain's dots' legal arrangements ([`legal_dot_warps`]) is a
//!    candidate (at most [`MAX_COMBINATIONS`]; beyond, the arrangements
//!    shared by all the chain's dots), the rule's first. The engine runs
//!    for each; the least total cost wins, ties to the rule, so nothing
//!    changes where the rule is already cheapest. Chains are settled one
//!    after another, each with the earlier ones' choice fixed.
//! 2. **Reductions broadcast back** ([`super::reduction::broadcast_back`]:
//!    softmax, layer norm) whose operand layout spreads the reduced axis
//!    over warps: the candidate operand layout with the axis inside the
//!    warp ([`super::reduction::warp_local`]; the operand is converted
//!    into it, the reduction needs no shared-memory round, and what the
//!    broadcast meets may follow it) against the layout as assigned; the
//!    cheaper total wins, ties to the layout as assigned.
//! 3. **Elementwise operand layouts**: where an elementwise op's operands
//!    meet in different layouts, the one-pass engine takes the layout of
//!    least converted cost (plus the op's own compute), but what follows
//!    may not cost the same (e.g. a pairwise distance's
//!    `x[:, None, :] - y[None, :, :]`, reduced and stored: the reduction's
//!    result crosses warps differently; an mxfp4 dequantisation whose
//!    cheaper hoist leaves a dearer conversion at the store); the engine
//!    runs once per other candidate layout, and a cheaper total wins, ties
//!    to the locally cheapest.
//! 4. **Gathers** (`tt.gather`): the gather in its index's layout (the
//!    source left in its own) against the lane layout
//!    ([`super::gather::lane_layout`], Triton's `efficient_layout`: source
//!    and index converted into it, the result converted back where its
//!    uses want), each gather priced as Triton lowers it
//!    ([`super::gather_lowering`]: warp shuffles where its warp-local test
//!    holds, else shared memory); the cheaper total wins, ties to the
//!    index's layout. `--explain` names the path and its counts.
//!
//! 5. **Scales of `tt.dot_scaled` loaded whole** (fewer elements than
//!    threads, Triton's `isExpensiveLoadOrStore` false): the one-pass
//!    engine issues such a load in the layout its use wants, as index
//!    arithmetic, here the scale's layout seen from the dot operand,
//!    which replicates it over several registers (one byte load each); the
//!    candidate issues it coalesced and converts it; the cheaper total
//!    wins, ties to the wanted layout. Only for scales: tried for every
//!    small load, the candidate changed 21 of the GPU cases (2026-11-25,
//!    H200, `bench/engine-gpu/results/2026-11-25-h200/small_loads/`) with
//!    gains up to 1.20x and losses up to 0.94x (a `qk_norm`, attention
//!    backward), the model ranking them no better than chance.
//!
//! Every settled choice is a [`Decision`] (for `--explain`), its
//! candidates' total costs beside them.

use super::chain::{chains, dot_params};
use super::gather::{describe, gathers_cost};
use super::reduction::{broadcast_back, crosses_warps, reductions_cost, warp_local};
use super::sweeps::{assign_prepared, prepare};
use super::{Decision, EngineOutput, Objective, Options};
use crate::anchors::legal_dot_warps;
use crate::error::Result;
use crate::ir::{OpId, OpKind, Program};
use hw_layouts::Encoding;
use std::collections::{HashMap, HashSet};

/// Most combinations of warp arrangements tried for one chain: two dots
/// with four arrangements each (8 warps) reach it; each combination is a
/// whole run of the engine (`benches/search.rs` measures the price).
pub const MAX_COMBINATIONS: usize = 16;

/// The most work the search's candidate runs may take for one program, in
/// op visits (runs × the program's ops). Each candidate is a whole run of
/// the engine, so a kernel of many choices (1 280 independent chains of
/// two dots, 8 warps: 19 200 runs of 6 400 ops) took time quadratic in its
/// size, 72 s for 550 KB of TTIR. The oracle corpora's kernels take at
/// most 17 runs and 2 000 op visits (2026-11-29); past the budget the
/// remaining choices keep the one-pass engine's (no decision is listed for
/// them). 2^17 op visits of dots and conversions take about 1 s in
/// release.
pub const MAX_SEARCH_WORK: usize = 1 << 17;

/// What is left of [`MAX_SEARCH_WORK`] for one program, in runs.
struct Budget {
    runs_left: usize,
}

impl Budget {
    fn new(p: &Program) -> Self {
        Budget {
            runs_left: MAX_SEARCH_WORK / p.ops.len().max(1),
        }
    }

    /// Takes one run of the engine, or says that none is left.
    fn take(&mut self) -> bool {
        let ok = self.runs_left > 0;
        self.runs_left = self.runs_left.saturating_sub(1);
        ok
    }
}

/// Choices fixed for one run of the engine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Choices {
    /// `warpsPerCTA` of a dot's accumulator, in place of AccelerateMatmul's.
    pub dot_warps: HashMap<OpId, Vec<u64>>,
    /// Reductions whose operand is brought into the warp-local layout.
    pub local_reduce: HashSet<OpId>,
    /// Gathers done in the lane layout ([`super::gather::lane_layout`]).
    pub lane_gather: HashSet<OpId>,
    /// Elementwise ops whose operands meet in different layouts: the index
    /// of the candidate taken instead of the one of least converted cost.
    pub tied_pick: HashMap<OpId, usize>,
    /// Loads of fewer elements than threads issued in their coalesced
    /// layout (and converted where used) instead of in the layout their
    /// uses want.
    pub anchored_loads: HashSet<OpId>,
}

/// The total cost of an assignment (see the module doc).
pub fn total_cost(
    p: &Program,
    out: &EngineOutput,
    pricer: &mut crate::cost::Pricer,
) -> Result<f64> {
    total_cost_with(p, out, pricer, &crate::axis::analyse(p))
}

/// [`total_cost`] given the axis analysis `info` of `p`.
pub fn total_cost_with(
    p: &Program,
    out: &EngineOutput,
    pricer: &mut crate::cost::Pricer,
    info: &[crate::axis::AxisInfo],
) -> Result<f64> {
    score_with(p, out, pricer, info, Objective::Total)
}

/// The score of an assignment under `objective`
/// ([`super::Objective::score`]): its conversions' cost plus the other
/// terms of the total, weighted as `objective` weighs them.
pub fn score_with(
    p: &Program,
    out: &EngineOutput,
    pricer: &mut crate::cost::Pricer,
    info: &[crate::axis::AxisInfo],
    objective: Objective,
) -> Result<f64> {
    let priced = pricer.price_all(p, &out.assignment)?;
    let others = reductions_cost(p, &out.assignment)?
        + gathers_cost(p, &out.assignment)?
        + crate::compute::compute_cost_with(p, &out.assignment, info)?;
    Ok(objective.score(crate::cost::total_cost(&priced), others))
}

/// The warps of a dot accumulator (`None` for FMA's blocked one).
fn warps_of(e: &Encoding) -> Option<Vec<u64>> {
    match e {
        Encoding::NvidiaMma(m) => Some(m.warps_per_cta.clone()),
        Encoding::AmdMfma(m) => Some(m.warps_per_cta.clone()),
        _ => None,
    }
}

/// The combinations of warp arrangements of one chain, the rule's first.
fn combinations(
    p: &Program,
    opts: Options,
    chain: &[OpId],
    rule: &[Vec<u64>],
) -> Vec<Vec<Vec<u64>>> {
    let per_dot: Vec<Vec<Vec<u64>>> = chain
        .iter()
        .zip(rule)
        .map(|(&d, r)| {
            let mut ws = vec![r.clone()];
            if let Some((s, k, bits, ieee)) = dot_params(p, d) {
                for w in legal_dot_warps(opts.target, &s, k, bits, ieee, opts.num_warps) {
                    if !ws.contains(&w.to_vec()) {
                        ws.push(w.to_vec());
                    }
                }
            }
            ws
        })
        .collect();
    // The product overflows for a long chain (2^64 for 64 dots of two
    // arrangements each, which wrapped to 0 and enumerated them all): an
    // overflow is more than the limit.
    let count = per_dot
        .iter()
        .try_fold(1usize, |n, ws| n.checked_mul(ws.len()));
    let mut out = vec![rule.to_vec()];
    if count.is_some_and(|n| n <= MAX_COMBINATIONS) {
        let mut all: Vec<Vec<Vec<u64>>> = vec![Vec::new()];
        for ws in &per_dot {
            // A dot of one arrangement extends every combination in place
            // (cloning them all for each dot took time quadratic in the
            // chain's length).
            if let [w] = ws.as_slice() {
                for c in &mut all {
                    c.push(w.clone());
                }
                continue;
            }
            all = all
                .into_iter()
                .flat_map(|c| {
                    ws.iter().map(move |w| {
                        let mut c = c.clone();
                        c.push(w.clone());
                        c
                    })
                })
                .collect();
        }
        out.extend(all.into_iter().filter(|c| c != rule));
    } else {
        for w in &per_dot[0] {
            if per_dot.iter().all(|ws| ws.contains(w)) {
                let c = vec![w.clone(); chain.len()];
                if c != rule {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// One run of the engine with `choices`, and its score under
/// `opts.objective` (the total cost by default).
fn run(
    p: &Program,
    info: &[crate::axis::AxisInfo],
    opts: Options,
    pricer: &mut crate::cost::Pricer,
    choices: &Choices,
) -> Result<(EngineOutput, f64)> {
    let out = assign_prepared(p, info, opts, pricer, choices)?;
    let cost = score_with(p, &out, pricer, info, opts.objective)?;
    Ok((out, cost))
}

/// The engine with the choices of the module doc made by cost.
pub(super) fn search(
    p: &Program,
    opts: Options,
    pricer: &mut crate::cost::Pricer,
) -> Result<EngineOutput> {
    let info = prepare(p, opts)?;
    let mut budget = Budget::new(p);
    let mut choices = Choices::default();
    let (mut best, mut best_cost) = run(p, &info, opts, pricer, &choices)?;
    let mut decisions = Vec::new();
    let uses = p.uses();
    for chain in chains(p, &uses) {
        let rule: Option<Vec<Vec<u64>>> = chain
            .iter()
            .map(|&d| {
                let r = *p.ops[d].results.first()?;
                warps_of(&best.assignment.layout(r)?.encoding).filter(|w| w.len() == 2)
            })
            .collect();
        let Some(rule) = rule else { continue };
        let combos = combinations(p, opts, &chain, &rule);
        if combos.len() < 2 {
            continue;
        }
        let mut costs = vec![best_cost];
        let mut chosen = 0;
        let mut chosen_out = None;
        for (k, combo) in combos.iter().enumerate().skip(1) {
            if !budget.take() {
                break;
            }
            let mut c = choices.clone();
            for (&d, w) in chain.iter().zip(combo) {
                c.dot_warps.insert(d, w.clone());
            }
            let (out, cost) = run(p, &info, opts, pricer, &c)?;
            costs.push(cost);
            if cost < costs[chosen] {
                chosen = k;
                chosen_out = Some((c, out));
            }
        }
        if costs.len() < 2 {
            continue;
        }
        let describe = |combo: &[Vec<u64>]| {
            chain
                .iter()
                .zip(combo)
                .map(|(&d, w)| {
                    let r = p.ops[d].results.first().map_or("?", |&r| &p.values[r].name);
                    format!("{r} warpsPerCTA {w:?}")
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut candidates: Vec<(String, f64)> = combos
            .iter()
            .zip(&costs)
            .map(|(c, &k)| (describe(c), k))
            .collect();
        candidates[0].0.push_str(" (AccelerateMatmul's rule)");
        let dots: Vec<&str> = chain
            .iter()
            .filter_map(|&d| p.ops[d].results.first())
            .map(|&r| p.values[r].name.as_str())
            .collect();
        decisions.push(Decision {
            line: p.ops[chain[0]].line,
            op: "chained tt.dot warps".into(),
            value: dots.join(", "),
            candidates,
            chosen,
        });
        if let Some((c, out)) = chosen_out {
            choices = c;
            best = out;
            best_cost = costs[chosen];
        }
    }
    for o in p.walk() {
        if !matches!(p.ops[o].kind, OpKind::Reduce { .. }) || p.in_combine_region(o) {
            continue;
        }
        let OpKind::Reduce { axis } = p.ops[o].kind else {
            continue;
        };
        let Some(&src) = p.ops[o].operands.first() else {
            continue;
        };
        let seen = best
            .assignment
            .uses
            .get(&(o, 0))
            .or(best.assignment.layout(src));
        let Some(seen) = seen else { continue };
        if !crosses_warps(&seen.ll, axis)
            || !broadcast_back(p, &uses, o)
            || warp_local(&seen.ll, axis).is_none()
        {
            continue;
        }
        if !budget.take() {
            break;
        }
        let mut c = choices.clone();
        c.local_reduce.insert(o);
        let (out, cost) = run(p, &info, opts, pricer, &c)?;
        let chosen = usize::from(cost < best_cost);
        let name = p.ops[o].results.first().map_or("?", |&r| &p.values[r].name);
        decisions.push(Decision {
            line: p.ops[o].line,
            op: "tt.reduce operand layout".into(),
            value: name.to_string(),
            candidates: vec![
                (
                    format!("{} as assigned (reduced axis across warps)", seen.mlir()),
                    best_cost,
                ),
                (
                    "the reduced axis moved inside the warp (converted before the reduction)"
                        .into(),
                    cost,
                ),
            ],
            chosen,
        });
        if chosen == 1 {
            choices = c;
            best = out;
            best_cost = cost;
        }
    }
    for o in p.walk() {
        let OpKind::Gather { .. } = p.ops[o].kind else {
            continue;
        };
        let Some(&r) = p.ops[o].results.first() else {
            continue;
        };
        let Some(seen) = best.assignment.layout(r).cloned() else {
            continue;
        };
        if !budget.take() {
            break;
        }
        let mut c = choices.clone();
        c.lane_gather.insert(o);
        let (out, cost) = run(p, &info, opts, pricer, &c)?;
        let chosen = usize::from(cost < best_cost);
        let lane = out
            .assignment
            .layout(r)
            .map_or_else(|| "?".to_string(), |l| l.mlir());
        decisions.push(Decision {
            line: p.ops[o].line,
            op: "tt.gather layout".into(),
            value: p.values[r].name.clone(),
            candidates: vec![
                (
                    format!(
                        "{} (the index's layout; {})",
                        seen.mlir(),
                        describe(p, &best.assignment, o)
                    ),
                    best_cost,
                ),
                (
                    format!(
                        "{lane} (the axis on lanes, converted in and out; {})",
                        describe(p, &out.assignment, o)
                    ),
                    cost,
                ),
            ],
            chosen,
        });
        if chosen == 1 {
            choices = c;
            best = out;
            best_cost = cost;
        }
    }
    let lanes = opts.target.threads_per_warp();
    for o in p.walk() {
        let op = &p.ops[o];
        let small = op.kind == OpKind::Load
            && op
                .operands
                .first()
                .and_then(|&ptr| p.values[ptr].ty.tensor_shape())
                .is_some_and(|s| s.iter().product::<u64>() < opts.num_warps * lanes);
        let Some(&r) = op.results.first().filter(|_| small) else {
            continue;
        };
        if !uses[r].iter().any(|&(u, i)| is_scale_operand(p, u, i)) {
            continue;
        }
        if !budget.take() {
            break;
        }
        let mut c = choices.clone();
        c.anchored_loads.insert(o);
        let (out, cost) = run(p, &info, opts, pricer, &c)?;
        let chosen = usize::from(cost < best_cost);
        let layout = |e: &EngineOutput| {
            e.assignment
                .layout(r)
                .map_or_else(|| "?".to_string(), |l| l.mlir())
        };
        decisions.push(Decision {
            line: op.line,
            op: "small tt.load layout".into(),
            value: p.values[r].name.clone(),
            candidates: vec![
                (
                    format!("{} (the layout its uses want)", layout(&best)),
                    best_cost,
                ),
                (
                    format!("{} (coalesced, converted where used)", layout(&out)),
                    cost,
                ),
            ],
            chosen,
        });
        if chosen == 1 {
            choices = c;
            best = out;
            best_cost = cost;
        }
    }
    let settled = settle_ties(
        p,
        &info,
        opts,
        pricer,
        (choices, best, best_cost),
        &mut decisions,
        &mut budget,
    )?;
    let (_, mut best, _) = settled;
    best.decisions.extend(decisions);
    Ok(best)
}

/// Whether operand `i` of op `u` is a scale of a `tt.dot_scaled`.
fn is_scale_operand(p: &Program, u: OpId, i: usize) -> bool {
    crate::scaled_dot::scaled_dot_operands(&p.ops[u])
        .is_some_and(|f| f.a_scale == Some(i) || f.b_scale == Some(i))
}

/// The engine's current choice: its choices, output and total cost.
type Current = (Choices, EngineOutput, f64);

/// Step 3 of the module doc: every elementwise conflict of `current`
/// settled by total cost (one run of the engine per other candidate
/// layout; ties to the one of least converted cost).
fn settle_ties(
    p: &Program,
    info: &[crate::axis::AxisInfo],
    opts: Options,
    pricer: &mut crate::cost::Pricer,
    current: Current,
    decisions: &mut Vec<Decision>,
    budget: &mut Budget,
) -> Result<Current> {
    let (mut choices, mut best, mut best_cost) = current;
    let tied: Vec<OpId> = best
        .decisions
        .iter()
        .filter(|d| d.candidates.len() > 1)
        .filter_map(|d| {
            let o = p
                .ops
                .iter()
                .position(|op| op.line == d.line && op.name == d.op)?;
            matches!(p.ops[o].kind, OpKind::Elementwise).then_some(o)
        })
        .collect();
    for o in tied {
        // The conflict as the current choice sees it: an earlier settled
        // conflict may have made the operands agree (nothing to settle) or
        // changed the candidates.
        let op = &p.ops[o];
        let Some(d) = best
            .decisions
            .iter()
            .find(|x| x.line == op.line && x.op == op.name && x.candidates.len() > 1)
            .cloned()
        else {
            continue;
        };
        let others: Vec<usize> = (0..d.candidates.len()).filter(|&k| k != d.chosen).collect();
        if others.is_empty() {
            continue;
        }
        let mut candidates = vec![(
            format!("{} (the least converted cost)", d.candidates[d.chosen].0),
            best_cost,
        )];
        let mut chosen = 0;
        let mut chosen_out = None;
        for k in others {
            if !budget.take() {
                break;
            }
            let mut c = choices.clone();
            c.tied_pick.insert(o, k);
            let (out, cost) = run(p, info, opts, pricer, &c)?;
            candidates.push((d.candidates[k].0.clone(), cost));
            if cost < candidates[chosen].1 {
                chosen = candidates.len() - 1;
                chosen_out = Some((c, out));
            }
        }
        if candidates.len() < 2 {
            break;
        }
        decisions.push(Decision {
            line: d.line,
            op: "elementwise operand layouts".into(),
            value: d.value.clone(),
            candidates,
            chosen,
        });
        if let Some((c, out)) = chosen_out {
            best_cost = decisions
                .last()
                .map_or(best_cost, |x| x.candidates[chosen].1);
            choices = c;
            best = out;
        }
    }
    Ok((choices, best, best_cost))
}
