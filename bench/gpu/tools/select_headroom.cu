// How many selects a shared-memory-bound conversion absorbs: the ALU
// headroom of the cost model (layout_codegen::cost, ALU_PER_CYCLE) in the
// setting of the planner's shared-memory plans.
//
// Each CTA (128 threads, 4 warps) holds 32 words per thread. One iteration
// stores them with 8 conflict-free st.shared.v4 (4 wavefronts each per
// warp), a barrier, loads another warp's 32 words with 8 conflict-free
// ld.shared.v4, applies S = 8 * K4 lane-dependent selects per thread
// (K4 / 4 per word; selp on the loaded words, predicates from lane bits and
// a kernel argument so that nothing folds), and a barrier. Per warp and
// iteration: 64 wavefronts and S selects (SEL in SASS; ptxas keeps the
// five lane-bit predicates in predicate registers). With 32 warps per SM the model
// predicts max(64 * 32, S * 32 / ALU_PER_CYCLE) cycles per iteration per SM
// plus barriers: flat up to S = 128 (4 selects per word).
//
// Prints one JSON line per K4: measured cycles per iteration per SM, the
// model's, and the SEL instructions ptxas kept (from cuobjdump, by the
// script select_headroom.sh).
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

constexpr int W = 32;        // words per thread
constexpr int THREADS = 128; // 4 warps

template <int K4>
__global__ void __launch_bounds__(THREADS) headroom(uint32_t* out, int iters, uint32_t flip) {
  __shared__ uint4 buf[W / 4][THREADS];
  const int tid = threadIdx.x, lane = tid & 31;
  uint32_t w[W];
  bool pred[5];
#pragma unroll
  for (int b = 0; b < 5; ++b) pred[b] = ((lane ^ flip) >> b) & 1;
#pragma unroll
  for (int i = 0; i < W; ++i) w[i] = tid * 131u + i * 7919u + blockIdx.x;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int q = 0; q < W / 4; ++q)
      buf[q][tid] = make_uint4(w[4 * q], w[4 * q + 1], w[4 * q + 2], w[4 * q + 3]);
    __syncthreads();
#pragma unroll
    for (int q = 0; q < W / 4; ++q) {
      uint4 v = buf[q][tid ^ 32];
      w[4 * q] = v.x; w[4 * q + 1] = v.y; w[4 * q + 2] = v.z; w[4 * q + 3] = v.w;
    }
    // S = 8 * K4 selects: word i takes word j in the lanes whose bit
    // (t mod 5), flipped by the argument, is set: five predicates, as a
    // plan's selects test lane bits.
#pragma unroll
    for (int t = 0; t < 8 * K4; ++t) {
      const int i = t % W, j = (t * 7 + 3) % W;
      w[i] = pred[t % 5] ? w[j] : w[i];
    }
    __syncthreads();
  }
  uint32_t acc = 0;
#pragma unroll
  for (int i = 0; i < W; ++i) acc ^= w[i] * (2 * i + 1);
  out[blockIdx.x * THREADS + tid] = acc;
}

template <int K4>
void measure(uint32_t* out, int blocks, int iters, int sms, int clk_khz) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int r = 0; r < 3; ++r) headroom<K4><<<blocks, THREADS>>>(out, iters, 0x5a);
  float best = 1e30f;
  for (int r = 0; r < 15; ++r) {
    cudaEventRecord(a);
    headroom<K4><<<blocks, THREADS>>>(out, iters, 0x5a);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (ms < best) best = ms;
  }
  const double warps_per_sm = double(blocks) * (THREADS / 32) / sms;
  const double cycles = best * 1e-3 * clk_khz * 1e3 / iters;  // per iteration, per SM
  const int selects = 8 * K4;                                  // per warp and iteration
  const double mio = 64.0 * warps_per_sm, alu = selects * warps_per_sm / 2.0;
  printf("{\"selects_per_word\": %.2f, \"selects_per_warp_iter\": %d, \"warps_per_sm\": %.0f, "
         "\"cycles_per_iter_per_sm\": %.1f, \"model_mio\": %.0f, \"model_alu\": %.0f, \"ms\": %.4f, \"err\": \"%s\"}\n",
         K4 / 4.0, selects, warps_per_sm, cycles, mio, alu, best, cudaGetErrorString(cudaGetLastError()));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}

int main() {
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  int clk_khz = 0;
  cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, 0);
  const int blocks = p.multiProcessorCount * 8, iters = 2048;
  uint32_t* out;
  cudaMalloc(&out, sizeof(uint32_t) * blocks * THREADS);
  measure<0>(out, blocks, iters, p.multiProcessorCount, clk_khz);
  measure<1>(out, blocks, iters, p.multiProcessorCount, clk_khz);
  measure<2>(out, blocks, iters, p.multiProcessorCount, clk_khz);
  measure<4>(out, blocks, iters, p.multiProcessorCount, clk_khz);
  measure<8>(out, blocks, iters, p.multiProcessorCount, clk_khz);
  measure<12>(out, blocks, iters, p.multiProcessorCount, clk_khz);
  measure<16>(out, blocks, iters, p.multiProcessorCount, clk_khz);
  measure<24>(out, blocks, iters, p.multiProcessorCount, clk_khz);
  measure<32>(out, blocks, iters, p.multiProcessorCount, clk_khz);
  return 0;
}
