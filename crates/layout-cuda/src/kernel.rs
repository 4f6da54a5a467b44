//! The parts every benchmark kernel shares: its global-memory sides (load
//! by the source layout, the forward check's store by the destination
//! layout), its head and the host program.

use crate::bench_loop::Held;
use crate::pack::{emit_pack, emit_unpack};
use crate::{ctype, free_masks, global_map, shared_words, AccessMap, EmitError};
use linear_layout::{DimName, LinearLayout};
use std::fmt::Write;

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
    /// by the destination layout: the forward check, which the host reads
    /// element by element. The copies of a broadcast destination, which the
    /// store skips, are checked in the kernel against the input (a
    /// mismatch traps, and the host reports the launch's error).
    pub(crate) fn emit_store(&self, s: &mut String, held: Held<'_>) -> Result<(), EmitError> {
        let (_, nd) = self.regs;
        let t = ctype(self.bits);
        writeln!(
            s,
            "  // The forward check: the destination registers, stored by the destination layout."
        )
        .unwrap();
        match held {
            Held::Elements => {
                self.store
                    .emit_store(s, "gout", "b", self.bits, self.store_free)?;
                self.store
                    .emit_replica_check(s, "gin", "b", self.bits, self.store_free)?;
            }
            Held::Words { bits, .. } => {
                writeln!(s, "  {{\n    {t} b[{nd}];").unwrap();
                let p = shared_words::WordPacking::consecutive(bits, nd)?;
                emit_unpack(s, &p, "bw", "b", bits);
                self.store
                    .emit_store(s, "gout", "b", bits, self.store_free)?;
                self.store
                    .emit_replica_check(s, "gin", "b", bits, self.store_free)?;
                writeln!(s, "  }}").unwrap();
            }
        }
        Ok(())
    }
}

/// The head of every benchmark kernel `bench(in, out, R)`, or `bench(in,
/// idx, out, R)` for gathers (`with_index`): its launch bounds (`threads`,
/// and `min_blocks` CTAs per SM when given, see
/// [`layout_codegen::occupancy`]), the dynamic
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
