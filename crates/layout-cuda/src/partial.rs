//! CUDA for partial cross-warp conversions
//! ([`layout_codegen::partial`]): only the elements that leave their warp go
//! through shared memory; the others stay in the warp as register moves or
//! `shfl.sync.idx`.
//!
//! The benchmark program has the shape of [`crate::emit_benchmark`]'s (same
//! `main`, arguments `R tiles reps`, JSON line, check of every element), so
//! the GPU runner and report handle it unchanged. Each direction
//! (`cvt_fwd`: src → dst, `cvt_bwd`: dst → src) is
//!
//! ```text
//! if (warp in class 0) { stores of class 0 ; staying moves/shuffles of class 0 }
//! else if ...
//! PARTIAL_SYNC();
//! if (warp in class 0) { loads of class 0 } else if ...
//! PARTIAL_SYNC();
//! ```
//!
//! The branches are warp-uniform (the warp id), so full-mask shuffles inside
//! them are legal, and every register array is indexed by constants only.
//! With `specialise_warps` the whole benchmark loop is instantiated once per
//! warp (`switch (warp)` over `run_warp(..., W)` with `W` a literal): the
//! class branches fold at compile time and the staying moves are pure
//! register renamings (the backward plan returns each staying element to
//! the register it came from, so the loop needs no moves at its back edge).
//! The copies' barriers are then distinct instructions, so `PARTIAL_SYNC`
//! is the non-aligned `barrier.sync 0` (`__syncthreads` is `.aligned`:
//! every thread must execute the same instruction). Without it, the class
//! branches are taken at run time and merging their different register
//! assignments costs moves; `PARTIAL_SYNC` is `__syncthreads`.
//! Addresses are those of the plan: `offset = base ⊕ c` with `base` the
//! lane/warp part (computed once) and `c` the register constant, emitted as
//! `(base ^ c_xor) + c_add` where `c_xor = c & (bits the lane/warp part can
//! set)` and `c_add = c - c_xor` (disjoint bits, so `+` is `⊕`, and `c_add`
//! becomes the instruction's immediate). Staying shuffles of 8/16-bit
//! elements that read the same source lane are packed `32 / bits` per
//! `shfl.sync`.
//!
//! What runs is the planner's partial round trip
//! ([`layout_codegen::round_trip::plan_partial_round_trip`]): its warp
//! classes, stores, loads, lane masks and staying moves are translated as
//! they are. Where it runs on packed words (8/16-bit elements whose shared
//! 4-byte words are register words on both sides,
//! [`layout_codegen::shared_words`]) its plans are 32-bit partial
//! conversions of the word layouts: stores, loads, staying moves and
//! shuffles move whole words, and the elementwise op is one packed add per
//! word.

use crate::Packings;
use crate::{ConversionCase, EmitError};
use layout_codegen::loop_plan::plan_partial_loop;
use layout_codegen::partial::{LaneXor, PartialCrossWarpPlan, StayingMove};
use layout_codegen::plan::Address;
use layout_codegen::plan_options::{PlanOptions, SplitForm};
use layout_codegen::planner::Target;
use layout_codegen::round_trip::{plan_partial_round_trip, PartialRoundTrip};
use layout_codegen::shared_words::SharedWordPlan;
use layout_codegen::target::SmLimits;
use linear_layout::DimName;
use std::fmt::Write;

/// What [`emit_partial_benchmark`] produced.
#[derive(Clone, Debug)]
pub struct PartialEmission {
    /// The `.cu` program.
    pub code: String,
    /// The forward (src → dst) plan.
    pub fwd: PartialCrossWarpPlan,
    /// The backward (dst → src) plan.
    pub bwd: PartialCrossWarpPlan,
    /// `shfl.sync` instructions per thread-warp summed over warps, forward
    /// and backward, after packing.
    pub shuffles: (u64, u64),
    /// Whether 8/16-bit elements are held packed in words and the plans
    /// move words ([`layout_codegen::shared_words::word_layouts`]).
    pub packed: bool,
}

/// `⊕` over the set bits of `var` of the masked constants, as C.
/// Declares `var` = the lane/warp part of `a` (its constant excluded), opaque
/// to the optimiser (as the main emitter does, so per-register addresses are
/// not hoisted out of the benchmark loop and kept live).
fn emit_base(out: &mut String, var: &str, a: &Address) {
    crate::access::emit_opaque_thread_offset(out, var, &a.lane, &a.warp);
}

fn thread_mask(a: &Address) -> u64 {
    a.lane.iter().chain(&a.warp).fold(0, |m, &b| m | b)
}

/// `ptr[(var ^ c_xor) + c_add]` for the offset `var ⊕ c`.
fn address(ptr: &str, var: &str, a: &Address) -> String {
    let m = thread_mask(a);
    let (cx, ca) = (a.constant & m, a.constant & !m);
    if cx == 0 {
        format!("{ptr}[{var} + {ca}u]")
    } else {
        format!("{ptr}[({var} ^ {cx}u) + {ca}u]")
    }
}

fn vec_type(bytes: u64) -> Result<&'static str, EmitError> {
    Ok(match bytes {
        1 => "uint8_t",
        2 => "uint16_t",
        4 => "uint32_t",
        8 => "uint2",
        16 => "uint4",
        b => {
            return Err(EmitError::Unsupported(format!(
                "no vector type of {b} bytes"
            )))
        }
    })
}

/// The 32-bit words of registers `regs` of `arr` (offset order, little
/// endian), for `bits ≤ 32`.
fn words(arr: &str, regs: &[u64], bits: u32) -> Vec<String> {
    let epw = (32 / bits) as usize;
    regs.chunks(epw)
        .map(|ch| {
            ch.iter()
                .enumerate()
                .map(|(k, r)| {
                    if k == 0 {
                        format!("(uint32_t){arr}[{r}]")
                    } else {
                        format!("((uint32_t){arr}[{r}] << {})", k as u32 * bits)
                    }
                })
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect()
}

fn emit_store(
    out: &mut String,
    addr: &str,
    arr: &str,
    regs: &[u64],
    bits: u32,
) -> Result<(), EmitError> {
    let bytes = regs.len() as u64 * bits as u64 / 8;
    if regs.len() == 1 {
        writeln!(out, "    {addr} = {arr}[{}];", regs[0]).unwrap();
        return Ok(());
    }
    let ty = vec_type(bytes)?;
    let w = words(arr, regs, bits);
    let val = match bytes {
        2 | 4 => format!("({ty})({})", w[0]),
        8 => format!("make_uint2({}, {})", w[0], w[1]),
        _ => format!("make_uint4({}, {}, {}, {})", w[0], w[1], w[2], w[3]),
    };
    writeln!(out, "    *reinterpret_cast<{ty}*>(&{addr}) = {val};").unwrap();
    Ok(())
}

fn emit_load(
    out: &mut String,
    addr: &str,
    arr: &str,
    regs: &[u64],
    bits: u32,
) -> Result<(), EmitError> {
    let bytes = regs.len() as u64 * bits as u64 / 8;
    if regs.len() == 1 {
        writeln!(out, "    {arr}[{}] = {addr};", regs[0]).unwrap();
        return Ok(());
    }
    let ty = vec_type(bytes)?;
    writeln!(
        out,
        "    {{ const {ty} t_ = *reinterpret_cast<const {ty}*>(&{addr});"
    )
    .unwrap();
    let epw = (32 / bits) as usize;
    let mask = if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    for (k, r) in regs.iter().enumerate() {
        let word = match bytes {
            2 | 4 => "(uint32_t)t_".to_string(),
            8 => ["t_.x", "t_.y"][k / epw].to_string(),
            _ => ["t_.x", "t_.y", "t_.z", "t_.w"][k / epw].to_string(),
        };
        let sh = (k % epw) as u32 * bits;
        writeln!(out, "      {arr}[{r}] = ({word} >> {sh}) & {mask}u;").unwrap();
    }
    writeln!(out, "    }}").unwrap();
    Ok(())
}

/// `if (lane is in MASK) ` before a predicated statement (bit `l` of the
/// mask for lane `l`), nothing when every lane runs it.
fn lane_guard(mask: Option<u64>) -> String {
    match mask {
        Some(m) => format!("if ((0x{m:x}u >> lane) & 1u) "),
        None => String::new(),
    }
}

/// The value of the register a lane sends in move `m`, as C: `a[r]`, or a
/// select chain over the lane id when the register depends on the sending
/// lane (the thread evaluating it is the sender).
fn sent_value(m: &StayingMove, a: &str) -> String {
    if m.src_register_by_lane.is_empty() {
        return format!("{a}[{}]", m.src_register);
    }
    let mut regs: Vec<u64> = m.src_register_by_lane.clone();
    regs.sort_unstable();
    regs.dedup();
    let (last, rest) = regs.split_last().expect("a sender table is not empty");
    let mut e = format!("{a}[{last}]");
    for r in rest.iter().rev() {
        let lanes = m
            .src_register_by_lane
            .iter()
            .enumerate()
            .filter(|(_, x)| *x == r)
            .fold(0u64, |acc, (l, _)| acc | 1 << l);
        e = format!("(((0x{lanes:x}u >> lane) & 1u) ? {a}[{r}] : {e})");
    }
    e
}

/// The registers move `m` writes, each with the lanes writing it (`None`:
/// every lane): `dst_register` in the keeping lanes, or, when the register
/// depends on the reading lane, one predicated write per distinct register.
fn written(m: &StayingMove) -> Vec<(u64, Option<u64>)> {
    if m.dst_register_by_lane.is_empty() {
        return vec![(m.dst_register, m.keep_lanes)];
    }
    let mut regs = m.dst_register_by_lane.clone();
    regs.sort_unstable();
    regs.dedup();
    regs.into_iter()
        .map(|d| {
            let lanes = (0..m.dst_register_by_lane.len() as u64)
                .filter(|&l| m.written_by(l) == d && m.keeps(l))
                .fold(0u64, |acc, l| acc | 1 << l);
            (d, Some(lanes))
        })
        .collect()
}

/// Conditional swaps of register pairs `{x, x ⊕ images[i]}` of `arr` over
/// the register set `regs`, for each lane bit `i` set in `lane` (the
/// permutation `arr'[x] = arr[x ⊕ Σ images[i]·lane_i]` of a [`LaneXor`]).
fn emit_lane_permutation(out: &mut String, arr: &str, t: &str, regs: &[u64], images: &[u64]) {
    for (i, &v) in images.iter().enumerate().filter(|(_, &v)| v != 0) {
        writeln!(out, "    {{ const bool p_ = (lane >> {i}) & 1u;").unwrap();
        for &x in regs.iter().filter(|&&x| x < x ^ v) {
            let y = x ^ v;
            writeln!(
                out,
                "      {{ const {t} u_ = {arr}[{x}]; {arr}[{x}] = p_ ? {arr}[{y}] : u_; {arr}[{y}] = p_ ? u_ : {arr}[{y}]; }}"
            )
            .unwrap();
        }
        writeln!(out, "    }}").unwrap();
    }
}

/// Emits the staying moves of one class; returns the `shfl.sync` count.
/// A move keeps the received value only in its keeping lanes and may send
/// a register chosen by the sending lane ([`StayingMove`]). With the
/// class's [`LaneXor`], the moves read a permuted copy `ap_` of the source
/// registers and the staying destination registers are permuted after
/// them.
fn emit_staying(
    out: &mut String,
    moves: &[StayingMove],
    lane_xor: Option<&LaneXor>,
    warps: &[u64],
    bits: u32,
) -> u64 {
    let t = crate::ctype(bits);
    let a = match lane_xor {
        None => "a",
        Some(x) => {
            let n = x.sent.last().map_or(0, |&r| r + 1);
            writeln!(out, "    {t} ap_[{n}];").unwrap();
            for &r in &x.sent {
                writeln!(out, "    ap_[{r}] = a[{r}];").unwrap();
            }
            emit_lane_permutation(out, "ap_", t, &x.sent, &x.sender);
            "ap_"
        }
    };
    let n = emit_moves(out, moves, a, warps, bits);
    if let Some(x) = lane_xor {
        emit_lane_permutation(out, "b", t, &x.received, &x.receiver);
    }
    n
}

/// The moves of [`emit_staying`], sending from array `a`.
fn emit_moves(out: &mut String, moves: &[StayingMove], a: &str, warps: &[u64], bits: u32) -> u64 {
    // Register moves: the source lane is the reading lane in every warp of
    // the class.
    let is_move = |m: &StayingMove| warps.iter().all(|&w| m.is_register_move(w, 32));
    let mut shfl: Vec<&StayingMove> = Vec::new();
    for m in moves {
        if is_move(m) {
            let v = sent_value(m, a);
            for (d, lanes) in written(m) {
                writeln!(out, "    {}b[{d}] = {v};", lane_guard(lanes)).unwrap();
            }
        } else {
            shfl.push(m);
        }
    }
    if shfl.is_empty() {
        return 0;
    }
    // The lane/warp part of the source lane is shared by all shuffles.
    let sl = &shfl[0].src_lane;
    writeln!(out, "    unsigned sl_ = 0u;").unwrap();
    for (name, bases) in [("lane", &sl.lane), ("warp", &sl.warp)] {
        for (i, &b) in bases.iter().enumerate() {
            if b != 0 {
                writeln!(out, "    sl_ ^= (0u - (({name} >> {i}) & 1u)) & {b}u;").unwrap();
            }
        }
    }
    // Pack 32 / bits shuffles reading the same source lane into one.
    let per = (32 / bits) as usize;
    let mut by_lane: Vec<(u64, Vec<&StayingMove>)> = Vec::new();
    for m in shfl {
        match by_lane.iter_mut().find(|(c, _)| *c == m.src_lane.constant) {
            Some((_, v)) => v.push(m),
            None => by_lane.push((m.src_lane.constant, vec![m])),
        }
    }
    let mask = if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    let t = crate::ctype(bits);
    let mut n = 0;
    for (c, ms) in by_lane {
        for ch in ms.chunks(per) {
            let val = ch
                .iter()
                .enumerate()
                .map(|(k, m)| {
                    if k == 0 {
                        format!("(uint32_t){}", sent_value(m, a))
                    } else {
                        format!("((uint32_t){} << {})", sent_value(m, a), k as u32 * bits)
                    }
                })
                .collect::<Vec<_>>()
                .join(" | ");
            writeln!(
                out,
                "    {{ const uint32_t v_ = __shfl_sync(0xffffffffu, {val}, sl_ ^ {c}u);"
            )
            .unwrap();
            for (k, m) in ch.iter().enumerate() {
                for (d, lanes) in written(m) {
                    let guard = lane_guard(lanes);
                    if bits == 32 {
                        writeln!(out, "      {guard}b[{d}] = v_;").unwrap();
                    } else {
                        writeln!(
                            out,
                            "      {guard}b[{d}] = ({t})((v_ >> {}) & {mask}u);",
                            k as u32 * bits
                        )
                        .unwrap();
                    }
                }
            }
            writeln!(out, "    }}").unwrap();
            n += 1;
        }
    }
    n
}

fn warp_cond(warps: &[u64]) -> String {
    warps
        .iter()
        .map(|w| format!("warp == {w}u"))
        .collect::<Vec<_>>()
        .join(" || ")
}

/// Emits one direction as the device function `fname`; returns the number
/// of `shfl.sync` instructions summed over warps.
fn emit_direction(
    out: &mut String,
    fname: &str,
    plan: &PartialCrossWarpPlan,
    smem_t: &str,
) -> Result<u64, EmitError> {
    let bits = plan.bitwidth;
    let t = crate::ctype(bits);
    let (nf, nt) = (plan.src_registers, plan.dst_registers);
    writeln!(
        out,
        "// Partial cross-warp conversion: {} of {} elements stay in their warp; {} warp classes.",
        plan.cost.staying_elements,
        plan.cost.elements,
        plan.classes.len()
    )
    .unwrap();
    if smem_t == t {
        writeln!(
            out,
            "__device__ __forceinline__ void {fname}(const {t} (&a)[{nf}], {t} (&b)[{nt}], {t}* smem, unsigned lane, unsigned warp) {{"
        )
        .unwrap();
    } else {
        // Packed words of narrower elements: the kernel's buffer as words.
        writeln!(
            out,
            "__device__ __forceinline__ void {fname}(const {t} (&a)[{nf}], {t} (&b)[{nt}], {smem_t}* smem_e, unsigned lane, unsigned warp) {{\n  {t}* smem = reinterpret_cast<{t}*>(smem_e);"
        )
        .unwrap();
    }
    let st_addr = plan
        .classes
        .iter()
        .flat_map(|k| k.stores.first())
        .next()
        .map(|a| a.address.clone());
    let ld_addr = plan
        .classes
        .iter()
        .flat_map(|k| k.loads.first())
        .next()
        .map(|a| a.address.clone());
    if let Some(a) = &st_addr {
        emit_base(out, "o_st", a);
    }
    let mut shuffles = 0;
    let n = plan.classes.len();
    for (i, k) in plan.classes.iter().enumerate() {
        writeln!(out, "{}", class_head(i, n, &k.warps)).unwrap();
        for (j, s) in k.stores.iter().enumerate() {
            // A predicated store: the guard's `if` takes the statement that follows.
            let guard = lane_guard(k.store_lanes.get(j).copied());
            if !guard.is_empty() {
                write!(out, "    {guard}").unwrap();
            }
            if Some(&s.address.lane) != st_addr.as_ref().map(|a| &a.lane)
                || Some(&s.address.warp) != st_addr.as_ref().map(|a| &a.warp)
            {
                return Err(EmitError::Invalid(
                    "store addresses differ in lane/warp part".into(),
                ));
            }
            emit_store(
                out,
                &address("smem", "o_st", &s.address),
                "a",
                &s.registers,
                bits,
            )?;
        }
        shuffles += emit_staying(out, &k.staying, k.lane_xor.as_ref(), &k.warps, bits)
            * k.warps.len() as u64;
    }
    // A direction that keeps every element in its warp touches no shared
    // memory and needs no barrier.
    let sync = if st_addr.is_none() && ld_addr.is_none() {
        ""
    } else {
        "\n  PARTIAL_SYNC();"
    };
    writeln!(out, "  }}{sync}").unwrap();
    if st_addr.is_none() {
        writeln!(out, "  (void)smem;").unwrap();
    }
    let Some(ld_base) = &ld_addr else {
        // Nothing crosses warps in this direction: no load phase.
        writeln!(out, "}}\n").unwrap();
        return Ok(shuffles);
    };
    emit_base(out, "o_ld", ld_base);
    for (i, k) in plan.classes.iter().enumerate() {
        writeln!(out, "{}", class_head(i, n, &k.warps)).unwrap();
        for (j, l) in k.loads.iter().enumerate() {
            let guard = lane_guard(k.load_lanes.get(j).copied());
            if !guard.is_empty() {
                write!(out, "    {guard}").unwrap();
            }
            if Some(&l.address.lane) != ld_addr.as_ref().map(|a| &a.lane)
                || Some(&l.address.warp) != ld_addr.as_ref().map(|a| &a.warp)
            {
                return Err(EmitError::Invalid(
                    "load addresses differ in lane/warp part".into(),
                ));
            }
            emit_load(
                out,
                &address("smem", "o_ld", &l.address),
                "b",
                &l.registers,
                bits,
            )?;
        }
    }
    // The barrier before the next store into this buffer is the loop's
    // (see `layout_codegen::loop_schedule`).
    writeln!(out, "  }}\n}}\n").unwrap();
    Ok(shuffles)
}

/// Emits one partial plan as the device function `fname` on element
/// arrays, `void fname(const T (&a)[nf], T (&b)[nt], T* smem, unsigned
/// lane, unsigned warp)` with `T` the `elem_bits`-bit element type: the
/// plan of elements as it is, a plan of packed words (`words`) as the word
/// function `fname_words` with the packing of `a` into the source side's
/// words before it and the unpacking of the destination side's words into
/// `b` after it (register moves the compiler folds). Its barrier is
/// `PARTIAL_SYNC()`, `__syncthreads()` unless the program defines it.
pub(crate) fn emit_partial_function(
    out: &mut String,
    fname: &str,
    plan: &PartialCrossWarpPlan,
    words: Option<&SharedWordPlan>,
    elem_bits: u32,
) -> Result<(), EmitError> {
    let t = crate::ctype(elem_bits);
    out.push_str("#ifndef PARTIAL_SYNC\n#define PARTIAL_SYNC() __syncthreads()\n#endif\n");
    let Some(w) = words else {
        emit_direction(out, fname, plan, t)?;
        return Ok(());
    };
    if plan.bitwidth != 32 {
        return Err(EmitError::Invalid(format!(
            "a partial plan on packed words moves 32-bit values, not {}",
            plan.bitwidth
        )));
    }
    let inner = format!("{fname}_words");
    emit_direction(out, &inner, plan, t)?;
    let (nf, nt) = (w.src.num_regs, w.dst.num_regs);
    let (wf, wt) = (w.src.num_words(), w.dst.num_words());
    writeln!(
        out,
        "__device__ __forceinline__ void {fname}(const {t} (&a)[{nf}], {t} (&b)[{nt}], {t}* smem, unsigned lane, unsigned warp) {{\n    uint32_t aw[{wf}], bw[{wt}];"
    )
    .unwrap();
    crate::emit_pack(out, &w.src, "a", "aw", elem_bits);
    writeln!(out, "    {inner}(aw, bw, smem, lane, warp);").unwrap();
    crate::emit_unpack(out, &w.dst, "bw", "b", elem_bits);
    writeln!(out, "}}\n").unwrap();
    Ok(())
}

/// Emits the benchmark program of `case` with both directions the
/// planner's partial answers through `case.smem` in the plain class
/// ([`PlanOptions::partial_through`] with [`SplitForm::Plain`]; each
/// direction on packed words where the shared words allow it; at least one
/// of them keeps part of its data in its warps; `case.options` is not
/// read). Errors when neither direction is in the class, for elements
/// wider than 32 bits, or for non-2D tiles.
pub fn emit_partial_benchmark(
    case: &ConversionCase,
    specialise_warps: bool,
) -> Result<PartialEmission, EmitError> {
    emit_partial_form(case, specialise_warps, SplitForm::Plain)
}

/// [`emit_partial_benchmark`] where a direction outside the plain partial
/// class (staying, or its source register, depends on the lane) is planned
/// in its lane-predicated form ([`SplitForm::Predicated`]).
pub fn emit_predicated_partial_benchmark(
    case: &ConversionCase,
    specialise_warps: bool,
) -> Result<PartialEmission, EmitError> {
    emit_partial_form(case, specialise_warps, SplitForm::Predicated)
}

/// [`emit_predicated_partial_benchmark`] where a direction outside the
/// plain class is planned with transposed staying moves where a warp admits
/// them, else in the lane-predicated form ([`SplitForm::Transposed`]).
pub fn emit_transposed_partial_benchmark(
    case: &ConversionCase,
    specialise_warps: bool,
) -> Result<PartialEmission, EmitError> {
    emit_partial_form(case, specialise_warps, SplitForm::Transposed)
}

/// The benchmark program of the planner's partial round trip of `case`
/// through `case.smem` in the form `form`.
fn emit_partial_form(
    case: &ConversionCase,
    specialise_warps: bool,
    form: SplitForm,
) -> Result<PartialEmission, EmitError> {
    let options = PlanOptions::partial_through(case.smem.clone(), form);
    let plan = plan_partial_round_trip(&case.src, &case.dst, case.bits, &Target::SM90, &options)?;
    emit_partial_planned(case, &plan, specialise_warps)
}

/// Emits the benchmark program of `case` that runs the planner's partial
/// round trip `plan` ([`plan_partial_round_trip`] of `case.src ↔
/// case.dst`; `case.smem` and `case.options` are not read): forward
/// `plan.fwd`, backward `plan.bwd`, each on the packed words of its
/// `*_words` when set. `specialise_warps`: one copy of the benchmark loop per warp (see
/// the module doc).
pub fn emit_partial_planned(
    case: &ConversionCase,
    plan: &PartialRoundTrip,
    specialise_warps: bool,
) -> Result<PartialEmission, EmitError> {
    if case.shape.len() != 2 {
        return Err(EmitError::Unsupported(
            "the benchmark kernel takes rank-2 tiles".into(),
        ));
    }
    if !matches!(case.bits, 8 | 16 | 32) {
        return Err(EmitError::Invalid(format!(
            "partial cross-warp emission supports 8, 16 and 32-bit elements, not {}",
            case.bits
        )));
    }
    case.check_threads()?;
    let PartialRoundTrip {
        fwd,
        bwd,
        fwd_words,
        bwd_words,
        ..
    } = plan.clone();
    for (p, w, d) in [
        (&fwd, &fwd_words, "src → dst"),
        (&bwd, &bwd_words, "dst → src"),
    ] {
        let pbits = if w.is_some() { 32 } else { case.bits };
        if p.bitwidth != pbits {
            return Err(EmitError::Invalid(format!(
                "the partial plan {d} of '{}' moves {}-bit values, its words are {pbits}-bit",
                case.name, p.bitwidth
            )));
        }
    }
    let t = crate::ctype(case.bits);
    let ns = case.src.in_dim_size(DimName::REGISTER);
    let nd = case.dst.in_dim_size(DimName::REGISTER);
    let tile: u64 = case.shape.iter().product();
    let mut s = String::new();
    writeln!(
        s,
        "// Generated by layout-cuda (partial cross-warp plan) for case '{}': do not edit.",
        case.name
    )
    .unwrap();
    writeln!(
        s,
        "// shape {:?}, {}-bit elements, {} warps",
        case.shape, case.bits, case.num_warps
    )
    .unwrap();
    s.push_str(crate::FILE_HEADER);
    if specialise_warps {
        // Each warp runs its own copy of the loop, so its barriers are
        // different instructions: the non-aligned `barrier.sync` (legal in
        // warp-divergent code), not `__syncthreads` (`.aligned`).
        s.push_str("#if defined(__CUDA_ARCH__)\n#define PARTIAL_SYNC() asm volatile(\"barrier.sync 0;\" ::: \"memory\")\n#else\n#define PARTIAL_SYNC() __syncthreads()\n#endif\n\n");
    } else {
        s.push_str("#define PARTIAL_SYNC() __syncthreads()\n\n");
    }
    // The loop holds 8/16-bit data in consecutive words (the consumer's
    // packing); word plans take their shared words' packings.
    let packings = Packings {
        fwd: fwd_words.as_ref().map(|p| (&p.src, &p.dst)),
        bwd: bwd_words.as_ref().map(|p| (&p.src, &p.dst)),
    };
    let held = crate::held_form(case.bits, (ns, nd), packings);
    if matches!(held, crate::Held::Words { .. }) {
        s.push_str(crate::packed_add(case.bits).0);
    }
    let sf = emit_direction(&mut s, "cvt_fwd", &fwd, t)?;
    let sb = emit_direction(&mut s, "cvt_bwd", &bwd, t)?;
    let packed = fwd_words.is_some() || bwd_words.is_some();
    // The loop's arrays, their type and length.
    let (ha, hb, ht, (las, lad)) = match held {
        crate::Held::Words { bits, .. } => (
            "aw",
            "bw",
            "uint32_t",
            (ns * u64::from(bits) / 32, nd * u64::from(bits) / 32),
        ),
        crate::Held::Elements => ("a", "b", t, (ns, nd)),
    };
    let sides = crate::KernelSides::new(&case.src, &case.dst, &case.shape, case.bits)?;
    // Replicated layouts: keep every copy's registers live (see `Sink`).
    let sink = crate::Sink::for_layouts(&case.src, &case.dst);
    // The loop's scratch schedule, shared memory and CTAs per SM
    // ([`layout_codegen::loop_plan`]).
    let lp = plan_partial_loop(
        plan,
        &case.src,
        &case.dst,
        case.bits,
        specialise_warps,
        &SmLimits::SM90,
    )?;
    let (threads, bytes) = (lp.threads, lp.scratch_bytes);
    let scratch = crate::Scratch::new(&lp, case.bits, "PARTIAL_SYNC()");
    let bench_loop = |s: &mut String| crate::emit_bench_loop(s, (ns, nd), held, sink, &scratch);
    if specialise_warps {
        // The benchmark loop with the warp id a compile-time constant: the
        // warp-class branches fold away and the staying register moves
        // become renamings (no phi merges between classes).
        let sink_param = if sink.any() { ", uint32_t& sink_" } else { "" };
        writeln!(
            s,
            "__device__ __forceinline__ void run_warp({ht} (&{ha})[{las}], {ht} (&{hb})[{lad}], {t}* smem, unsigned lane, const unsigned warp, int R{sink_param}) {{"
        )
        .unwrap();
        bench_loop(&mut s);
        writeln!(s, "}}\n").unwrap();
    }
    crate::kernel_head(&mut s, t, threads, lp.min_blocks, tile, false);
    sides.emit_load(&mut s, held)?;
    sink.emit_declaration(&mut s);
    if specialise_warps {
        let sink_arg = if sink.any() { ", sink_" } else { "" };
        writeln!(s, "  switch (warp) {{").unwrap();
        for w in 0..case.num_warps {
            let label = if w + 1 == case.num_warps {
                "default".to_string()
            } else {
                format!("case {w}u")
            };
            writeln!(
                s,
                "  {label}: run_warp({ha}, {hb}, smem, lane, {w}u, R{sink_arg}); break;"
            )
            .unwrap();
        }
        writeln!(s, "  }}").unwrap();
    } else {
        bench_loop(&mut s);
    }
    sink.emit_observation(&mut s);
    sides.emit_store(&mut s, held)?;
    writeln!(s, "}}\n").unwrap();
    s.push_str(&crate::host_main(&case.name, t, tile, bytes, threads));
    Ok(PartialEmission {
        code: s,
        fwd,
        bwd,
        shuffles: (sf, sb),
        packed,
    })
}

/// The opening of warp class `i` of `n` in an if/else-if chain over the
/// warp id (the last class takes the `else`; a single class needs no test).
fn class_head(i: usize, n: usize, warps: &[u64]) -> String {
    match (i, i + 1 == n) {
        (0, true) => "  {".to_string(),
        (0, false) => format!("  if ({}) {{", warp_cond(warps)),
        (_, true) => "  } else {".to_string(),
        _ => format!("  }} else if ({}) {{", warp_cond(warps)),
    }
}
