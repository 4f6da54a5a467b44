// Shared-memory bandwidth ceiling: conflict-free 16-byte st.shared + ld.shared.
// Each thread stores and loads one uint4 per iteration at threadIdx*16 bytes
// (consecutive threads -> consecutive 16-byte chunks: 4 wavefronts per warp
// access, the minimum). Reports bytes moved through shared memory per second
// and per clock per SM.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) smem_bw(unsigned* out, int iters) {
  __shared__ uint4 buf[2][256];
  uint4 v = make_uint4(threadIdx.x, 1, 2, 3);
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (int i = 0; i < iters; ++i) {
    buf[i & 1][threadIdx.x] = v;
    __syncwarp();
    uint4 w = buf[i & 1][threadIdx.x ^ 1];
    acc.x ^= w.x; acc.y += w.y; acc.z ^= w.z; acc.w += w.w;
    v.x += 1;
  }
  if (acc.x == 0xdeadbeef) out[0] = acc.y + acc.z + acc.w;
}

int main() {
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  int clk_khz = 0; cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, 0);
  unsigned* out; cudaMalloc(&out, 4);
  int blocks = p.multiProcessorCount * 8, iters = 4096;
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int w = 0; w < 3; ++w) smem_bw<<<blocks, 256>>>(out, iters);
  float best = 1e9;
  for (int r = 0; r < 20; ++r) {
    cudaEventRecord(a); smem_bw<<<blocks, 256>>>(out, iters); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms;
  }
  double bytes = 2.0 * 16 * 256.0 * iters * blocks;
  double tbs = bytes / (best * 1e-3) / 1e12;
  double per_clk_sm = bytes / (best * 1e-3) / (clk_khz * 1e3) / p.multiProcessorCount;
  printf("{\"smem_ceiling_TBps\": %.2f, \"bytes_per_clk_per_sm\": %.1f, \"sms\": %d, \"clock_mhz\": %.0f, \"err\": \"%s\"}\n",
         tbs, per_clk_sm, p.multiProcessorCount, clk_khz / 1e3, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
