#!/usr/bin/env bash
# Session 9's fifth call: why two register<->lane swaps by shuffles only tie
# shared memory (swap2_64x64_f32: 1.05 us by 24 shfl + 128 selects per warp,
# 1.07 through shared memory) while one swap wins 2.5x (swap1_64x64_f32:
# 16 shfl + 48 selects). ncu pipe utilisation of the generated programs over
# the whole grid (1056 tiles, R = 256). Only results.tgz is left in $OUT.
set -u
FINAL=${OUT:-bench/gpu/out}
W=/tmp/s9e
mkdir -p "$W" /tmp/b9e "$FINAL"
NAMES="swap1_64x64_f32 swap2_64x64_f32 swap2_64x64_f32_smem swap1_64x64_f32_smem"
for n in $NAMES; do nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o /tmp/b9e/$n bench/gpu/generated/$n.cu & done
wait
M=sm__inst_executed_pipe_alu.sum,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.sum,smsp__inst_executed.sum,sm__cycles_elapsed.avg,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active
for n in $NAMES; do
  echo "== $n" >> "$W/ncu.txt"
  timeout 120 ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics $M --csv /tmp/b9e/$n 256 1056 1 2>&1 | grep -E '^"' | grep -v '"ID"' | sed 's/.*profiler metrics","//' >> "$W/ncu.txt"
done
cat "$W/ncu.txt"
tar czf "$FINAL/results.tgz" -C "$W" .
