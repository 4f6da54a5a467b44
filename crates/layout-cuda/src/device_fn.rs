//! One conversion as CUDA a user can call: a `__device__` function that
//! converts one thread's registers from the source layout to the
//! destination layout inside the user's own kernel, and the standalone
//! programs built around the same conversion (a load-convert-store kernel,
//! the benchmark program). The front ends (`linlayout cuda`, Python's
//! `linear_layouts.cuda`) call [`emit`]:
//!
//! ```
//! use hw_layouts::Encoding;
//! use layout_cuda::device_fn::{case_for_pair, emit, Output};
//! let shape = [64, 64];
//! let l = |t: &str| Encoding::parse(t).unwrap().to_linear_layout(&shape).unwrap();
//! let mma = l("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>");
//! let blk = l("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>");
//! let case = case_for_pair("cvt", &mma, &blk, &shape, 16)?;
//! let cuda = emit(&case, Output::DeviceFunction)?;
//! // 64 × 64 elements over 128 threads: 32 registers per thread each side,
//! // through 64 × 64 × 2 bytes of shared memory.
//! assert!(cuda.contains("#define CVT_SRC_REGS 32") && cuda.contains("#define CVT_SCRATCH_BYTES 8192"));
//! assert!(cuda.contains("__device__ __forceinline__ void cvt(const uint16_t (&a)[32], uint16_t (&b)[32]"));
//! # Ok::<(), layout_cuda::EmitError>(())
//! ```
//!
//! # Calling convention of the device function `NAME`
//! ```text
//! __device__ void NAME(const T (&src)[NAME_SRC_REGS], T (&dst)[NAME_DST_REGS],
//!                      T* scratch, unsigned lane, unsigned warp);
//! ```
//! * `T` is the unsigned integer of the element width (`uint8_t`,
//!   `uint16_t`, `uint32_t`, `unsigned long long`): the function moves bits
//!   and never interprets them, so `half`/`bf16`/`float` data is passed by
//!   its bit pattern.
//! * `src[r]` holds the element the source layout assigns to register `r`
//!   of thread `(lane, warp)`; on return `dst[r]` holds the element the
//!   destination layout assigns to register `r` (the layouts' own register
//!   order). `NAME_src_offset(r, lane, warp)` and `NAME_dst_offset(r, lane,
//!   warp)` give those elements' row-major offsets in the tile (last
//!   dimension fastest). Packing 8/16-bit registers into 32-bit words for a
//!   consumer (consecutive registers in one word, as `mma.sync` takes them)
//!   is the caller's; the compiler folds it into the conversion's moves.
//! * `lane = threadIdx.x % 32` and `warp = threadIdx.x / 32` over a CTA of
//!   exactly `NAME_THREADS` threads (one block of the layouts).
//! * `scratch` points to `NAME_SCRATCH_BYTES` bytes of shared memory,
//!   aligned to 16 bytes (0 bytes: the conversion stays in registers or
//!   warp shuffles, and `scratch` is not touched).
//! * Barriers: a shared-memory conversion contains one `__syncthreads()`
//!   between the stores and the loads of each round of its plan, and one
//!   between rounds (one in all for a one-round plan; the header comment
//!   says how many), so every thread of
//!   the CTA must call it (no divergent call). It ends with loads and no
//!   barrier: before the scratch is written again (by the next call or by
//!   anything else) the caller must place a barrier, or use another buffer.
//!   Before the call the scratch must not still be read by an earlier use
//!   (same rule). Warp-shuffle conversions need all 32 lanes of each warp
//!   converged (`__shfl_sync` with the full mask) and contain no barrier.
//!   A partial cross-warp conversion (the planner's answer where only some
//!   elements leave their warp: those go through `scratch`, the others stay
//!   as register moves or shuffles) runs warp-uniform branches on `warp`
//!   and contains one barrier between its stores and its loads,
//!   `PARTIAL_SYNC()`, which is `__syncthreads()` unless the including file
//!   defines it (e.g. as the non-aligned `barrier.sync 0` when each warp
//!   runs its own copy of the calling code); the same rules apply.
//! * Warp-private scratch: where no element crosses warps through the
//!   buffer (each warp stores and loads only a part of it no other warp
//!   touches, [`layout_codegen::warp_private`]), the barriers are
//!   `__syncwarp()` instead, and the header comment says "warp-private".
//!   Then the 32 lanes of one warp may call the function alone (the other
//!   warps need not call it, e.g. in warp-specialised code), and before
//!   the scratch is written again a `__syncwarp()` suffices where only the
//!   same warp reuses its part; any other reuse needs `__syncthreads()`.

use crate::translate::barrier_stmt;
use crate::{emit_benchmark, emit_convert, ConversionCase, EmitError, Path};
use layout_codegen::plan_options::PlanOptions;
use layout_codegen::planner::{Lowering, Target};
use layout_codegen::round_trip::plan_partial_round_trip;
use linear_layout::{DimName, LinearLayout};
use std::fmt::Write;

/// What to emit for a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// The `__device__` function alone (with its offset helpers and sizes),
    /// for a user's kernel.
    DeviceFunction,
    /// A self-contained `__global__` kernel `bench(in, out, R)` that loads a
    /// tile by the source layout, converts (`R = 0`: once) and stores it by
    /// the destination layout; no host code.
    Kernel,
    /// The whole benchmark program (kernel, element check on random data,
    /// event timing, one JSON line), as the GPU suite runs it.
    Bench,
}

/// The case the front ends emit for a pair: one CTA of the layouts' warps,
/// planned by [`layout_codegen::planner::plan`] among every class it has
/// (partial cross-warp plans included: [`PlanOptions::default`]).
pub fn case_for_pair(
    name: &str,
    src: &LinearLayout,
    dst: &LinearLayout,
    shape: &[u64],
    bits: u32,
) -> Result<ConversionCase, EmitError> {
    if !is_c_identifier(name) {
        return Err(EmitError::Invalid(format!(
            "name '{name}' is not a C identifier (letters, digits, '_', not starting with a digit)"
        )));
    }
    if !matches!(bits, 8 | 16 | 32 | 64) {
        return Err(EmitError::Invalid(format!(
            "element width {bits} bits is not 8, 16, 32 or 64"
        )));
    }
    if shape.len() != 2 {
        return Err(EmitError::Invalid(format!(
            "the CUDA emitter takes rank-2 tiles, not shape {shape:?}"
        )));
    }
    let warps = src.in_dim_size(DimName::WARP);
    if dst.in_dim_size(DimName::WARP) != warps {
        return Err(EmitError::Invalid(format!(
            "source has {warps} warps and destination {}",
            dst.in_dim_size(DimName::WARP)
        )));
    }
    // Not read by whole-CTA conversions: the planner chooses their shared
    // layout.
    let smem = crate::gather::row_major_smem(shape);
    Ok(ConversionCase {
        name: name.into(),
        shape: shape.to_vec(),
        bits,
        num_warps: warps as u32,
        src: src.clone(),
        dst: dst.clone(),
        smem,
        options: PlanOptions::default(),
    })
}

fn is_c_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The source text of `what` for `case` (its name names the function or
/// program).
pub fn emit(case: &ConversionCase, what: Output) -> Result<String, EmitError> {
    match what {
        Output::DeviceFunction => Ok(device_function(case)?.code),
        Output::Bench => benchmark_program(case),
        Output::Kernel => {
            let code = benchmark_program(case)?;
            // The benchmark program without its host part: the kernel with
            // R = 0 is load, one conversion, store by the destination.
            let cut = code
                .find("\n#ifndef __CUDACC_RTC__\n#define CK")
                .ok_or_else(|| {
                    EmitError::Invalid("internal: the benchmark program has no host part".into())
                })?;
            let mut s = code[..cut].to_string();
            s = s.replacen(
                "// Generated by layout-cuda for case",
                "// Generated by layout-cuda (load-convert-store kernel; R = 0 converts once) for case",
                1,
            );
            Ok(s)
        }
    }
}

/// The benchmark program of `case`: where the planner's answers under
/// `case.options` are partial cross-warp plans in both directions, the
/// warp-specialised partial program of that round trip
/// ([`crate::partial::emit_partial_planned`]); else the whole-CTA program
/// ([`emit_benchmark`], whose directions are the planner's answers too).
fn benchmark_program(case: &ConversionCase) -> Result<String, EmitError> {
    match plan_partial_round_trip(
        &case.src,
        &case.dst,
        case.bits,
        &Target::SM90,
        &case.options,
    ) {
        Ok(rt) => Ok(crate::partial::emit_partial_planned(case, &rt, true)?.code),
        Err(_) => Ok(emit_benchmark(case)?.0),
    }
}

/// A device function and its sizes.
#[derive(Clone, Debug)]
pub struct DeviceFunction {
    /// The CUDA text (function, offset helpers, size macros).
    pub code: String,
    /// How it converts.
    pub path: Path,
    /// Shared-memory scratch it needs, bytes (0 without shared memory).
    pub scratch_bytes: u64,
    /// Registers (elements) per thread of the source and destination.
    pub registers: (u64, u64),
}

/// The `__device__` function `case.name` converting one thread's registers
/// from `case.src` to `case.dst` (see the module's calling convention),
/// with `NAME_src_offset` / `NAME_dst_offset` and the macros
/// `NAME_SRC_REGS`, `NAME_DST_REGS`, `NAME_SCRATCH_BYTES`, `NAME_THREADS`,
/// `NAME_TILE` (elements of the tile) and type `NAME_T`.
pub fn device_function(case: &ConversionCase) -> Result<DeviceFunction, EmitError> {
    let name = &case.name;
    if !is_c_identifier(name) {
        return Err(EmitError::Invalid(format!(
            "name '{name}' is not a C identifier"
        )));
    }
    let t = crate::ctype(case.bits);
    let up = name.to_uppercase();
    let (ns, nd) = (
        case.src.in_dim_size(DimName::REGISTER),
        case.dst.in_dim_size(DimName::REGISTER),
    );
    let mut body = String::new();
    let (path, planned) = emit_convert(&mut body, name, case, &case.src, &case.dst)?;
    // The plan's scratch and barriers (one per round's stores-to-loads
    // step, one between rounds).
    let (scratch_bytes, barriers, sync) = match (planned.lowering.shared(), &planned.lowering) {
        (Some(m), _) => (m.scratch_bytes, m.barriers, barrier_stmt(m.warp_private)),
        // A partial plan: one barrier when any warp loads.
        (None, Lowering::Partial { plan, .. }) => (
            plan.scratch_elems * u64::from(plan.bitwidth) / 8,
            u64::from(plan.classes.iter().any(|k| !k.loads.is_empty())),
            "PARTIAL_SYNC()",
        ),
        (None, _) => (0, 0, ""),
    };
    let private = planned.lowering.shared().is_some_and(|m| m.warp_private);
    let tile: u64 = case.shape.iter().product();
    let threads = 32 * case.num_warps;
    let mut s = String::new();
    writeln!(
        s,
        "// Generated by layout-cuda: the conversion '{name}' of a {:?} tile of {}-bit elements, {} warps ({}).",
        case.shape,
        case.bits,
        case.num_warps,
        match (path, barriers) {
            _ if planned.lowering.partial().is_some() => format!(
                "partial cross-warp: only elements that leave their warp go through shared memory, {barriers} barrier(s)"
            ),
            _ if planned.lowering.staged().is_some() => format!(
                "staged: an in-warp regroup of {}-bit elements (shfl.sync.bfly, __byte_perm) and a plan of words, {barriers} {sync}",
                case.bits
            ),
            (Path::Registers, _) => "register moves".to_string(),
            (Path::WarpShuffle, _) => "warp shuffles".to_string(),
            (Path::SharedMemory, 1) => format!("through shared memory, one {sync}"),
            (Path::SharedMemory, n) => format!("through shared memory, {n} {sync}"),
        }
    )
    .unwrap();
    if private {
        writeln!(
            s,
            "// Warp-private scratch: each warp stores and loads only its own part of it, so a warp\n// may call {name} alone (all 32 lanes); see layout_cuda::device_fn for the calling\n// convention (register order, scratch, barriers)."
        )
        .unwrap();
    } else {
        writeln!(
            s,
            "// Call {name}(src, dst, scratch, lane, warp) from all {threads} threads of the CTA; see\n// layout_cuda::device_fn for the calling convention (register order, scratch, barriers)."
        )
        .unwrap();
    }
    writeln!(
        s,
        "#pragma once\n#if !defined(__CUDACC_RTC__)\n#include <cstdint>\n#endif"
    )
    .unwrap();
    writeln!(s, "typedef {t} {up}_T;").unwrap();
    writeln!(s, "#define {up}_SRC_REGS {ns}").unwrap();
    writeln!(s, "#define {up}_DST_REGS {nd}").unwrap();
    writeln!(s, "#define {up}_SCRATCH_BYTES {scratch_bytes}").unwrap();
    writeln!(s, "#define {up}_THREADS {threads}").unwrap();
    writeln!(s, "#define {up}_TILE {tile}").unwrap();
    for (side, l) in [("src", &case.src), ("dst", &case.dst)] {
        emit_offset_fn(&mut s, &format!("{name}_{side}_offset"), l, &case.shape)?;
    }
    s.push_str(&body);
    Ok(DeviceFunction {
        code: s,
        path,
        scratch_bytes,
        registers: (ns, nd),
    })
}

/// `fname(r, lane, warp)`: the row-major tile offset of the element that
/// register `r` of thread `(lane, warp)` holds under `l`, as the XOR of the
/// images of the set bits (the layout is linear over GF(2)).
fn emit_offset_fn(
    s: &mut String,
    fname: &str,
    l: &LinearLayout,
    shape: &[u64],
) -> Result<(), EmitError> {
    let m = crate::global_map(l, shape)?;
    writeln!(
        s,
        "__device__ __forceinline__ unsigned {fname}(unsigned r, unsigned lane, unsigned warp) {{\n  unsigned o = 0u;"
    )
    .unwrap();
    for (var, images) in [("r", &m.reg), ("lane", &m.lane), ("warp", &m.warp)] {
        for (k, img) in images.iter().enumerate() {
            writeln!(s, "  if (({var} >> {k}) & 1u) o ^= {img}u;").unwrap();
        }
    }
    writeln!(s, "  return o;\n}}").unwrap();
    Ok(())
}
