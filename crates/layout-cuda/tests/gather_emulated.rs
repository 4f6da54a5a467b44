//! End-to-end CPU run of whole generated gather programs (kernel *and*
//! host `main`): a stand-in `cuda_runtime.h` runs every CUDA thread as a
//! `std::thread`, `__syncthreads` and each `__shfl_sync` as barriers (a
//! shuffle writes the lane's value, waits for the warp, reads the source
//! lane, waits again), and `bench<<<g, t, s>>>(…)` as a loop over blocks.
//! The program's own host reference then checks every element, so this
//! executes the emitted C++ exactly as written (only the launch syntax is
//! rewritten). Needs `g++` with C++20 (`<barrier>`); without it the test
//! says so and checks nothing. Two small cases run by default, all suite
//! cases with `--ignored`.

use layout_cuda::gather::{cases_of, emit_gather_benchmark, suite_specs, GatherCase};
use std::process::Command;

const FAKE_CUDA: &str = r#"// CPU emulation of the few CUDA features the generated gather programs use:
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
fn run_case(case: &GatherCase, code: &str) -> (bool, String) {
    let dir = std::env::temp_dir().join(format!(
        "layout-cuda-gather-emu-{}-{}",
        std::process::id(),
        case.name
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("cuda_runtime.h"), FAKE_CUDA).unwrap();
    let src = dir.join(format!("{}.cpp", case.name));
    std::fs::write(&src, rewrite_launches(code)).unwrap();
    let exe = dir.join(&case.name);
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
        case.name,
        String::from_utf8_lossy(&c.stderr)
    );
    let r = Command::new(&exe).args(["3", "2", "1"]).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        r.status.success(),
        String::from_utf8_lossy(&r.stdout).to_string(),
    )
}

fn check(case: &GatherCase, code: &str) {
    let (success, out) = run_case(case, code);
    assert!(success, "{}: {out}", case.name);
    let line = out
        .lines()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| panic!("{}: no JSON line in {out}", case.name));
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(v["case"], case.name.as_str());
    assert_eq!(v["ok"], true, "{}: {out}", case.name);
    assert_eq!(v["R"], 3);
}

#[test]
fn small_generated_gather_programs_run_correctly_on_the_cpu() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let [shfl, _] = cases_of(&suite_specs()[0]).unwrap();
    let [_, smem] = cases_of(&suite_specs()[2]).unwrap();
    for case in [shfl, smem] {
        let code = emit_gather_benchmark(&case).unwrap().code;
        check(&case, &code);
    }
}

#[test]
fn a_wrong_source_lane_fails_the_programs_own_check() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    // Mutation: the 16-bit case's source-lane constant for index bit 2 is
    // 1; make it 2. The program must report ok: false (exit status 3).
    let [shfl, _] = cases_of(&suite_specs()[2]).unwrap();
    let code = emit_gather_benchmark(&shfl).unwrap().code;
    let bad = code.replacen("((v >> 2) & 1u)) & 1u)", "((v >> 2) & 1u)) & 2u)", 1);
    assert_ne!(bad, code);
    let dir_case = GatherCase {
        name: "mutated".into(),
        ..shfl
    };
    let (success, out) = run_case(&dir_case, &bad);
    assert!(!success, "{out}");
    assert!(out.contains("# mismatch at"), "{out}");
    assert!(out.contains("\"ok\": false"), "{out}");
}

#[test]
#[ignore = "compiles all 12 suite programs (about a minute)"]
fn all_generated_gather_programs_run_correctly_on_the_cpu() {
    assert!(have_gxx(), "needs g++");
    for spec in suite_specs() {
        for case in cases_of(&spec).unwrap() {
            let code = emit_gather_benchmark(&case).unwrap().code;
            check(&case, &code);
        }
    }
}
