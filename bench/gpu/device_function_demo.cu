// A hand-written kernel that calls a conversion emitted as a device
// function: `linlayout cuda --device-function --name cvt ... -o cvt.cuh`
// writes cvt.cuh (the function `cvt`, its offset helpers and the CVT_*
// sizes); this file is compiled beside it:
//
//   nvcc -O3 -std=c++17 -arch=sm_90a -I<dir of cvt.cuh> -o demo device_function_demo.cu
//
// Each CTA loads one tile by the source layout, converts with `cvt`, and
// stores the destination registers by the destination layout; the host
// checks that every element of the output equals the input (a replicated
// destination writes equal values to one place). Prints one JSON line;
// exit status 0 when every element is right. The same file runs under the
// CPU emulation of layout-cuda's tests (tests/device_function_emulated.rs).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "cvt.cuh"

extern "C" __global__ void __launch_bounds__(CVT_THREADS) convert_tile(const CVT_T* __restrict__ in, CVT_T* __restrict__ out) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const CVT_T* tin = in + (size_t)blockIdx.x * CVT_TILE;
  CVT_T* tout = out + (size_t)blockIdx.x * CVT_TILE;
  CVT_T src[CVT_SRC_REGS], dst[CVT_DST_REGS];
#pragma unroll
  for (unsigned r = 0; r < CVT_SRC_REGS; ++r) src[r] = tin[cvt_src_offset(r, lane, warp)];
  cvt(src, dst, reinterpret_cast<CVT_T*>(smem_raw), lane, warp);
#pragma unroll
  for (unsigned r = 0; r < CVT_DST_REGS; ++r) tout[cvt_dst_offset(r, lane, warp)] = dst[r];
}

int main() {
  const int tiles = 264;
  const size_t n = (size_t)tiles * CVT_TILE;
  std::vector<CVT_T> h(n), o(n);
  srand(7);
  for (size_t i = 0; i < n; ++i) h[i] = (CVT_T)(rand() ^ (rand() << 15));
  CVT_T *din, *dout;
  if (cudaMalloc(&din, n * sizeof(CVT_T)) || cudaMalloc(&dout, n * sizeof(CVT_T))) return 1;
  cudaMemcpy(din, h.data(), n * sizeof(CVT_T), cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, n * sizeof(CVT_T));
  const size_t bytes = CVT_SCRATCH_BYTES > 0 ? CVT_SCRATCH_BYTES : 16;
  cudaFuncSetAttribute(convert_tile, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  convert_tile<<<tiles, CVT_THREADS, bytes>>>(din, dout);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(o.data(), dout, n * sizeof(CVT_T), cudaMemcpyDeviceToHost);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += o[i] != h[i];
  printf("{\"case\": \"device_function_demo\", \"ok\": %s, \"error\": \"%s\", \"wrong\": %zu, \"elements\": %zu}\n",
         (bad == 0 && e == cudaSuccess) ? "true" : "false", cudaGetErrorString(e), bad, n);
  return bad == 0 && e == cudaSuccess ? 0 : 3;
}
