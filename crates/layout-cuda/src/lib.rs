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
//! What a conversion does is the planner's answer
//! ([`layout_codegen::planner::plan_with`]), translated by [`translate`];
//! its predicted shared-memory wavefronts (the planner's cost, counted by
//! `layout_codegen::wavefront`) are what the GPU run checks against `ncu`.
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
//! (`bench/gpu/tools/build_with_ptxas.sh`). The cost: a GPU run needs `nvcc`.
//!
//! # Modules
//! Each depends only on those above it (and on the crate root's helpers:
//! element types, the benchmark loop's pieces):
//!
//! | module | what it holds |
//! |---|---|
//! | `access` | leaf: an address map's vector groups and emission |
//! | `shared_words` | packed-word layouts of 8/16-bit shared plans |
//! | `bench_loop`, `pack`, `kernel` | the benchmark loop (its scratch schedule, shared memory and CTAs per SM are `layout_codegen::loop_plan`'s), packing between the loop's and a plan's word forms, kernel heads and host code |
//! | `matrix_ops`, `translate` | `stmatrix`/`ldmatrix` wrappers; a conversion body translated from a `ConversionPlan` |
//! | `gather`, `word_shuffle`, `partial`, `staged` | gathers (and the XOR-expression helper word programs use); word-form warp programs; partial cross-warp programs; staged programs (a regroup and a whole-CTA plan) |
//! | `benchmark`, `device_fn` | the benchmark program and the device function a user calls, from the planner's answer |

#![warn(missing_docs)]

use layout_codegen::plan::ConversionPlan;
use layout_codegen::planner::{plan_with, Lowering, PlanOptions, PlannedConversion, Target};
use linear_layout::{DimName, LinearLayout};
use std::fmt::Write;

mod access;
mod bench_loop;
mod benchmark;
pub mod device_fn;
pub mod gather;
mod kernel;
pub mod matrix_ops;
mod pack;
pub mod partial;
pub mod shared_words;
mod staged;
pub mod translate;
pub mod word_shuffle;
pub use access::AccessMap;
pub(crate) use bench_loop::{emit_bench_loop, Held, Packings, Scratch, Sink};
pub use benchmark::{emit_benchmark, emit_benchmark_planned, keeps_elements_packed, Benchmark};
pub use kernel::FILE_HEADER;
pub(crate) use kernel::{host_main, kernel_head, KernelSides};
pub(crate) use pack::{emit_pack, emit_unpack, held_form, packed_add};

/// Errors of the emitter: what it cannot emit, naming the value.
#[derive(Debug, thiserror::Error)]
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
    /// The planner found no plan for the request (it names why).
    #[error(transparent)]
    Plan(#[from] layout_codegen::CodegenError),
}

/// One benchmark case: a conversion `src → dst` of an `M × N` tile of
/// `bits`-wide elements, planned by [`layout_codegen::planner::plan_with`]
/// with the request [`ConversionCase::options`]. `smem` is not read by
/// whole-CTA conversions (the planner chooses their shared layout); the
/// partial programs ([`partial`]) convert through it.
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
    /// Shared-memory layout of the partial programs ([`partial`]).
    pub smem: LinearLayout,
    /// What the planner is asked for, both directions: every whole-CTA
    /// class ([`PlanOptions::whole`]; partial plans are the [`partial`]
    /// programs'), or a comparison variant such as
    /// [`PlanOptions::shared_only`] (through shared memory even where a
    /// warp-shuffle plan exists, the paper's Figure 5) or
    /// [`PlanOptions::matrix_only`] (`stmatrix`/`ldmatrix`).
    pub options: PlanOptions,
}

impl ConversionCase {
    /// The planner's answer for `from → to` (one direction of the case) on
    /// compute capability 9.0 ([`Target::SM90`]).
    pub fn plan(
        &self,
        from: &LinearLayout,
        to: &LinearLayout,
    ) -> Result<PlannedConversion, EmitError> {
        Ok(plan_with(
            from,
            to,
            self.bits,
            &Target::SM90,
            &self.options,
        )?)
    }

    /// Both layouts have 32 lanes and the case's warps.
    pub(crate) fn check_threads(&self) -> Result<(), EmitError> {
        for l in [&self.src, &self.dst] {
            if l.in_dim_size(DimName::LANE) != 32
                || l.in_dim_size(DimName::WARP) != self.num_warps as u64
            {
                return Err(EmitError::Invalid(format!(
                    "layout has {} lanes and {} warps; expected 32 and {}",
                    l.in_dim_size(DimName::LANE),
                    l.in_dim_size(DimName::WARP),
                    self.num_warps
                )));
            }
        }
        Ok(())
    }
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

/// Emits the conversion `from → to` planned for `case` ([`ConversionCase::plan`])
/// as a device function operating on register arrays `a` (source) and `b`
/// (destination), by [`translate`]; returns the class emitted and the plan.
pub(crate) fn emit_convert(
    out: &mut String,
    fname: &str,
    case: &ConversionCase,
    from: &LinearLayout,
    to: &LinearLayout,
) -> Result<(Path, PlannedConversion), EmitError> {
    let planned = case.plan(from, to)?;
    emit_planned(out, fname, case.bits, from, to, &planned)?;
    let path = match &planned.lowering {
        Lowering::Whole { plan } | Lowering::Staged { then: plan, .. } => path_of(plan),
        Lowering::Partial { .. } => Path::SharedMemory,
    };
    Ok((path, planned))
}

/// The class of a whole-CTA plan as emitted.
pub fn path_of(plan: &ConversionPlan) -> Path {
    match plan {
        ConversionPlan::NoOp { .. } | ConversionPlan::RegisterPermutation { .. } => Path::Registers,
        ConversionPlan::WarpShuffle { .. } | ConversionPlan::WarpProgram(_) => Path::WarpShuffle,
        ConversionPlan::SharedMemory(_) => Path::SharedMemory,
    }
}

/// Emits `planned` (the planner's answer for `from → to`: a whole-CTA
/// plan, or a partial one by [`partial`]) as the device function `fname`
/// on element arrays.
pub(crate) fn emit_planned(
    out: &mut String,
    fname: &str,
    bits: u32,
    from: &LinearLayout,
    to: &LinearLayout,
    planned: &PlannedConversion,
) -> Result<Path, EmitError> {
    let t = ctype(bits);
    let nf = from.in_dim_size(DimName::REGISTER);
    let nt = to.in_dim_size(DimName::REGISTER);
    let plan = match &planned.lowering {
        // A warp program whose packed-word form is what the planner costed.
        Lowering::Whole { .. } if planned.words.is_some() => {
            let w = planned.words.as_ref().expect("checked");
            word_shuffle::emit_word_element_function(out, fname, bits, w)?;
            return Ok(Path::WarpShuffle);
        }
        Lowering::Whole { plan } => plan,
        Lowering::Partial { plan, words } => {
            if (plan.src_registers, plan.dst_registers) != (nf, nt) && words.is_none() {
                return Err(EmitError::Invalid(format!(
                    "the partial plan has {}/{} registers, the layouts {nf}/{nt}",
                    plan.src_registers, plan.dst_registers
                )));
            }
            partial::emit_partial_function(out, fname, plan, words.as_deref(), bits)?;
            return Ok(Path::SharedMemory);
        }
        Lowering::Staged { regroup, then } => {
            return staged::emit_staged_function(out, fname, bits, (regroup, then), (nf, nt));
        }
    };
    writeln!(
        out,
        "__device__ __forceinline__ void {fname}(const {t} (&a)[{nf}], {t} (&b)[{nt}], {t}* smem, unsigned lane, unsigned warp) {{"
    )
    .unwrap();
    let path = translate::emit_plan_body(out, plan, bits)?;
    // The barrier before the next store into the buffer is the caller's
    // (see `layout_codegen::loop_schedule`).
    writeln!(out, "  (void)a; (void)smem; (void)lane; (void)warp;\n}}").unwrap();
    Ok(path)
}

/// Whether a plan stores or loads with `stmatrix`/`ldmatrix`.
pub(crate) fn uses_matrix(planned: &PlannedConversion) -> bool {
    layout_codegen::planner::uses_matrix(&planned.lowering)
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

pub use layout_codegen::shared_words::free_masks;
