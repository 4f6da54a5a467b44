//! The CPU harness shared by the emulated tests: a stand-in `cuda_runtime.h`
//! (one `std::thread` per CUDA thread, `std::barrier` for `__syncthreads`,
//! one per warp for `__syncwarp` and around every warp-collective
//! operation: shuffles and the stmatrix/ldmatrix wrappers, whose PTX
//! fragment rule it implements
//! independently of the planner), and `g++` to build and run a generated
//! program, whose own host code checks every element.

#![allow(dead_code)]

use std::process::Command;

pub const FAKE_CUDA: &str = r#"// CPU emulation of the few CUDA features the generated programs use:
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
#include <cstdio>
#define __device__
#define __forceinline__ inline
#define __global__
#define __shared__
#define __align__(x)
#define __launch_bounds__(...)
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
// __syncwarp joins the 32 lanes of the caller's warp only.
inline void __syncwarp(unsigned = 0xffffffffu) { g_ctx->warp[threadIdx.x / 32]->arrive_and_wait(); }
// A device trap: the program's JSON line says it failed, and the process exits.
inline void __trap() { printf("{\"case\": \"emulated\", \"ok\": false, \"error\": \"__trap\"}\n"); fflush(stdout); std::_Exit(3); }
inline uint32_t __shfl_sync(unsigned, uint32_t v, unsigned src) {
  unsigned t = threadIdx.x, w = t / 32;
  g_ctx->xch[t] = v;
  g_ctx->warp[w]->arrive_and_wait();
  uint32_t r = g_ctx->xch[w * 32 + (src & 31)];
  g_ctx->warp[w]->arrive_and_wait();
  return r;
}
inline uint32_t __shfl_xor_sync(unsigned m, uint32_t v, unsigned x) { return __shfl_sync(m, v, (threadIdx.x & 31u) ^ x); }
inline unsigned __popc(unsigned x) { return (unsigned)__builtin_popcount(x); }
// prmt.b32 (default mode): byte n of the result is byte (s >> 4n) & 7 of y:x.
inline uint32_t __byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  uint64_t v = ((uint64_t)y << 32) | x;
  uint32_t r = 0;
  for (int n = 0; n < 4; ++n) r |= (uint32_t)((v >> (8 * ((s >> (4 * n)) & 7u))) & 0xffu) << (8 * n);
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
// stmatrix/ldmatrix .m8n8.xN[.trans].shared.b16: every lane publishes its
// row address, the warp waits, then each lane moves its own 2N elements:
// operand i, half e of lane l is row l/4, column 2(l%4)+e of matrix i
// (row address from lane 8i + l/4); with .trans row 2(l%4)+e, column l/4.
template <int N, bool T, bool ST> void mx_op(uint32_t addr, uint32_t* r) {
  unsigned t = threadIdx.x, w = t / 32, l = t % 32;
  g_ctx->xch[t] = addr;
  g_ctx->warp[w]->arrive_and_wait();
  for (int i = 0; i < N; ++i) {
    if (g_ctx->xch[w * 32 + 8 * i + l / 4] % 16 != 0) abort();
    if (!ST) r[i] = 0;
    for (int e = 0; e < 2; ++e) {
      uint32_t a = T ? g_ctx->xch[w * 32 + 8 * i + 2 * (l % 4) + e] + 2 * (l / 4)
                     : g_ctx->xch[w * 32 + 8 * i + l / 4] + 2 * (2 * (l % 4) + e);
      if (ST) { uint16_t v = (uint16_t)(r[i] >> (16 * e)); memcpy(smem_raw + a, &v, 2); }
      else { uint16_t v; memcpy(&v, smem_raw + a, 2); r[i] |= (uint32_t)v << (16 * e); }
    }
  }
  g_ctx->warp[w]->arrive_and_wait();
}
#define MX_DEFS(N, SUF, T) \
  inline void stmatrix_x##N##SUF(uint32_t a, MX_ARGS_##N(uint32_t)) { uint32_t r[N] = {MX_NAMES_##N}; mx_op<N, T, true>(a, r); } \
  inline void ldmatrix_x##N##SUF(uint32_t a, MX_ARGS_##N(uint32_t&)) { uint32_t r[N]; mx_op<N, T, false>(a, r); MX_BACK_##N }
#define MX_ARGS_1(ty) ty r0
#define MX_ARGS_2(ty) ty r0, ty r1
#define MX_ARGS_4(ty) ty r0, ty r1, ty r2, ty r3
#define MX_NAMES_1 r0
#define MX_NAMES_2 r0, r1
#define MX_NAMES_4 r0, r1, r2, r3
#define MX_BACK_1 r0 = r[0];
#define MX_BACK_2 r0 = r[0]; r1 = r[1];
#define MX_BACK_4 r0 = r[0]; r1 = r[1]; r2 = r[2]; r3 = r[3];
MX_DEFS(1, , false) MX_DEFS(2, , false) MX_DEFS(4, , false)
MX_DEFS(1, _trans, true) MX_DEFS(2, _trans, true) MX_DEFS(4, _trans, true)
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

/// Whether g++ runs here. The emulated tests skip without it, unless
/// `LAYOUT_CUDA_REQUIRE_GXX` is set (CI sets it where g++ is installed),
/// in which case a missing g++ fails instead of skipping silently.
pub fn have_gxx() -> bool {
    let ok = Command::new("g++")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok || std::env::var_os("LAYOUT_CUDA_REQUIRE_GXX").is_none(),
        "LAYOUT_CUDA_REQUIRE_GXX is set but g++ does not run"
    );
    ok
}

/// Rewrites `bench<<<g, t, s>>>(` into `launch(bench, g, t, s, `.
pub fn rewrite_launches(code: &str) -> String {
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
pub fn run_case(name: &str, code: &str) -> (bool, String) {
    let dir = std::env::temp_dir().join(format!("layout-cuda-emu-{}-{}", std::process::id(), name));
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

/// Runs one generated conversion program (see [`run_case`]) and asserts
/// that it exits cleanly and that its JSON line names `name` and reports
/// every element correct.
pub fn check(name: &str, code: &str) {
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
