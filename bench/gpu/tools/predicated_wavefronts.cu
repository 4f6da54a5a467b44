// Shared-memory wavefronts of one warp-wide access in which only some lanes
// take part (a guarded ld.shared / st.shared), for the wavefront counter's
// rule (layout_codegen::wavefront::predicated_access_wavefronts).
//
// One block of one warp per configuration: op (ld, st) x width (4, 8, 16
// bytes) x address scheme x lane mask. The lanes of the mask execute the
// access once; the others skip it (each kernel's SASS holds one LDS or STS:
// ptxas folds repeats of the same access even when they are volatile, so
// the program makes one). ncu's
// l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum is the access's
// wavefronts. The program prints one line per launch, in launch
// order, so that bench/gpu/tools/predicated_wavefronts.py can pair ncu's rows
// with the configurations and compare them with the model.
//
//   nvcc -O3 -arch=sm_90a -o /tmp/pw bench/gpu/tools/predicated_wavefronts.cu
//   ncu --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum --csv /tmp/pw > ncu.csv
//   /tmp/pw > configs.txt
#include <cstdio>
#include <cuda_runtime.h>

template <int BYTES, bool STORE>
__global__ void probe(const unsigned* addr, unsigned mask, unsigned* out) {
  __shared__ __align__(16) unsigned char buf[16384];
  unsigned lane = threadIdx.x & 31;
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(buf)) + addr[lane];
  unsigned a0 = lane, a1 = lane + 1, a2 = lane + 2, a3 = lane + 3;
  if ((mask >> lane) & 1u) {
    {
      if (STORE) {
        if (BYTES == 4) asm volatile("st.shared.u32 [%0], %1;" ::"r"(s), "r"(a0) : "memory");
        if (BYTES == 8) asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(s), "r"(a0), "r"(a1) : "memory");
        if (BYTES == 16)
          asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(s), "r"(a0), "r"(a1), "r"(a2), "r"(a3)
                       : "memory");
      } else {
        unsigned x = 0, y = 0, z = 0, w = 0;
        if (BYTES == 4) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(s) : "memory");
        if (BYTES == 8) asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(s) : "memory");
        if (BYTES == 16)
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                       : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                       : "r"(s)
                       : "memory");
        a0 ^= x;
        a1 ^= y;
        a2 ^= z;
        a3 ^= w;
      }
    }
  }
  if ((a0 ^ a1 ^ a2 ^ a3) == 0xdeadbeefu) out[lane] = a0;
}

// Byte offset of lane l under each scheme (aligned to the access width).
static unsigned offset(int scheme, int l, unsigned mask, int bytes) {
  int rank = __builtin_popcount(mask & ((1u << l) - 1u));
  switch (scheme) {
    case 0: return l * bytes;                       // "lane": consecutive lanes, consecutive vectors
    case 1: return rank * bytes;                    // "rank": the active lanes packed together
    case 2: return l * 2 * bytes;                   // "stride2": every other vector
    case 3: return (l ^ (l >> 3 & 3)) * bytes + (l >> 2 & 1) * 1024;  // "mixed": a permutation and a jump
    default: return 0;
  }
}
static const char* SCHEMES[] = {"lane", "rank", "stride2", "mixed"};

template <int BYTES, bool STORE>
static void launch(const unsigned* d_addr, unsigned mask, unsigned* d_out) {
  probe<BYTES, STORE><<<1, 32>>>(d_addr, mask, d_out);
}

int main() {
  const unsigned masks[] = {0xffffffffu, 0x55555555u, 0x33333333u, 0x0f0f0f0fu, 0x00ff00ffu, 0x0000ffffu,
                            0xeeeeeeeeu, 0x11111111u, 0x00000001u, 0x9a3c5e71u, 0xffff0000u, 0x000000ffu,
                            0x77777777u, 0x3c3c3c3cu};
  unsigned *d_addr, *d_out;
  cudaMalloc(&d_addr, 32 * sizeof(unsigned));
  cudaMalloc(&d_out, 32 * sizeof(unsigned));
  for (int store = 0; store < 2; ++store)
    for (int bytes : {4, 8, 16})
      for (int scheme = 0; scheme < 4; ++scheme)
        for (unsigned mask : masks) {
          unsigned h[32];
          for (int l = 0; l < 32; ++l) h[l] = offset(scheme, l, mask, bytes);
          cudaMemcpy(d_addr, h, sizeof h, cudaMemcpyHostToDevice);
          if (store) {
            if (bytes == 4) launch<4, true>(d_addr, mask, d_out);
            if (bytes == 8) launch<8, true>(d_addr, mask, d_out);
            if (bytes == 16) launch<16, true>(d_addr, mask, d_out);
          } else {
            if (bytes == 4) launch<4, false>(d_addr, mask, d_out);
            if (bytes == 8) launch<8, false>(d_addr, mask, d_out);
            if (bytes == 16) launch<16, false>(d_addr, mask, d_out);
          }
          cudaDeviceSynchronize();
          printf("%s %d %s 0x%08x", store ? "st" : "ld", bytes, SCHEMES[scheme], mask);
          for (int l = 0; l < 32; ++l) printf(" %u", h[l]);
          printf("\n");
        }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    fprintf(stderr, "%s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
