//! # CUDA kernels from linear layouts
//!
//! Turns a layout conversion (source and destination distributed layouts,
//! plus the shared-memory layout it goes through) into CUDA C++ that does
//! exactly that, for the benchmark kernel of the GPU suite:
//!
//! ```text
//! load tile (src layout) ; R × { d = cvt(s) ; d += 1 ; s = cvt(d) ; s += 1 } ;
//! d = cvt(s) ; store tile (dst layout)
//! ```
//!
//! The host checks that every element of the stored tile is its input
//! plus `2R`: the last, forward conversion is checked element by element
//! against the destination layout (for `R = 0` it is the only one), not a
//! round trip that a wrong destination undone by a wrong way back would
//! pass. 8/16-bit data is held between conversions in 32-bit words packed
//! consecutively (register `e·j + k` in slot `k` of word `j`), as a
//! consumer such as `mma.sync` takes it; any other packing a plan works in
//! is repacked inside the timed loop.
//!
//! Every address is a linear map of the hardware indices: for a distributed
//! layout `D: (register, lane, warp) → dims` and a memory map `M: dims →
//! offset` the offset of register `r` of thread `(lane, warp)` is
//! `(M ∘ D)(r, lane, warp) = A_reg(r) ⊕ A_lane(lane) ⊕ A_warp(warp)`: the
//! register part is a compile-time constant per (unrolled) register, the
//! lane/warp part is computed once per thread as an XOR of masked constants.
//! Consecutive registers whose offsets are consecutive and aligned (the
//! register part's low bases are `1, 2, 4, ...` and nothing else touches those
//! bits) become one vector access of up to 16 bytes.
//!
//! The same maps give the *prediction* of shared-memory wavefronts that the
//! GPU run checks against `ncu`: see [`wavefronts`].
//!
//! # Why emitted `.cu` programs and `nvcc`, not a `cudarc` runner
//! Each case is one self-contained CUDA program (kernel, random input,
//! element-by-element check, event timing) built with `nvcc` on the GPU
//! machine. We chose that over launching NVRTC-compiled kernels from Rust
//! through `cudarc` because the very same file also runs on a CPU: under a
//! stand-in `cuda_runtime.h` (one thread per CUDA thread, barriers for
//! `__syncthreads` and every warp collective) and `g++`, CI executes and
//! checks the exact programs the GPU runs, host code included, on machines
//! without a GPU (`tests/*_emulated.rs`). The `.cu` form also lets the
//! toolchain study rebuild the same source with another `ptxas`
//! (`bench/gpu/build_with_ptxas.sh`). The cost: a GPU run needs `nvcc`.

use linear_layout::{DimName, LinearLayout};
use std::fmt::Write;

mod access;
mod bench_loop;
pub mod device_fn;
pub mod gather;
pub mod matrix_ops;
pub mod occupancy;
pub mod partial;
pub mod scratch;
pub mod shared_words;
pub mod swizzle_search;
pub mod word_shuffle;
pub use access::{wavefronts, AccessMap};
pub(crate) use bench_loop::{emit_bench_loop, Held, Scratch, Sink};
use scratch::Schedule;

/// Errors of the emitter: what it cannot emit, naming the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// A case or request the emitter rejects (wrong rank, mismatched
    /// sizes, a name that is not a C identifier, ...).
    #[error("{0}")]
    Invalid(String),
    /// A case the emitter has no code for (e.g. a vector width with no
    /// CUDA type, a tiling that is not a matrix plan).
    #[error("{0}")]
    Unsupported(String),
    /// An error of the layout algebra.
    #[error(transparent)]
    Layout(#[from] linear_layout::LayoutError),
}

/// One benchmark case: a conversion `src → dst` of an `M × N` tile of
/// `bits`-wide elements through shared memory laid out by `smem`
/// (`offset → dims`, invertible).
#[derive(Clone, Debug)]
pub struct ConversionCase {
    /// Identifier (a C identifier fragment).
    pub name: String,
    /// Tile shape `[M, N]`.
    pub shape: Vec<u64>,
    /// Element width in bits (8, 16, 32, 64).
    pub bits: u32,
    /// Warps per CTA.
    pub num_warps: u32,
    /// Source distributed layout.
    pub src: LinearLayout,
    /// Destination distributed layout.
    pub dst: LinearLayout,
    /// Shared-memory layout used by the conversion.
    pub smem: LinearLayout,
    /// Go through shared memory even where a warp-shuffle plan exists (to
    /// compare the two, the paper's Figure 5).
    pub force_shared: bool,
    /// Use `stmatrix`/`ldmatrix` (16-bit elements) for the shared-memory
    /// store/load wherever `layout_codegen::tiling` divides the map by the
    /// matrix tile (see [`matrix_ops`]); other sides keep vector accesses.
    pub use_matrix_ops: bool,
}

/// The plan class of a conversion as emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Destination registers are source registers of the same thread.
    Registers,
    /// Within each warp by `shfl.sync` (a `layout_codegen::shuffle` plan).
    WarpShuffle,
    /// Through shared memory.
    SharedMemory,
}

pub(crate) fn ctype(bits: u32) -> &'static str {
    match bits {
        8 => "uint8_t",
        16 => "uint16_t",
        32 => "uint32_t",
        _ => "unsigned long long",
    }
}

/// The flattened global-memory index map (row-major: the last dim lowest)
/// of a distributed layout, as an [`AccessMap`].
pub fn global_map(layout: &LinearLayout, shape: &[u64]) -> Result<AccessMap, EmitError> {
    let rank = shape.len();
    let rev: Vec<DimName> = (0..rank).rev().map(DimName::dim).collect();
    let flat = layout.transpose_outs(&rev)?.flatten_outs();
    AccessMap::from_layout(&flat)
}

/// The shared-memory offset map `smem⁻¹ ∘ layout` as an [`AccessMap`].
pub fn smem_map(layout: &LinearLayout, smem: &LinearLayout) -> Result<AccessMap, EmitError> {
    let inv = smem.invert()?;
    let m = layout.compose(&inv)?;
    AccessMap::from_layout(&m)
}

/// If the conversion keeps every element in its thread, the source register
/// of each destination register.
pub fn register_permutation(src: &LinearLayout, dst: &LinearLayout) -> Option<Vec<u64>> {
    let c = dst.invert_and_compose(src).ok()?;
    let (l, w, r) = (DimName::LANE, DimName::WARP, DimName::REGISTER);
    // Lanes and warps must map to themselves and registers stay in-thread.
    let lane_ok = c
        .sublayout(&[l], &[l])
        .ok()?
        .square_sublayout_is_identity(&[l])
        && c.sublayout_is_zero(&[l], &[r, w])
        && c.sublayout(&[w], &[w])
            .ok()?
            .square_sublayout_is_identity(&[w])
        && c.sublayout_is_zero(&[w], &[r, l])
        && c.sublayout_is_zero(&[r], &[l, w]);
    if !lane_ok {
        return None;
    }
    let n = dst.in_dim_size(r);
    Some(
        (0..n)
            .map(|i| {
                let out = c
                    .apply(&[(r, i), (l, 0), (w, 0), (DimName::BLOCK, 0)])
                    .ok()
                    .unwrap_or_default();
                out.iter().find(|x| x.0 == r).map_or(0, |x| x.1)
            })
            .collect(),
    )
}

/// Emits the conversion `from → to` as a device function operating on
/// register arrays `a` (source) and `b` (destination).
pub(crate) fn emit_convert(
    out: &mut String,
    fname: &str,
    case: &ConversionCase,
    from: &LinearLayout,
    to: &LinearLayout,
) -> Result<Path, EmitError> {
    let t = ctype(case.bits);
    let nf = from.in_dim_size(DimName::REGISTER);
    let nt = to.in_dim_size(DimName::REGISTER);
    writeln!(
        out,
        "__device__ __forceinline__ void {fname}(const {t} (&a)[{nf}], {t} (&b)[{nt}], {t}* smem, unsigned lane, unsigned warp) {{"
    )
    .unwrap();
    if let Some(perm) = register_permutation(from, to) {
        for (i, p) in perm.iter().enumerate() {
            writeln!(out, "  b[{i}] = a[{p}];").unwrap();
        }
        writeln!(out, "  (void)smem; (void)lane; (void)warp;\n}}").unwrap();
        return Ok(Path::Registers);
    }
    if !case.force_shared && case.bits <= 32 {
        if let Some(plan) =
            shuffle_plan_if_cheaper(from, to, &case.smem, case.bits, case.num_warps as u64)
        {
            emit_warp_program(out, &plan.program, case.bits);
            writeln!(out, "  (void)smem; (void)warp;\n}}").unwrap();
            return Ok(Path::WarpShuffle);
        }
    }
    let st = smem_map(from, &case.smem)?;
    let ld = smem_map(to, &case.smem)?;
    let free = free_masks(from);
    let (st_mx, ld_mx) = if case.use_matrix_ops {
        (
            matrix_ops::plan_for(from, &case.smem, case.bits),
            matrix_ops::plan_for(to, &case.smem, case.bits),
        )
    } else {
        (None, None)
    };
    match &st_mx {
        Some(p) => matrix_ops::emit_store(out, p, "smem", "a")?,
        None => st.emit_store(out, "smem", "a", case.bits, free)?,
    }
    writeln!(out, "  __syncthreads();").unwrap();
    match &ld_mx {
        Some(p) => matrix_ops::emit_load(out, p, "smem", "b")?,
        None => ld.emit_load(out, "smem", "b", case.bits)?,
    }
    // The barrier before the next store into this buffer is the loop's
    // (see `scratch`).
    writeln!(out, "}}").unwrap();
    Ok(Path::SharedMemory)
}

/// The warp-shuffle plan for `from → to` when one exists and its cycles
/// per warp ([`layout_codegen::choice::shuffle_cycles`]: the busier of the
/// shuffle and ALU pipes) are at most the predicted shared-memory
/// wavefronts per warp of the store and load.
pub fn shuffle_plan_if_cheaper(
    from: &LinearLayout,
    to: &LinearLayout,
    smem: &LinearLayout,
    bits: u32,
    num_warps: u64,
) -> Option<layout_codegen::shuffle::WarpShufflePlan> {
    let plan = layout_codegen::shuffle::shuffle_plan(from, to, bits).ok()?;
    let c = plan.cost;
    let shfl_cost =
        layout_codegen::choice::shuffle_cycles(c.shuffles as u64, c.selects as u64, c.prmt as u64);
    let smem_cost = {
        let st = smem_map(from, smem).ok()?;
        let ld = smem_map(to, smem).ok()?;
        let (fr, fl, fw) = free_masks(from);
        let (sw, _) = wavefronts(&st, bits, num_warps, fr, |l, w| l & fl == 0 && w & fw == 0);
        let (lw, _) = wavefronts(&ld, bits, num_warps, 0, |_, _| true);
        (sw + lw) as f64 / num_warps.max(1) as f64
    };
    (shfl_cost <= smem_cost).then_some(plan)
}

/// Emits a warp program: every slot is a 32-bit variable; element slots
/// hold one element in the low bits, packed slots several (first lowest).
pub fn emit_warp_program(out: &mut String, prog: &layout_codegen::shuffle::WarpProgram, bits: u32) {
    use layout_codegen::shuffle::{LanePredicate, ShflMode, WarpInstr};
    // Every slot is written once (SSA): one scalar `const uint32_t` each, so
    // nothing forces an array into local memory.
    for i in 0..prog.num_inputs {
        writeln!(out, "  const uint32_t s{i} = (uint32_t)a[{i}];").unwrap();
    }
    let lane_xor = |bases: &[u64], constant: u64| gather::xor_expr(constant, &[("lane", bases)]);
    let mask = if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    for ins in &prog.instrs {
        match ins {
            WarpInstr::Copy { dst, src } => {
                writeln!(out, "  const uint32_t s{dst} = s{src};").unwrap()
            }
            WarpInstr::Shuffle { dst, src, mode } => match mode {
                ShflMode::Xor { mask } => writeln!(
                    out,
                    "  const uint32_t s{dst} = __shfl_xor_sync(0xffffffffu, s{src}, {mask});"
                )
                .unwrap(),
                ShflMode::Idx { src_lane } => {
                    let bases: Vec<u64> = src_lane.bases.iter().map(|&b| b as u64).collect();
                    let e = lane_xor(&bases, src_lane.constant as u64);
                    writeln!(
                        out,
                        "  const uint32_t s{dst} = __shfl_sync(0xffffffffu, s{src}, {e});"
                    )
                    .unwrap()
                }
            },
            WarpInstr::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                let c = match cond {
                    LanePredicate::Parity { mask } => format!("(__popc(lane & {mask}u) & 1u)"),
                    LanePredicate::Equals { bases, value } => {
                        format!("(({}) == {value}u)", lane_xor(bases, 0))
                    }
                };
                writeln!(
                    out,
                    "  const uint32_t s{dst} = {c} ? s{if_true} : s{if_false};"
                )
                .unwrap()
            }
            WarpInstr::Pack { dst, parts } => {
                let e: Vec<String> = parts
                    .iter()
                    .enumerate()
                    .map(|(k, p)| format!("((s{p} & {mask}u) << {})", k as u32 * bits))
                    .collect();
                writeln!(out, "  const uint32_t s{dst} = {};", e.join(" | ")).unwrap()
            }
            WarpInstr::Unpack { dsts, src } => {
                for (k, d) in dsts.iter().enumerate() {
                    writeln!(
                        out,
                        "  const uint32_t s{d} = (s{src} >> {}) & {mask}u;",
                        k as u32 * bits
                    )
                    .unwrap();
                }
            }
        }
    }
    let t = ctype(bits);
    for (i, o) in prog.outputs.iter().enumerate() {
        writeln!(out, "  b[{i}] = ({t})s{o};").unwrap();
    }
}

/// (register, lane, warp) free-variable masks: the bits whose flip reaches
/// an element a lower index already holds (duplicates to skip on stores).
pub fn free_masks(l: &LinearLayout) -> (u64, u64, u64) {
    let m = l.free_variable_masks();
    let get = |d: DimName| m.iter().find(|x| x.0 == d).map_or(0, |x| x.1);
    (
        get(DimName::REGISTER),
        get(DimName::LANE),
        get(DimName::WARP),
    )
}

/// Emits the whole `.cu` program for a case: the benchmark kernel and a
/// `main` that checks every element on random data and times with events.
pub fn emit_benchmark(case: &ConversionCase) -> Result<(String, Path, Path), EmitError> {
    if case.shape.len() != 2 {
        return Err(EmitError::Unsupported(
            "the benchmark kernel takes rank-2 tiles".into(),
        ));
    }
    for l in [&case.src, &case.dst] {
        if l.in_dim_size(DimName::BLOCK) != 1 {
            return Err(EmitError::Invalid(
                "cross-CTA conversions are not supported by the emitter".into(),
            ));
        }
        if l.in_dim_size(DimName::LANE) != 32
            || l.in_dim_size(DimName::WARP) != case.num_warps as u64
        {
            return Err(EmitError::Invalid(format!(
                "layout has {} lanes and {} warps; expected 32 and {}",
                l.in_dim_size(DimName::LANE),
                l.in_dim_size(DimName::WARP),
                case.num_warps
            )));
        }
    }
    let t = ctype(case.bits);
    let ns = case.src.in_dim_size(DimName::REGISTER);
    let nd = case.dst.in_dim_size(DimName::REGISTER);
    let tile: u64 = case.shape.iter().product();
    let smem_elems = case.smem.total_in_dim_size();
    let mut s = String::new();
    writeln!(
        s,
        "// Generated by layout-cuda for case '{}': do not edit.",
        case.name
    )
    .unwrap();
    writeln!(
        s,
        "// shape {:?}, {}-bit elements, {} warps",
        case.shape, case.bits, case.num_warps
    )
    .unwrap();
    s.push_str(FILE_HEADER);
    if case.use_matrix_ops {
        s.push_str(&matrix_ops::wrappers());
    }
    let words = word_shuffles(case);
    let shared = match &words {
        Some(_) => None,
        None => shared_word_plan(case)?,
    };
    // The conversions work on words where a word-form plan exists
    // (consecutive words for shuffles, the shared words' packings for
    // shared memory); the loop holds consecutive words either way.
    let (cs, cd);
    let plan_packings = match (&words, &shared) {
        (Some(_), _) => {
            cs = shared_words::WordPacking::consecutive(case.bits, ns)?;
            cd = shared_words::WordPacking::consecutive(case.bits, nd)?;
            Some((&cs, &cd))
        }
        (None, Some(p)) => Some((&p.src, &p.dst)),
        (None, None) => None,
    };
    let held = held_form(case.bits, (ns, nd), plan_packings);
    if matches!(held, Held::Words { .. }) {
        s.push_str(packed_add(case.bits).0);
    }
    // Kernels that kept elements packed before consumer packing was
    // required ([`keeps_elements_packed`]'s rule): the occupancy rule
    // below counts their registers as words.
    let packed = packed16(case, ns, nd) || words.is_some() || shared.is_some();
    let (fwd, bwd) = match (&words, &shared) {
        (Some((f, b)), _) => {
            emit_word_convert(&mut s, "cvt_fwd", t, f);
            emit_word_convert(&mut s, "cvt_bwd", t, b);
            (Path::WarpShuffle, Path::WarpShuffle)
        }
        (None, Some(p)) => {
            let (src, dst) = ((&p.src_map, p.src_free), (&p.dst_map, p.dst_free));
            shared_words::emit_convert(&mut s, "cvt_fwd", t, src, dst.0)?;
            shared_words::emit_convert(&mut s, "cvt_bwd", t, dst, src.0)?;
            (Path::SharedMemory, Path::SharedMemory)
        }
        (None, None) => (
            emit_convert(&mut s, "cvt_fwd", case, &case.src, &case.dst)?,
            emit_convert(&mut s, "cvt_bwd", case, &case.dst, &case.src)?,
        ),
    };
    let threads = 32 * case.num_warps;
    // No shared memory unless a direction goes through it (it would only
    // lower occupancy).
    let uses_smem = fwd == Path::SharedMemory || bwd == Path::SharedMemory;
    let bytes = if uses_smem {
        smem_elems * case.bits as u64 / 8
    } else {
        0
    };
    let shuffles = fwd == Path::WarpShuffle || bwd == Path::WarpShuffle;
    let copies = if shuffles { 2 } else { 1 };
    // Packed kernels hold words: `32 / bits` elements per register (H200,
    // H200, 2026-11-21: counting swap1_128x128_f8's word-form shuffles as words
    // gives `__launch_bounds__(128, 4)` instead of no floor, 0.999 -> 0.926
    // us per conversion, commit `46d9830`).
    let blocks = |bytes: u64| match (&shared, packed) {
        (Some(p), _) => {
            let words = p.src.num_words().max(p.dst.num_words());
            occupancy::hopper_min_blocks_words(threads, bytes, words, copies)
        }
        (None, true) => {
            let words = (ns.max(nd) * case.bits as u64).div_ceil(32);
            occupancy::hopper_min_blocks_words(threads, bytes, words, copies)
        }
        (None, false) => {
            occupancy::hopper_min_blocks(threads, bytes, ns.max(nd), case.bits, copies)
        }
    };
    let (scratch, bytes) = scratch_for(
        (fwd == Path::SharedMemory, bwd == Path::SharedMemory),
        (bytes, case.bits),
        true,
        "__syncthreads()",
        blocks,
    );
    let min_blocks = blocks(bytes);
    s.push('\n');
    kernel_head(&mut s, t, threads, min_blocks, tile, false);
    let sides = KernelSides::new(&case.src, &case.dst, &case.shape, case.bits)?;
    sides.emit_load(&mut s, held)?;
    emit_bench_loop(&mut s, (ns, nd), held, Sink::default(), &scratch);
    sides.emit_store(&mut s, held)?;
    writeln!(s, "}}\n").unwrap();
    s.push_str(&host_main(&case.name, t, tile, bytes, threads));
    Ok((s, fwd, bwd))
}

/// The loop's scratch ([`Scratch`]: its [`Schedule`], buffer stride and
/// barrier statement `sync`) when the forward and backward conversions do
/// or do not go through shared memory (`shared`), each with `bytes` of
/// scratch for `bits`-wide elements, and the shared memory the kernel then
/// needs. Two buffers taken in turn, one barrier per conversion instead of
/// two, when `blocks` (the CTAs per SM a scratch size allows, see
/// [`occupancy`]) is no lower for twice the scratch and, if turn-taking
/// needs the body unrolled by two (one direction in shared memory),
/// `unroll_ok`. H200, 2026-11-21 (the two-buffer trial at commit `aecad22`): 3–5% less
/// time per conversion on the 64×64 and 8-bit 128×128 cases, 1.4% on a
/// 128×128 16-bit one that lost a CTA per SM (not taken by this rule).
pub(crate) fn scratch_for(
    shared: (bool, bool),
    (bytes, bits): (u64, u32),
    unroll_ok: bool,
    sync: &'static str,
    blocks: impl Fn(u64) -> Option<u32>,
) -> (Scratch, u64) {
    let one = blocks(bytes);
    // The second buffer starts `bytes` in: keep it 16-byte aligned for
    // vector accesses.
    let two = (shared.0 || shared.1)
        && bytes.is_multiple_of(16)
        && one.is_some()
        && blocks(2 * bytes) == one
        && (unroll_ok || shared.0 == shared.1);
    let schedule = Schedule::new(shared.0, shared.1, two);
    let total = bytes * schedule.buffers().max(1) as u64;
    let scratch = Scratch {
        schedule,
        stride: bytes * 8 / bits as u64,
        sync,
    };
    (scratch, total)
}

/// Whether [`emit_benchmark`]'s kernel keeps 8/16-bit elements packed in
/// 32-bit words between conversions (`packed16`, word-form shuffles or shared words),
/// so that it holds `32 / bits` elements per register.
pub fn keeps_elements_packed(case: &ConversionCase) -> bool {
    let ns = case.src.in_dim_size(DimName::REGISTER);
    let nd = case.dst.in_dim_size(DimName::REGISTER);
    packed16(case, ns, nd)
        || word_shuffles(case).is_some()
        || matches!(shared_word_plan(case), Ok(Some(_)))
}

/// Both directions of an 8- or 16-bit conversion through shared memory on
/// packed words ([`shared_words`]), when both go through shared memory
/// with vector accesses (not `use_matrix_ops`) and every shared 4-byte
/// word is one register word on both sides: the kernel then packs each
/// side by the register bits of those words, and neither the store nor the
/// load moves bytes within words.
fn shared_word_plan(
    case: &ConversionCase,
) -> Result<Option<shared_words::SharedWordPlan>, EmitError> {
    if !matches!(case.bits, 8 | 16) || case.use_matrix_ops {
        return Ok(None);
    }
    let through_shared = |from: &LinearLayout, to: &LinearLayout| {
        register_permutation(from, to).is_none()
            && (case.force_shared
                || shuffle_plan_if_cheaper(from, to, &case.smem, case.bits, case.num_warps as u64)
                    .is_none())
    };
    if !through_shared(&case.src, &case.dst) || !through_shared(&case.dst, &case.src) {
        return Ok(None);
    }
    shared_words::plan(&case.src, &case.dst, &case.smem, case.bits)
}

/// Whether the benchmark kernel keeps 16-bit elements packed in pairs
/// between conversions (register `2j` in the low half of word `j`, `2j + 1`
/// in the high half), as Triton does: the elementwise op is then one
/// `add.s16x2` per pair. Only when both layouts pair the same elements
/// (equal register basis 0): each pair then moves as one 32-bit word and
/// the unpack/pack around a conversion folds away. Where the pairs split
/// (transposes, register↔lane swaps of bit 0) re-pairing costs a byte
/// permute per word, which measured slower on the H200 (swap1 64×64
/// 16-bit: 1.26×; blocked transposes: 1.08–1.14×).
///
/// 8-bit elements are packed only where no byte moves within a word at a
/// conversion: around word-form warp shuffles ([`word_shuffles`]) and
/// shared-memory conversions whose shared words are register words on both
/// sides ([`shared_word_plan`], which also takes precedence over this rule
/// for 16-bit elements). Keeping them four to consecutive registers per
/// word around other shared-memory conversions measured 1.4–1.5× slower
/// on the H200 (2026-11-21, `blocked_T_128x128_f8` 2.30 → 3.36 µs per
/// conversion): the byte extraction and re-packing at the vector accesses
/// does not fold.
fn packed16(case: &ConversionCase, ns: u64, nd: u64) -> bool {
    let pair = |l: &LinearLayout| l.basis(DimName::REGISTER, 0);
    case.bits == 16
        && ns.is_multiple_of(2)
        && nd.is_multiple_of(2)
        && pair(&case.src) == pair(&case.dst)
}

/// Both directions of an 8- or 16-bit conversion as word programs
/// ([`word_shuffle`]), when both go by warp shuffles and their word forms
/// are no costlier: the kernel then keeps pairs packed throughout, also
/// where the two layouts pair different elements.
fn word_shuffles(
    case: &ConversionCase,
) -> Option<(
    layout_codegen::shuffle_words::WordProgram,
    layout_codegen::shuffle_words::WordProgram,
)> {
    if !matches!(case.bits, 8 | 16) || case.force_shared {
        return None;
    }
    let one = |from: &LinearLayout, to: &LinearLayout| {
        if register_permutation(from, to).is_some() {
            return None;
        }
        let plan = shuffle_plan_if_cheaper(from, to, &case.smem, case.bits, case.num_warps as u64)?;
        word_shuffle::word_form_if_cheaper(&plan)
    };
    Some((one(&case.src, &case.dst)?, one(&case.dst, &case.src)?))
}

/// A conversion function on packed words (see [`word_shuffle`]).
fn emit_word_convert(
    out: &mut String,
    fname: &str,
    t: &str,
    prog: &layout_codegen::shuffle_words::WordProgram,
) {
    writeln!(
        out,
        "__device__ __forceinline__ void {fname}(const uint32_t (&a)[{}], uint32_t (&b)[{}], {t}* smem, unsigned lane, unsigned warp) {{",
        prog.num_inputs,
        prog.outputs.len()
    )
    .unwrap();
    word_shuffle::emit_word_program(out, prog);
    writeln!(out, "  (void)smem; (void)warp;\n}}").unwrap();
}

/// `x + y` on each 16-bit half (no carry between halves): `add.s16x2` on
/// the GPU, the same arithmetic in plain C++ elsewhere (CPU emulation).
const ADD_U16X2: &str = r#"__device__ __forceinline__ uint32_t add_u16x2(uint32_t x, uint32_t y) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  asm("add.s16x2 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y));
  return d;
#else
  return ((x & 0xffff0000u) + (y & 0xffff0000u)) | ((x + y) & 0xffffu);
#endif
}
"#;

/// `x + y` on each byte (no carry between bytes): the low seven bits of
/// each byte add without crossing, the top bit is their carry XOR the top
/// bits of `x` and `y`.
const ADD_U8X4: &str = r#"__device__ __forceinline__ uint32_t add_u8x4(uint32_t x, uint32_t y) {
  return ((x & 0x7f7f7f7fu) + (y & 0x7f7f7f7fu)) ^ ((x ^ y) & 0x80808080u);
}
"#;

/// The C source of the elementwise op on a packed word (`add_u8x4` or
/// `add_u16x2`) and the word of ones it adds.
pub(crate) fn packed_add(bits: u32) -> (&'static str, &'static str, &'static str) {
    if bits == 8 {
        (ADD_U8X4, "add_u8x4", "0x01010101u")
    } else {
        (ADD_U16X2, "add_u16x2", "0x00010001u")
    }
}

/// `words[j] = ⊕_k arr[p.register(j, k)] << k·bits` for every word `j`:
/// one unrolled loop for the consecutive packing, a statement per word
/// otherwise.
pub(crate) fn emit_pack(
    s: &mut String,
    p: &shared_words::WordPacking,
    arr: &str,
    words: &str,
    bits: u32,
) {
    let e = p.per_word();
    let term = |k: u64, idx: String| match k {
        0 => format!("(uint32_t){arr}[{idx}]"),
        _ => format!("((uint32_t){arr}[{idx}] << {})", k * u64::from(bits)),
    };
    if p.is_consecutive() {
        let parts: Vec<String> = (0..e).map(|k| term(k, consecutive_index(e, k))).collect();
        writeln!(
            s,
            "#pragma unroll\n    for (int j = 0; j < {}; ++j) {words}[j] = {};",
            p.num_words(),
            parts.join(" | ")
        )
        .unwrap();
        return;
    }
    for j in 0..p.num_words() {
        let parts: Vec<String> = (0..e)
            .map(|k| term(k, p.register(j, k).to_string()))
            .collect();
        writeln!(s, "    {words}[{j}] = {};", parts.join(" | ")).unwrap();
    }
}

/// The inverse of [`emit_pack`]: `arr[p.register(j, k)] = words[j] >> k·bits`.
pub(crate) fn emit_unpack(
    s: &mut String,
    p: &shared_words::WordPacking,
    words: &str,
    arr: &str,
    bits: u32,
) {
    let (e, t) = (p.per_word(), ctype(bits));
    let stmt = |k: u64, idx: String, w: String| match k {
        0 => format!("{arr}[{idx}] = ({t}){words}[{w}];"),
        _ => format!(
            "{arr}[{idx}] = ({t})({words}[{w}] >> {});",
            k * u64::from(bits)
        ),
    };
    if p.is_consecutive() {
        let parts: Vec<String> = (0..e)
            .map(|k| stmt(k, consecutive_index(e, k), "j".into()))
            .collect();
        writeln!(
            s,
            "#pragma unroll\n    for (int j = 0; j < {}; ++j) {{ {} }}",
            p.num_words(),
            parts.join(" ")
        )
        .unwrap();
        return;
    }
    for j in 0..p.num_words() {
        for k in 0..e {
            let r = p.register(j, k);
            writeln!(
                s,
                "    {arr}[{r}] = ({t})({words}[{j}] >> {});",
                k * u64::from(bits)
            )
            .unwrap();
        }
    }
}

/// `e * j + k` as C (the loop form of the consecutive packing).
fn consecutive_index(e: u64, k: u64) -> String {
    match k {
        0 => format!("{e} * j"),
        _ => format!("{e} * j + {k}"),
    }
}

/// How the benchmark loop holds `regs = (source, destination)` registers
/// of `bits`-wide elements ([`Held`]): consecutive words for 8/16-bit
/// elements whose register counts fill whole words (the conversions take
/// words packed as `plan` when given, element arrays otherwise), elements
/// otherwise.
pub(crate) fn held_form<'a>(
    bits: u32,
    (ns, nd): (u64, u64),
    plan: Option<(&'a shared_words::WordPacking, &'a shared_words::WordPacking)>,
) -> Held<'a> {
    let per_word = u64::from(32 / bits.max(1));
    if bits < 32 && ns.is_multiple_of(per_word) && nd.is_multiple_of(per_word) {
        Held::Words { bits, plan }
    } else {
        Held::Elements
    }
}

/// The global-memory sides of a benchmark kernel: the tile is loaded by
/// the source layout and the forward result stored by the destination
/// layout (row-major, [`global_map`]; duplicates of a broadcast layout are
/// skipped by its free-variable masks).
pub(crate) struct KernelSides {
    load: AccessMap,
    store: AccessMap,
    store_free: (u64, u64, u64),
    regs: (u64, u64),
    bits: u32,
}

impl KernelSides {
    pub(crate) fn new(
        src: &LinearLayout,
        dst: &LinearLayout,
        shape: &[u64],
        bits: u32,
    ) -> Result<Self, EmitError> {
        Ok(KernelSides {
            load: global_map(src, shape)?,
            store: global_map(dst, shape)?,
            store_free: free_masks(dst),
            regs: (
                src.in_dim_size(DimName::REGISTER),
                dst.in_dim_size(DimName::REGISTER),
            ),
            bits,
        })
    }

    /// Declares the loop's arrays and loads the source registers from
    /// `gin` (packed consecutively into `aw` when `held` is words).
    pub(crate) fn emit_load(&self, s: &mut String, held: Held<'_>) -> Result<(), EmitError> {
        self.emit_decl(s, held);
        self.emit_load_only(s, held)
    }

    /// The declarations of the loop's arrays alone.
    pub(crate) fn emit_decl(&self, s: &mut String, held: Held<'_>) {
        let (ns, nd) = self.regs;
        let t = ctype(self.bits);
        match held {
            Held::Elements => writeln!(s, "  {t} a[{ns}];\n  {t} b[{nd}];").unwrap(),
            Held::Words { bits, .. } => {
                let (ws, wd) = (ns * u64::from(bits) / 32, nd * u64::from(bits) / 32);
                writeln!(s, "  uint32_t aw[{ws}];\n  uint32_t bw[{wd}];").unwrap()
            }
        }
    }

    /// The load of the source registers into the declared arrays.
    pub(crate) fn emit_load_only(&self, s: &mut String, held: Held<'_>) -> Result<(), EmitError> {
        let (ns, _) = self.regs;
        let t = ctype(self.bits);
        match held {
            Held::Elements => self.load.emit_load(s, "gin", "a", self.bits)?,
            Held::Words { bits, .. } => {
                writeln!(s, "  {{\n    {t} a[{ns}];").unwrap();
                self.load.emit_load(s, "gin", "a", bits)?;
                let p = shared_words::WordPacking::consecutive(bits, ns)?;
                emit_pack(s, &p, "a", "aw", bits);
                writeln!(s, "  }}").unwrap();
            }
        }
        Ok(())
    }

    /// Stores the destination registers (`b`, or `bw` unpacked) to `gout`
    /// by the destination layout: the forward check.
    pub(crate) fn emit_store(&self, s: &mut String, held: Held<'_>) -> Result<(), EmitError> {
        let (_, nd) = self.regs;
        let t = ctype(self.bits);
        writeln!(
            s,
            "  // The forward check: the destination registers, stored by the destination layout."
        )
        .unwrap();
        match held {
            Held::Elements => self
                .store
                .emit_store(s, "gout", "b", self.bits, self.store_free)?,
            Held::Words { bits, .. } => {
                writeln!(s, "  {{\n    {t} b[{nd}];").unwrap();
                let p = shared_words::WordPacking::consecutive(bits, nd)?;
                emit_unpack(s, &p, "bw", "b", bits);
                self.store
                    .emit_store(s, "gout", "b", bits, self.store_free)?;
                writeln!(s, "  }}").unwrap();
            }
        }
        Ok(())
    }
}

/// The head of every benchmark kernel `bench(in, out, R)`, or `bench(in,
/// idx, out, R)` for gathers (`with_index`): its launch bounds (`threads`,
/// and `min_blocks` CTAs per SM when given, see [`occupancy`]), the dynamic
/// shared buffer as `t*`, the lane and warp ids, and this CTA's tile of
/// `tile` elements in global memory (`gin`, `gix` for gathers, `gout`).
pub(crate) fn kernel_head(
    s: &mut String,
    t: &str,
    threads: u32,
    min_blocks: Option<u32>,
    tile: u64,
    with_index: bool,
) {
    let bounds = match min_blocks {
        Some(k) => format!("{threads}, {k}"),
        None => threads.to_string(),
    };
    let idx = if with_index {
        "const uint32_t* __restrict__ idx, "
    } else {
        ""
    };
    writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__({bounds}) bench(const {t}* __restrict__ in, {idx}{t}* __restrict__ out, int R) {{"
    )
    .unwrap();
    writeln!(
        s,
        "  extern __shared__ __align__(16) unsigned char smem_raw[];"
    )
    .unwrap();
    writeln!(s, "  {t}* smem = reinterpret_cast<{t}*>(smem_raw);").unwrap();
    writeln!(
        s,
        "  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;"
    )
    .unwrap();
    writeln!(s, "  const {t}* gin = in + (size_t)blockIdx.x * {tile}u;").unwrap();
    if with_index {
        writeln!(
            s,
            "  const uint32_t* gix = idx + (size_t)blockIdx.x * {tile}u;"
        )
        .unwrap();
    }
    writeln!(s, "  {t}* gout = out + (size_t)blockIdx.x * {tile}u;").unwrap();
}

/// The head of every generated program. Under NVRTC (`__CUDACC_RTC__`,
/// the `gpu-run` runner) only the device code is compiled: the fixed-width
/// types come from typedefs instead of `<cstdint>`, and the host program
/// (below the kernel) is skipped.
pub const FILE_HEADER: &str = "#ifdef __CUDACC_RTC__
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef decltype(sizeof(0)) size_t;
#else
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#endif

";

/// The host program of every conversion benchmark (vector, matrix and
/// partial paths alike): random non-zero input, poisoned output, the check
/// of every element for R = 0 and R, event-timed medians, one JSON line.
pub(crate) fn host_main(name: &str, t: &str, tile: u64, smem_bytes: u64, threads: u32) -> String {
    format!(
        r##"
#ifndef __CUDACC_RTC__
#define CK(x) do {{ cudaError_t e_ = (x); if (e_ != cudaSuccess) {{ printf("{{\"case\": \"{name}\", \"error\": \"%s at line %d\"}}\n", cudaGetErrorString(e_), __LINE__); exit(1); }} }} while (0)

int main(int argc, char** argv) {{
  int R = argc > 1 ? atoi(argv[1]) : 64;
  int tiles = argc > 2 ? atoi(argv[2]) : 1056;
  int reps = argc > 3 ? atoi(argv[3]) : 50;
  size_t n = (size_t)tiles * {tile}u;
  std::vector<{t}> h(n), o(n);
  srand(12345);
  for (size_t i = 0; i < n; ++i) {{ {t} v = ({t})(rand() ^ (rand() << 15)); h[i] = v ? v : 1; }}
  {t} *din, *dout;
  CK(cudaMalloc(&din, n * sizeof({t})));
  CK(cudaMalloc(&dout, n * sizeof({t})));
  CK(cudaMemcpy(din, h.data(), n * sizeof({t}), cudaMemcpyHostToDevice));
  CK(cudaFuncSetAttribute(bench, cudaFuncAttributeMaxDynamicSharedMemorySize, {smem_bytes}));
  bool ok = true;
  for (int rr : {{0, R}}) {{
    CK(cudaMemset(dout, 0xA5, n * sizeof({t})));
    bench<<<tiles, {threads}, {smem_bytes}>>>(din, dout, rr);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(o.data(), dout, n * sizeof({t}), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {{
      {t} want = ({t})(h[i] + ({t})(2 * rr));
      if (o[i] != want) {{ if (ok) printf("# mismatch at %zu (R=%d): got %llu want %llu\n", i, rr, (unsigned long long)o[i], (unsigned long long)want); ok = false; }}
    }}
  }}
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  float med[2];
  int rs[2] = {{0, R}};
  for (int k = 0; k < 2; ++k) {{
    for (int w = 0; w < 5; ++w) bench<<<tiles, {threads}, {smem_bytes}>>>(din, dout, rs[k]);
    std::vector<float> ts;
    for (int i = 0; i < reps; ++i) {{
      CK(cudaEventRecord(e0));
      bench<<<tiles, {threads}, {smem_bytes}>>>(din, dout, rs[k]);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); ts.push_back(ms);
    }}
    std::sort(ts.begin(), ts.end());
    med[k] = ts[ts.size() / 2];
  }}
  CK(cudaGetLastError());
  printf("{{\"case\": \"{name}\", \"ok\": %s, \"R\": %d, \"tiles\": %d, \"t0_ms\": %.5f, \"tR_ms\": %.5f, \"per_cvt_us\": %.5f}}\n",
         ok ? "true" : "false", R, tiles, med[0], med[1], (med[1] - med[0]) * 1e3 / (2.0 * R));
  return ok ? 0 : 3;
}}
#endif  // __CUDACC_RTC__
"##,
    )
}
