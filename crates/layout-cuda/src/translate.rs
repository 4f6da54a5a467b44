//! The conversion body from the planner's answer: CUDA statements that do
//! exactly what a [`ConversionPlan`] of
//! [`layout_codegen::planner::plan_with`] says, deciding nothing.
//!
//! The body reads the source registers from the array `a` and writes the
//! destination registers to `b` (one element per entry, each layout's
//! register order), with the scratch buffer `smem` (the element type) and
//! the thread's `lane` and `warp` ids in scope:
//!
//! * `NoOp` / `RegisterPermutation`: `b[i] = a[src_register[i]]`.
//! * `WarpShuffle`: per [`Shuffle`], the sent register (a select chain where
//!   it depends on the lane), `__shfl_sync` from the source lane, the
//!   predicate, the write (a select per register it may go to).
//! * `WarpProgram`: [`crate::emit_warp_program`].
//! * `SharedMemory`: per round (a barrier between rounds), every store, one
//!   barrier, every load, then the broadcast copies. The lane/warp part of
//!   each [`Address`] is computed once per thread per distinct part
//!   (`access::emit_opaque_thread_offset`) and the constant added
//!   as an immediate where its bits are disjoint from the thread part's
//!   (`access::xor_as_add`). A vector access moves
//!   `registers.len()` elements at once (`st.shared.v*`); a matrix access is
//!   `stmatrix`/`ldmatrix` ([`crate::matrix_ops::wrappers`]). Replicas of a
//!   broadcast source skip their stores by the plan's
//!   [`StorePredicate`], the rule the planner's store wavefronts count.
//!
//! No barrier ends the body: before the scratch is written again the caller
//! places one (the calling convention of [`crate::device_fn`]).

use crate::access::{emit_opaque_thread_offset, load_stmts, store_expr, xor_as_add};
use crate::{ctype, emit_warp_program, gather, EmitError, Path};
use layout_codegen::plan::{Access, Address, ConversionPlan, SharedMemoryPlan, Shuffle};
use layout_codegen::store_replicas::StorePredicate;
use linear_layout::gf2;
use std::fmt::Write;

/// Emits the statements of `plan` for `bits`-wide elements (module doc) and
/// returns its class as emitted.
pub(crate) fn emit_plan_body(
    out: &mut String,
    plan: &ConversionPlan,
    bits: u32,
) -> Result<Path, EmitError> {
    match plan {
        ConversionPlan::NoOp { registers } => {
            for i in 0..*registers {
                writeln!(out, "  b[{i}] = a[{i}];").unwrap();
            }
            Ok(Path::Registers)
        }
        ConversionPlan::RegisterPermutation { src_register } => {
            for (i, p) in src_register.iter().enumerate() {
                writeln!(out, "  b[{i}] = a[{p}];").unwrap();
            }
            Ok(Path::Registers)
        }
        ConversionPlan::WarpShuffle { shuffles } => {
            for (k, s) in shuffles.iter().enumerate() {
                emit_shuffle(out, k, s, bits);
            }
            Ok(Path::WarpShuffle)
        }
        ConversionPlan::WarpProgram(p) => {
            if bits > 32 {
                return Err(EmitError::Unsupported(format!(
                    "a warp program of {bits}-bit elements (its slots are 32-bit)"
                )));
            }
            emit_warp_program(out, p, bits);
            Ok(Path::WarpShuffle)
        }
        ConversionPlan::SharedMemory(p) => {
            emit_shared(out, p, bits)?;
            Ok(Path::SharedMemory)
        }
    }
}

/// The C expression of `address.eval(lane, 0)` (lane part and constant).
fn lane_expr(a: &Address) -> String {
    gather::xor_expr(a.constant, &[("lane", &a.lane)])
}

/// The registers `a.eval(lane, 0)` can take: `constant ⊕ span(lane part)`.
fn reachable(a: &Address) -> Vec<u64> {
    let span: Vec<u64> = a.lane.iter().copied().filter(|&c| c != 0).collect();
    let mut out: Vec<u64> = (0..1u64 << span.len())
        .map(|x| gf2::bits(x).fold(a.constant, |v, i| v ^ span[i as usize]))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// One [`Shuffle`] (see its doc), numbered `k`.
fn emit_shuffle(out: &mut String, k: usize, s: &Shuffle, bits: u32) {
    let t = ctype(bits);
    let sent = reachable(&s.src_register);
    writeln!(out, "  {{").unwrap();
    if sent.len() == 1 {
        writeln!(out, "    {t} v_ = a[{}];", sent[0]).unwrap();
    } else {
        writeln!(
            out,
            "    const unsigned si_ = {};",
            lane_expr(&s.src_register)
        )
        .unwrap();
        writeln!(out, "    {t} v_ = a[{}];", sent[0]).unwrap();
        for r in &sent[1..] {
            writeln!(out, "    v_ = si_ == {r}u ? a[{r}] : v_;").unwrap();
        }
    }
    writeln!(
        out,
        "    const {t} x_ = __shfl_sync(0xffffffffu, v_, {});",
        lane_expr(&s.src_lane)
    )
    .unwrap();
    let keep = match &s.select {
        Some((cols, expected)) => format!(
            "({}) == {expected}u",
            gather::xor_expr(0, &[("lane", cols.as_slice())])
        ),
        None => "true".into(),
    };
    let written = reachable(&s.dst_register);
    if written.len() == 1 {
        let r = written[0];
        match &s.select {
            None => writeln!(out, "    b[{r}] = x_;").unwrap(),
            Some(_) => writeln!(out, "    if ({keep}) b[{r}] = x_;").unwrap(),
        }
    } else {
        writeln!(
            out,
            "    const unsigned di_ = {};",
            lane_expr(&s.dst_register)
        )
        .unwrap();
        for r in written {
            writeln!(out, "    if (({keep}) && di_ == {r}u) b[{r}] = x_;").unwrap();
        }
    }
    writeln!(out, "  }} // shuffle {k}").unwrap();
}

/// The thread-part variables of a plan's accesses: one per distinct
/// `(lane, warp)` part, with the bits it can set.
struct ThreadParts {
    parts: Vec<(Vec<u64>, Vec<u64>, u64)>,
}

impl ThreadParts {
    fn name(&self, a: &Address) -> (String, u64) {
        let i = self
            .parts
            .iter()
            .position(|p| p.0 == a.lane && p.1 == a.warp)
            .expect("every access's part was declared");
        (format!("o{i}_"), self.parts[i].2)
    }
}

/// The barrier a shared-memory plan's stores, loads and rounds are
/// ordered by: `__syncwarp()` where the planner made the buffer
/// warp-private ([`layout_codegen::warp_private`]), else `__syncthreads()`.
pub(crate) fn barrier_stmt(warp_private: bool) -> &'static str {
    if warp_private {
        "__syncwarp()"
    } else {
        "__syncthreads()"
    }
}

fn emit_shared(out: &mut String, p: &SharedMemoryPlan, bits: u32) -> Result<(), EmitError> {
    let mut parts = ThreadParts { parts: Vec::new() };
    for a in p
        .rounds
        .iter()
        .flat_map(|r| r.stores.iter().chain(&r.loads))
    {
        if !parts
            .parts
            .iter()
            .any(|x| x.0 == a.address.lane && x.1 == a.address.warp)
        {
            let var = format!("o{}_", parts.parts.len());
            let mask = emit_opaque_thread_offset(out, &var, &a.address.lane, &a.address.warp);
            parts
                .parts
                .push((a.address.lane.clone(), a.address.warp.clone(), mask));
        }
    }
    let sync = barrier_stmt(p.warp_private);
    for (ri, round) in p.rounds.iter().enumerate() {
        if ri > 0 {
            writeln!(out, "  {sync};").unwrap();
        }
        // Stores under one predicate share one `if` block (the form of the
        // earlier emitters, whose counts ncu matched; on the H200,
        // 2026-11-25, ncu's store wavefronts equalled the predicted ones,
        // replicas skipped, on every program of the suite).
        let mut open: Option<StorePredicate> = None;
        for a in &round.stores {
            let pred = StorePredicate::of(a);
            if open.is_some() && open != Some(pred) {
                writeln!(out, "  }}").unwrap();
                open = None;
            }
            if open.is_none() && !pred.is_always() {
                writeln!(
                    out,
                    "  if ((lane & {}u) == 0u && (warp & {}u) == 0u) {{",
                    pred.lane_mask, pred.warp_mask
                )
                .unwrap();
                open = Some(pred);
            }
            out.push_str(&access_stmt(a, &parts, bits, true)?);
        }
        if open.is_some() {
            writeln!(out, "  }}").unwrap();
        }
        writeln!(out, "  {sync};").unwrap();
        for a in &round.loads {
            out.push_str(&access_stmt(a, &parts, bits, false)?);
        }
    }
    for (to, from) in &p.copies {
        writeln!(out, "  b[{to}] = b[{from}];").unwrap();
    }
    Ok(())
}

/// One store (from `a`) or load (into `b`) of the plan as C statements.
fn access_stmt(
    a: &Access,
    parts: &ThreadParts,
    bits: u32,
    store: bool,
) -> Result<String, EmitError> {
    let (var, mask) = parts.name(&a.address);
    let idx = xor_as_add(&var, a.address.constant, mask);
    let Some(m) = a.matrix else {
        let addr = format!("smem[{idx}]");
        return Ok(if store {
            format!("  {};\n", store_expr(&addr, "a", &a.registers, bits))
        } else {
            load_stmts(&addr, "b", &a.registers, bits)
        });
    };
    if bits != 16 {
        return Err(EmitError::Unsupported(format!(
            "stmatrix/ldmatrix of {bits}-bit elements (the emitter packs 16-bit halves)"
        )));
    }
    let suf = if m.trans { "_trans" } else { "" };
    let n = m.count;
    let addr = format!("(uint32_t)__cvta_generic_to_shared(&smem[{idx}])");
    let reg = |i: u64, e: u64| a.registers[(2 * i + e) as usize];
    let mut s = String::new();
    if store {
        let ops: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    "(uint32_t)a[{}] | ((uint32_t)a[{}] << 16)",
                    reg(i, 0),
                    reg(i, 1)
                )
            })
            .collect();
        writeln!(s, "  stmatrix_x{n}{suf}({addr}, {});", ops.join(", ")).unwrap();
    } else {
        let names: Vec<String> = (0..n).map(|i| format!("w{i}_")).collect();
        writeln!(
            s,
            "  {{ uint32_t {}; ldmatrix_x{n}{suf}({addr}, {});",
            names.join(", "),
            names.join(", ")
        )
        .unwrap();
        for i in 0..n {
            writeln!(
                s,
                "    b[{}] = (uint16_t)(w{i}_ & 0xffffu); b[{}] = (uint16_t)(w{i}_ >> 16);",
                reg(i, 0),
                reg(i, 1)
            )
            .unwrap();
        }
        s.push_str("  }\n");
    }
    Ok(s)
}
