//! The compute term: elementwise work, and the memory instructions, that a
//! value's layout multiplies.
//!
//! A layout decides how many elements each thread holds: a tensor of `N`
//! elements on `T` threads is `N / T` registers per thread when the layout
//! is a bijection, and more when the layout replicates it (a dot operand
//! `#ttg.dot_op` of an mma accumulator is broadcast over the warps along
//! the other operand's dim; a slice is broadcast over the sliced dim).
//! Every thread executes one instruction per register for each elementwise
//! op, so a replicated layout repeats the work: the sm80 int4 GEMM with
//! its dequantisation rematerialised in B's dot-operand layout (2 warps
//! along M) executed `cvt.rn.f32.u32` 64 times per thread against 32 in
//! Triton's blocked layout (`bench/engine-gpu/README.md`, known limits).
//!
//! ## The formula
//! For an op `o` whose result (for a store: its pointer as seen) has
//! layout `L` and elements of `b` bits, inside `d` loops:
//!
//! ```text
//! compute(o) = w(o) · r(o, L) / ALU_PER_CYCLE · LOOP_WEIGHT^d
//! r(o, L)    = regs(L) · ⌈b / 32⌉          (ALU ops)
//!            = regs(L) / vec(o, L)         (loads and stores: instructions)
//! ```
//!
//! in the cycles-per-warp scale of the plan cost model
//! ([`layout_codegen::cost`]): `regs(L)` is `L`'s register count (every
//! register of a thread is one lane of one warp instruction; replication
//! across lanes and warps shows up as more registers per thread, since the
//! tensor's elements are spread over the same threads), and
//! [`ALU_PER_CYCLE`] = 2 warp instructions per SM cycle is the measured
//! ALU rate. The compute term of an assignment is the sum over its ops,
//! plus the rematerialised copies of index arithmetic (each recomputed
//! value once per layout it is recomputed in); [`compute_cost`].
//!
//! ## The weights `w(o)` (ALU warp instructions per register)
//! * [`W_ALU`] = 1: integer and floating-point arithmetic, compares,
//!   selects, `tt.addptr` (a 64-bit pointer counts two registers),
//!   `tt.make_range` (one add of the thread's base per register), and the
//!   conversions that `ptxas -arch=sm_90a` lowers to one ALU or FMA-pipe
//!   instruction: `arith.extf` (`cvt.f32.f16` → `HADD2.F32`),
//!   `arith.sitofp`/`uitofp` of 32-bit integers (`cvt.rn.f32.s32` →
//!   `I2FP.F32.S32`), `arith.truncf` (`cvt.rn.f16x2.f32` →
//!   `F2FP.F16.F32.PACK_AB`).
//! * [`W_QUARTER_RATE`] = 4: what runs on the special-function / XU unit
//!   (16 results per SM cycle on compute capability 8.x and 9.0 against 64
//!   for 32-bit integer adds, the CUDA C++ Programming Guide's
//!   arithmetic-instruction throughput table, a quarter of the ALU rate):
//!   float-to-integer conversions (`arith.fptosi`/`fptoui`: `cvt.rzi.s32.f32`
//!   → `F2I.TRUNC`), transcendentals (`math.exp`, `log`, `sqrt`, `rsqrt`,
//!   `sin`, `cos`, `tanh`, `erf`, ...: `ex2.approx.f32` → `MUFU.EX2`),
//!   `tt.fp_to_fp` (fp8 conversions, several instructions each) and
//!   divisions (`arith.divf`, `divsi`, `divui`, `remsi`, `remui`,
//!   `tt.precise_divf`, ...: a reciprocal on that unit, multiplies and a
//!   correction). The SASS names are those `ptxas -arch=sm_90a` (the one
//!   Triton 3.6 ships) printed for a kernel of one of each. A division by one value
//!   for the whole tensor (a splat constant, a `tt.splat`) counts
//!   [`W_ALU`]: Triton rewrites it into a multiplication by the
//!   reciprocal, computed once (the pre-pipeline TTGIR of the sm80
//!   `quant_rowwise` record: `tt.approx_divf` of the scalar, then
//!   `arith.mulf`).
//! * 0: register renamings (`arith.bitcast`, `tt.bitcast`, `tt.splat`,
//!   `arith.constant`, `tt.broadcast`, `tt.expand_dims`, `tt.reshape`,
//!   `tt.trans`, `tt.join`, `tt.split`).
//! * [`W_MEMORY`] = 2 per instruction for `tt.load` and `tt.store`: the
//!   SM's 32 load/store units take one warp instruction per cycle, half
//!   the ALU rate. A load issues `regs(L) / vec` instructions, `vec` the
//!   elements of one vector access: the run of register bases of `L`
//!   stepping 1, 2, 4, … along one dim `k`, capped by 128 bits and by the
//!   pointer's contiguity and alignment along `k` ([`crate::axis`]).
//!
//! A `tt.dot_scaled` counts the elementwise ops of the decomposition Triton
//! lowers it to ([`crate::scaled_dot::decomposition_ops`]: the upcast, the
//! scale's widening and the multiply), each in the layout its operand is
//! read in, as they would count in Triton's TTGIR, which holds them.
//! Dots, reductions, scans, gathers, atomics and conversions are priced
//! elsewhere (or not at all) and get no compute term.

use crate::assignment::Assignment;
use crate::axis::{analyse, AxisInfo};
use crate::cost::weighted;
use crate::error::Result;
use crate::ir::{OpId, OpKind, Program, ValueId};
use crate::shape_ops::{canon, collapse_dims_canon, drop_dim_canon, reshape, split, transpose};
use layout_codegen::cost::ALU_PER_CYCLE;
use linear_layout::{DimName, LinearLayout};
use std::collections::HashSet;

/// ALU warp instructions per register of an ordinary elementwise op.
pub const W_ALU: f64 = 1.0;
/// Per register of a conversion, transcendental or division: a quarter of
/// the ALU rate (module doc).
pub const W_QUARTER_RATE: f64 = 4.0;
/// Per load or store instruction: the load/store units' one warp
/// instruction per cycle, half the ALU rate (module doc).
pub const W_MEMORY: f64 = 2.0;

/// The widest vector access, in bits.
const MAX_VECTOR_BITS: u64 = 128;

/// How an op's per-register work is counted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Work {
    /// No per-register instructions (renamings, ops priced elsewhere).
    None,
    /// `w` ALU instructions per 32-bit register of the result.
    Alu(f64),
    /// Vector memory instructions ([`W_MEMORY`] each).
    Memory,
}

/// The class of op `o` (module doc).
pub fn work_of(p: &Program, o: OpId) -> Work {
    let op = &p.ops[o];
    match op.kind {
        OpKind::Elementwise => {
            Work::Alu(elementwise_weight(&op.name, uniform(p, op.operands.get(1))))
        }
        OpKind::MakeRange => Work::Alu(W_ALU),
        OpKind::Load | OpKind::Store => Work::Memory,
        _ => Work::None,
    }
}

/// Whether `v` is one value for the whole tensor: a splat constant or a
/// `tt.splat` of a scalar.
fn uniform(p: &Program, v: Option<&ValueId>) -> bool {
    let Some(o) = v.and_then(|&v| p.def_op(v)) else {
        return false;
    };
    let op = &p.ops[o];
    match op.kind {
        OpKind::Splat => true,
        OpKind::Constant => op.text.contains("dense<") && !op.text.contains("dense<["),
        _ => false,
    }
}

/// The weight of an elementwise op by name (module doc); a division whose
/// divisor is one value for the whole tensor (`uniform_divisor`) is a
/// multiplication.
pub fn elementwise_weight(name: &str, uniform_divisor: bool) -> f64 {
    let short = name.rsplit('.').next().unwrap_or(name);
    if name.starts_with("math.")
        && !matches!(
            short,
            "absf" | "absi" | "fma" | "copysign" | "ctlz" | "cttz" | "ctpop"
        )
    {
        return W_QUARTER_RATE;
    }
    match short {
        "bitcast" => 0.0,
        "divf" if uniform_divisor => W_ALU,
        "fptosi" | "fptoui" | "fp_to_fp" | "divf" | "divsi" | "divui" | "remsi" | "remui"
        | "remf" | "ceildivsi" | "ceildivui" | "floordivsi" | "precise_divf" | "precise_sqrt"
        | "approx_divf" => W_QUARTER_RATE,
        _ => W_ALU,
    }
}

/// Registers per thread of `l`: distinct elements each thread holds,
/// replication across lanes and warps included. A zero register basis
/// (a thread holding one element twice) is not counted: both copies are
/// computed from the same SSA values and LLVM's common-subexpression
/// elimination merges them.
///
/// ```
/// use hw_layouts::Encoding;
/// use layout_engine::compute::registers;
/// let b = Encoding::parse(
///     "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>",
/// )
/// .unwrap();
/// // 512 elements on 128 threads: 4 each.
/// assert_eq!(registers(&b.to_linear_layout(&[512]).unwrap()), 4);
/// // 128 elements: each of the 4 warps holds all of them, still 4 each.
/// assert_eq!(registers(&b.to_linear_layout(&[128]).unwrap()), 4);
/// ```
pub fn registers(l: &LinearLayout) -> u64 {
    let nonzero = l
        .packed_bases(DimName::REGISTER)
        .iter()
        .filter(|&&b| b != 0)
        .count();
    1u64 << nonzero.min(63)
}

/// Elements of one vector access of `l` along its register run, before
/// the pointer's facts cap it: `2^k` when register bases `0..k` are `1, 2,
/// …, 2^(k-1)` along one out dim, with that dim's index.
pub fn register_run(l: &LinearLayout) -> (u64, Option<usize>) {
    let bases = l.packed_bases(DimName::REGISTER);
    let Some(dim) = bases
        .first()
        .and_then(|&b| l.unpack(b).iter().position(|&x| x == 1))
    else {
        return (1, None);
    };
    // Register basis `k` is `2^k` along `dim` (inside its size) and zero
    // elsewhere.
    let size = l.out_dim_names().nth(dim).map_or(0, |d| l.out_dim_size(d));
    let unit = |k: usize| {
        let mut v = smallvec::SmallVec::<[u64; 4]>::from_elem(0, l.num_out_dims());
        v[dim] = 1u64 << k;
        l.pack(&v)
    };
    let run = bases
        .iter()
        .enumerate()
        .take_while(|&(k, &b)| k < 63 && 1u64 << k < size && b == unit(k))
        .count();
    (1u64 << run, Some(dim))
}

/// Elements per vector access of a load or store of `bits`-bit elements
/// through pointer `ptr` in layout `l` (module doc).
fn vector(l: &LinearLayout, bits: u32, ptr: &AxisInfo) -> u64 {
    let (run, dim) = register_run(l);
    let Some(dim) = dim else { return 1 };
    let bytes = u64::from(bits.div_ceil(8)).max(1);
    let contiguity = ptr.contiguity.get(dim).copied().unwrap_or(1).max(1);
    let aligned = (ptr.divisibility.get(dim).copied().unwrap_or(1) / bytes).max(1);
    run.min(MAX_VECTOR_BITS / (bytes * 8).min(MAX_VECTOR_BITS))
        .min(contiguity)
        .min(aligned)
        .max(1)
}

/// ALU warp instructions of op `o` computed in layout `l` (unweighted by
/// loop depth), with the pointer facts `info` for memory ops.
pub fn op_instructions(p: &Program, o: OpId, l: &LinearLayout, info: &[AxisInfo]) -> f64 {
    let op = &p.ops[o];
    match work_of(p, o) {
        Work::None => 0.0,
        Work::Alu(w) => {
            let bits = op
                .results
                .iter()
                .chain(&op.operands)
                .filter(|&&v| p.is_tensor(v))
                .map(|&v| p.values[v].ty.elem_bits())
                .max()
                .unwrap_or(32);
            w * (registers(l) * u64::from(bits.div_ceil(32))) as f64
        }
        Work::Memory => {
            let Some(&ptr) = op.operands.first() else {
                return 0.0;
            };
            let data = match op.kind {
                OpKind::Load => op.results.first(),
                _ => op.operands.get(1),
            };
            let bits = data.map_or(32, |&v| p.values[v].ty.elem_bits());
            let facts = info.get(ptr).cloned().unwrap_or(AxisInfo {
                contiguity: vec![1],
                divisibility: vec![1],
                constancy: vec![1],
                constant: None,
            });
            let vec = vector(l, bits, &facts);
            W_MEMORY * registers(l).div_ceil(vec) as f64
        }
    }
}

/// The weighted cycles of op `o` computed in layout `l` (module doc).
pub fn op_cycles(p: &Program, o: OpId, l: &LinearLayout, info: &[AxisInfo]) -> f64 {
    weighted(
        op_instructions(p, o, l, info) / ALU_PER_CYCLE,
        p.ops[o].loop_depth,
    )
}

/// The weighted cycles of the elementwise ops of Triton's decomposition of
/// `tt.dot_scaled` op `o` ([`crate::scaled_dot::decomposition_ops`]), each
/// in the layout its operand is read in under `a`.
fn scaled_dot_cycles(p: &Program, a: &Assignment, o: OpId) -> f64 {
    let instructions: f64 = crate::scaled_dot::decomposition_ops(&p.ops[o])
        .into_iter()
        .filter_map(|(i, name, per)| {
            let l = a.seen(p, o, i)?;
            Some(elementwise_weight(name, false) * (registers(&l.ll) * per) as f64)
        })
        .sum();
    weighted(instructions / ALU_PER_CYCLE, p.ops[o].loop_depth)
}

/// The layout op `o`'s work is done in under `a`: its first tensor
/// result's, for a store its pointer as seen.
fn work_layout<'a>(p: &Program, a: &'a Assignment, o: OpId) -> Option<&'a LinearLayout> {
    let op = &p.ops[o];
    match op.kind {
        OpKind::Store => Some(&a.seen(p, o, 0)?.ll),
        _ => op
            .results
            .iter()
            .find(|&&r| p.is_tensor(r))
            .and_then(|&r| a.layout(r))
            .map(|l| &l.ll),
    }
}

/// The compute term of assignment `a` of `p` (module doc): every op's
/// weighted cycles in its layout, plus every rematerialised copy.
pub fn compute_cost(p: &Program, a: &Assignment) -> Result<f64> {
    compute_cost_with(p, a, &analyse(p))
}

/// [`compute_cost`] given the axis analysis `info` of `p` (the search runs
/// it once for all its candidates).
pub fn compute_cost_with(p: &Program, a: &Assignment, info: &[AxisInfo]) -> Result<f64> {
    Ok(compute_terms_with(p, a, info)?
        .iter()
        .map(|t| t.cycles)
        .sum::<f64>()
        + 0.0)
}

/// One op's part of the compute term.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    /// The op.
    pub op: OpId,
    /// Registers per thread of the layout it computes in.
    pub registers: u64,
    /// Weighted cycles.
    pub cycles: f64,
    /// A rematerialised copy (index arithmetic recomputed in the layout a
    /// use sees), not the op in its own layout.
    pub recomputed: bool,
}

/// Every nonzero part of [`compute_cost`], in op order, then the
/// rematerialised copies.
// LinearLayout's only interior mutability is a lazily built evaluator that
// Hash and Eq ignore.
#[allow(clippy::mutable_key_type)]
pub fn compute_terms(p: &Program, a: &Assignment) -> Result<Vec<Term>> {
    compute_terms_with(p, a, &analyse(p))
}

/// [`compute_terms`] given the axis analysis `info` of `p`.
// LinearLayout's only interior mutability is a lazily built evaluator that
// Hash and Eq ignore.
#[allow(clippy::mutable_key_type)]
pub fn compute_terms_with(p: &Program, a: &Assignment, info: &[AxisInfo]) -> Result<Vec<Term>> {
    let merged = cse_duplicates(p, a);
    let mut out = Vec::new();
    for o in p.walk() {
        if p.in_combine_region(o) || merged.contains(&o) {
            continue;
        }
        if p.ops[o].kind == OpKind::DotScaled {
            let cycles = scaled_dot_cycles(p, a, o);
            if cycles != 0.0 {
                let registers = work_layout(p, a, o).map_or(0, registers);
                out.push(Term {
                    op: o,
                    registers,
                    cycles,
                    recomputed: false,
                });
            }
            continue;
        }
        if let Some(l) = work_layout(p, a, o) {
            let cycles = op_cycles(p, o, l, info);
            if cycles != 0.0 {
                out.push(Term {
                    op: o,
                    registers: registers(l),
                    cycles,
                    recomputed: false,
                });
            }
        }
    }
    // Index arithmetic recomputed in the layout a use sees: each value
    // once per layout (the printer shares recomputed copies the same way).
    let mut done: HashSet<(ValueId, LinearLayout)> = HashSet::new();
    for (o, i) in a.rematerialised() {
        let v = p.ops[o].operands[i];
        if let Some(l) = a.uses.get(&(o, i)) {
            recomputed(p, a, v, &canon(&l.ll), info, &mut done, &mut out)?;
        }
    }
    Ok(out)
}

/// The ops MLIR's CSE (which Triton runs after its layout passes) merges
/// into an earlier identical op: a pure op without regions (elementwise,
/// constant, `make_range`, `splat`, `broadcast`, `expand_dims`, `trans`,
/// `reshape`, `join`, `split`, `convert_layout`) whose name, attributes
/// and types, operands (after merging) and result layout equal those of an
/// earlier op under the same parent op (ops inside an `scf.if` are kept:
/// its two regions share a parent). Triton's pre-pipeline TTGIR repeats
/// index arithmetic that way (the `transpose` record computes each
/// `make_range`/`addi`/`cmpi` chain twice in one layout), and the compute
/// term counts the code that runs.
// LinearLayout's only interior mutability is a lazily built evaluator that
// Hash and Eq ignore.
#[allow(clippy::mutable_key_type)]
fn cse_duplicates(p: &Program, a: &Assignment) -> HashSet<OpId> {
    use std::hash::{BuildHasher, Hash, Hasher};
    // An op's key: its parent, name, the text between its operand
    // references and its operands' representatives, streamed into a hash
    // (nothing is allocated per op; the ops' text is a tenth of the
    // engine's time on the sample's largest kernel when hashed as strings).
    // Ops of one hash are compared in full ([`same_text`]) and by their
    // result layouts, which are cloned only then (rare).
    let state = foldhash::fast::FixedState::default();
    let mut rep: Vec<ValueId> = (0..p.values.len()).collect();
    let mut seen: foldhash::HashMap<u64, Vec<OpId>> = foldhash::HashMap::default();
    let mut merged = HashSet::new();
    let layout_of = |o: OpId| {
        p.ops[o]
            .results
            .iter()
            .find(|&&r| p.is_tensor(r))
            .and_then(|&r| a.layout(r))
    };
    for o in p.walk() {
        let op = &p.ops[o];
        let pure = matches!(
            op.kind,
            OpKind::Elementwise
                | OpKind::Constant
                | OpKind::MakeRange
                | OpKind::Splat
                | OpKind::Broadcast
                | OpKind::ExpandDims { .. }
                | OpKind::Trans { .. }
                | OpKind::Reshape
                | OpKind::Join
                | OpKind::Split
                | OpKind::ConvertLayout
        );
        let in_if = op.parent.is_some_and(|q| p.ops[q].kind == OpKind::If);
        if !pure || !op.regions.is_empty() || in_if || op.results.is_empty() {
            continue;
        }
        let mut h = state.build_hasher();
        (op.parent, op.name.as_str()).hash(&mut h);
        for piece in pieces(op, &rep) {
            piece.hash(&mut h);
        }
        let same = seen.entry(h.finish()).or_default();
        let first = if same.is_empty() {
            None
        } else {
            let here = layout_of(o).map(|l| canon(&l.ll));
            same.iter()
                .copied()
                .find(|&f| same_text(p, &rep, f, o) && layout_of(f).map(|l| canon(&l.ll)) == here)
        };
        match first {
            Some(first) => {
                for (i, &r) in op.results.iter().enumerate() {
                    if let Some(&f) = p.ops[first].results.get(i) {
                        rep[r] = rep[f];
                    }
                }
                merged.insert(o);
            }
            None => same.push(o),
        }
    }
    merged
}

/// Whether ops `x` and `y` have one parent and name and the same text with
/// every operand reference read as its representative in `rep` (the key
/// [`cse_duplicates`] hashes).
fn same_text(p: &Program, rep: &[ValueId], x: OpId, y: OpId) -> bool {
    let (a, b) = (&p.ops[x], &p.ops[y]);
    if a.parent != b.parent || a.name != b.name {
        return false;
    }
    pieces(a, rep).eq(pieces(b, rep))
}

/// The text pieces of `op` between its operand references, each with the
/// representative of the operand after it (`None` after the last).
fn pieces<'p>(
    op: &'p crate::ir::Op,
    rep: &'p [ValueId],
) -> impl Iterator<Item = (&'p str, Option<ValueId>)> + 'p {
    let text = op.text.as_str();
    let mut spans = crate::text::value_ref_span_iter(text).zip(&op.operands);
    let mut last = Some(0);
    std::iter::from_fn(move || {
        let from = last?;
        match spans.next() {
            Some(((s, e), &v)) => {
                last = Some(e);
                Some((&text[from..s], Some(rep[v])))
            }
            None => {
                last = None;
                Some((&text[from..], None))
            }
        }
    })
}

/// The terms of recomputing `v` and its producers in `l` (canonical),
/// skipping what `done` holds or what already has that layout.
// LinearLayout's only interior mutability is a lazily built evaluator that
// Hash and Eq ignore.
#[allow(clippy::mutable_key_type)]
fn recomputed(
    p: &Program,
    a: &Assignment,
    v: ValueId,
    l: &LinearLayout,
    info: &[AxisInfo],
    done: &mut HashSet<(ValueId, LinearLayout)>,
    out: &mut Vec<Term>,
) -> Result<()> {
    let mut stack = vec![(v, l.clone())];
    while let Some((v, l)) = stack.pop() {
        if !p.is_tensor(v) || a.layout(v).is_some_and(|x| canon(&x.ll) == l) {
            continue;
        }
        if !done.insert((v, l.clone())) {
            continue;
        }
        let Some(o) = p.def_op(v) else { continue };
        let cycles = op_cycles(p, o, &l, info);
        if cycles != 0.0 {
            out.push(Term {
                op: o,
                registers: registers(&l),
                cycles,
                recomputed: true,
            });
        }
        let op = &p.ops[o];
        for (j, &w) in op.operands.iter().enumerate() {
            if !p.is_tensor(w) {
                continue;
            }
            if let Some(lw) = operand_layout(p, o, j, &l)? {
                stack.push((w, lw));
            }
        }
    }
    Ok(())
}

/// The canonical layout operand `j` of `o` has when `o`'s result has `l`
/// (the inverse image of each register-only op); `None` for other ops.
fn operand_layout(
    p: &Program,
    o: OpId,
    j: usize,
    l: &LinearLayout,
) -> Result<Option<LinearLayout>> {
    let op = &p.ops[o];
    let w = op.operands[j];
    let ws = p.values[w].ty.tensor_shape().unwrap_or(&[]).to_vec();
    Ok(Some(match &op.kind {
        OpKind::Elementwise | OpKind::Load => {
            if p.values[op.results[0]].ty.tensor_shape() != Some(&ws[..]) {
                return Ok(None);
            }
            l.clone()
        }
        OpKind::Broadcast => collapse_dims_canon(l, &ws)?,
        OpKind::ExpandDims { axis } => drop_dim_canon(l, *axis)?,
        OpKind::Trans { order } => {
            let mut inv = vec![0; order.len()];
            for (i, &x) in order.iter().enumerate() {
                if let Some(y) = inv.get_mut(x) {
                    *y = i;
                }
            }
            canon(&transpose(l, &inv)?)
        }
        OpKind::Reshape => canon(&reshape(l, &ws)?),
        OpKind::Join => canon(&split(l)?),
        _ => return Ok(None),
    }))
}
