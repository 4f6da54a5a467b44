//! End-to-end CPU run of whole generated partial cross-warp programs
//! (`layout_cuda::partial`): the harness of `matrix_emulated.rs` (one
//! `std::thread` per CUDA thread, barriers for `__syncthreads` and every
//! `__shfl_sync`), without the matrix wrappers. The program's own host
//! reference checks every element (R = 3, 2 tiles); mutations of the
//! emitted code must make that check fail. Needs `g++` with C++20.

use hw_layouts::Encoding;
use layout_cuda::partial::emit_partial_benchmark;
use layout_cuda::ConversionCase;
use linear_layout::{DimName, LinearLayout};
use std::process::Command;

const FAKE_CUDA: &str = r#"// CPU emulation of the few CUDA features the generated conversion programs use:
// one std::thread per CUDA thread, std::barrier for __syncthreads and for
// every __shfl_sync (write own value, barrier, read source lane, barrier).
#pragma once
#include <barrier>
#include <thread>
#include <vector>
#include <memory>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#define __device__
#define __forceinline__ inline
#define __global__
#define __shared__
#define __align__(x)
#define __launch_bounds__(x)
#define __restrict__
struct Dim { unsigned x; };
thread_local Dim threadIdx, blockIdx;
alignas(16) unsigned char smem_raw[1 << 17];
struct uint2 { uint32_t x, y; };
struct uint4 { uint32_t x, y, z, w; };
inline uint2 make_uint2(uint32_t a, uint32_t b) { return {a, b}; }
inline uint4 make_uint4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return {a, b, c, d}; }
struct BlockCtx {
  std::unique_ptr<std::barrier<>> block;
  std::vector<std::unique_ptr<std::barrier<>>> warp;
  std::vector<uint32_t> xch;
};
inline BlockCtx* g_ctx;
inline void __syncthreads() { g_ctx->block->arrive_and_wait(); }
inline uint32_t __shfl_sync(unsigned, uint32_t v, unsigned src) {
  unsigned t = threadIdx.x, w = t / 32;
  g_ctx->xch[t] = v;
  g_ctx->warp[w]->arrive_and_wait();
  uint32_t r = g_ctx->xch[w * 32 + (src & 31)];
  g_ctx->warp[w]->arrive_and_wait();
  return r;
}
typedef int cudaError_t;
typedef void* cudaEvent_t;
enum { cudaSuccess = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaFuncAttributeMaxDynamicSharedMemorySize = 3 };
inline const char* cudaGetErrorString(cudaError_t) { return "err"; }
template <class T> cudaError_t cudaMalloc(T** p, size_t n) { *p = (T*)malloc(n); return 0; }
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t n, int) { memcpy(d, s, n); return 0; }
inline cudaError_t cudaMemset(void* d, int v, size_t n) { memset(d, v, n); return 0; }
template <class F> cudaError_t cudaFuncSetAttribute(F, int, size_t) { return 0; }
inline cudaError_t cudaGetLastError() { return 0; }
inline cudaError_t cudaDeviceSynchronize() { return 0; }
inline cudaError_t cudaEventCreate(cudaEvent_t*) { return 0; }
inline cudaError_t cudaEventRecord(cudaEvent_t) { return 0; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return 0; }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) { *ms = 1.0f; return 0; }
inline uint32_t __cvta_generic_to_shared(const void* p) { return (uint32_t)((const unsigned char*)p - smem_raw); }
template <class F, class... A> void launch(F f, unsigned grid, unsigned threads, size_t smem, A... a) {
  if (smem > sizeof(smem_raw)) abort();
  for (unsigned b = 0; b < grid; ++b) {
    BlockCtx ctx;
    ctx.block = std::make_unique<std::barrier<>>(threads);
    for (unsigned w = 0; w < threads / 32; ++w) ctx.warp.push_back(std::make_unique<std::barrier<>>(32));
    ctx.xch.assign(threads, 0);
    g_ctx = &ctx;
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < threads; ++t) ts.emplace_back([=] { threadIdx.x = t; blockIdx.x = b; f(a...); });
    for (auto& t : ts) t.join();
  }
}
"#;

fn have_gxx() -> bool {
    Command::new("g++")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Rewrites `bench<<<g, t, s>>>(` into `launch(bench, g, t, s, `.
fn rewrite_launches(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(i) = rest.find("bench<<<") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "bench<<<".len()..];
        let j = after.find(">>>(").expect("launch configuration");
        out.push_str(&format!("launch(bench, {}, ", &after[..j]));
        rest = &after[j + ">>>(".len()..];
    }
    out.push_str(rest);
    out
}

/// Compiles (must succeed, warning-free) and runs one case (R = 3, 2
/// tiles); returns (exit status success, stdout).
fn run_case(name: &str, code: &str) -> (bool, String) {
    let dir = std::env::temp_dir().join(format!(
        "layout-cuda-partial-emu-{}-{}",
        std::process::id(),
        name
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("cuda_runtime.h"), FAKE_CUDA).unwrap();
    let src = dir.join(format!("{}.cpp", name));
    std::fs::write(&src, rewrite_launches(code)).unwrap();
    let exe = dir.join(name);
    let c = Command::new("g++")
        .args([
            "-std=c++20",
            "-O1",
            "-Wall",
            "-Wno-unknown-pragmas",
            "-Werror",
            "-pthread",
            "-I",
        ])
        .arg(&dir)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        c.status.success(),
        "{}: g++ failed:\n{}",
        name,
        String::from_utf8_lossy(&c.stderr)
    );
    let r = Command::new(&exe).args(["3", "2", "1"]).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        r.status.success(),
        String::from_utf8_lossy(&r.stdout).to_string(),
    )
}

fn blocked(tpw: [u64; 2], wpc: [u64; 2], order: [u64; 2]) -> String {
    format!(
        "#ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [{}, {}], warpsPerCTA = [{}, {}], order = [{}, {}]}}>",
        tpw[0], tpw[1], wpc[0], wpc[1], order[0], order[1]
    )
}

fn row_major(shape: &[u64]) -> LinearLayout {
    let id = LinearLayout::identity_1d;
    let (o, d0, d1) = (DimName::OFFSET, DimName::dim(0), DimName::dim(1));
    (id(shape[1], o, d1) * id(shape[0], o, d0))
        .transpose_outs(&[d0, d1])
        .unwrap()
}

fn case(
    name: &str,
    shape: [u64; 2],
    bits: u32,
    src: &str,
    dst: &str,
    swizzled: bool,
) -> ConversionCase {
    let ll = |a: &str| {
        Encoding::parse(a)
            .unwrap()
            .to_linear_layout(&shape)
            .unwrap()
    };
    let (src, dst) = (ll(src), ll(dst));
    let smem = if swizzled {
        layout_cuda::swizzle_search::search_swizzle(&src, &dst, &shape, bits, 4)
            .expect("a swizzle")
            .0
    } else {
        row_major(&shape)
    };
    ConversionCase {
        name: name.into(),
        shape: shape.to_vec(),
        bits,
        num_warps: 4,
        src,
        dst,
        smem,
        force_shared: false,
        use_matrix_ops: false,
    }
}

fn cases() -> Vec<ConversionCase> {
    let b22 = blocked([8, 4], [2, 2], [1, 0]);
    vec![
        // Register moves only (a quarter stays).
        case(
            "p_b22_b41_f16",
            [128, 128],
            16,
            &b22,
            &blocked([8, 4], [4, 1], [1, 0]),
            false,
        ),
        // Half stays, by register moves.
        case(
            "p_b22_b14_f32",
            [64, 64],
            32,
            &b22,
            &blocked([8, 4], [1, 4], [1, 0]),
            true,
        ),
        // Half stays, by shuffles (packed two per shfl for f16).
        case(
            "p_b22_b14o_f16",
            [64, 64],
            16,
            &b22,
            &blocked([8, 4], [1, 4], [0, 1]),
            true,
        ),
        case(
            "p_b22_b14o_f32",
            [64, 128],
            32,
            &b22,
            &blocked([8, 4], [1, 4], [0, 1]),
            false,
        ),
        case(
            "p_b22_b14o_f8",
            [64, 64],
            8,
            &b22,
            &blocked([8, 4], [1, 4], [0, 1]),
            false,
        ),
    ]
}

fn check(name: &str, code: &str) {
    let (success, out) = run_case(name, code);
    assert!(success, "{name}: {out}");
    let line = out
        .lines()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| panic!("{name}: no JSON line in {out}"));
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(v["case"], name);
    assert_eq!(v["ok"], true, "{name}: {out}");
}

fn fails(name: &str, code: &str) -> bool {
    let (success, out) = run_case(name, code);
    !success && out.contains("\"ok\": false")
}

#[test]
fn partial_programs_run_correctly_on_the_cpu() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    for (i, c) in cases().into_iter().enumerate() {
        // Both forms: warp-specialised loops and run-time class branches.
        for spec in [true, false] {
            if i > 1 && !spec {
                continue;
            }
            let em = emit_partial_benchmark(&c, spec).unwrap();
            assert!(em.code.contains("PARTIAL_SYNC()"), "{}", c.name);
            assert_eq!(em.code.contains("run_warp("), spec);
            check(&c.name, &em.code);
        }
    }
}

#[test]
fn the_cases_cover_moves_and_packed_shuffles() {
    let cs = cases();
    let em0 = emit_partial_benchmark(&cs[0], true).unwrap();
    assert_eq!(em0.shuffles, (0, 0));
    let em2 = emit_partial_benchmark(&cs[2], true).unwrap();
    // f16: two staying elements per shfl.sync.
    assert_eq!(2 * em2.shuffles.0, em2.fwd.cost.shuffles);
    assert_eq!(em2.shuffles.0, em2.fwd.cost.packed_shuffles);
    assert_eq!(em2.shuffles.1, em2.bwd.cost.packed_shuffles);
    let em3 = emit_partial_benchmark(&cs[3], false).unwrap();
    assert_eq!(em3.shuffles.0, em3.fwd.cost.shuffles);
    assert!(em2.code.contains("__shfl_sync"));
}

/// Removes the first line of `cvt_fwd` after `from` that starts with `prefix`.
fn drop_line(code: &str, prefix: &str) -> String {
    let f = code.find("void cvt_fwd").unwrap();
    let at = f + code[f..].find(prefix).expect("the line to drop");
    let end = at + code[at..].find('\n').unwrap() + 1;
    format!("{}{}", &code[..at], &code[end..])
}

#[test]
fn mutations_fail_the_programs_own_check() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let cs = cases();
    let moves = emit_partial_benchmark(&cs[0], true).unwrap().code;
    // A staying register move dropped.
    assert!(fails("mut_move", &drop_line(&moves, "    b[")));
    // A store dropped.
    assert!(fails(
        "mut_store",
        &drop_line(&moves, "    *reinterpret_cast<")
    ));
    // A wrong warp predicate: the first class runs on no warp (its warps
    // run the next class's code).
    let f = moves.find("void cvt_fwd").unwrap();
    let at = f + moves[f..].find("if (warp == ").unwrap();
    let wrong = format!(
        "{}if (warp == 99u && {}",
        &moves[..at],
        &moves[at + "if (".len()..]
    );
    assert!(fails("mut_pred", &wrong));
    // A wrong shuffle source lane.
    let shfl = emit_partial_benchmark(&cs[3], false).unwrap().code;
    let wrong = shfl.replacen("sl_ ^ 0u)", "sl_ ^ 1u)", 1);
    assert_ne!(wrong, shfl);
    assert!(fails("mut_lane", &wrong));
}

/// The committed suite programs `bench/gpu/generated/partial_*.cu` (partial
/// plans and their `_full` twins) run correctly on the CPU.
#[test]
fn generated_suite_programs_run_correctly_on_the_cpu() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/gpu/generated");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let file = p.file_name().unwrap().to_string_lossy().to_string();
        if file.starts_with("partial_") && file.ends_with(".cu") {
            let name = file.trim_end_matches(".cu");
            check(name, &std::fs::read_to_string(&p).unwrap());
            n += 1;
        }
    }
    assert!(n >= 6, "only {n} partial programs in {}", dir.display());
}
