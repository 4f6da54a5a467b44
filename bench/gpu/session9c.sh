#!/usr/bin/env bash
# Session 9's third call: is the 4 extra load wavefronts (4 "conflicts")
# ncu counted on wgmma_to_dotA_128x128_f16_w8 with two scratch buffers
# deterministic, and does the one-buffer program (session 8's, in
# bench/gpu/trial/s9/*_single.cu: `git show 2af8e03:bench/gpu/generated/
# wgmma_to_dotA_128x128_f16_w8.cu`, the case renamed with sed) show it too? ncu three times each, at one
# CTA and at 132 CTAs, R = 1 and R = 4. Only results.tgz is left in $OUT.
set -u
FINAL=${OUT:-bench/gpu/out}
W=/tmp/s9c
mkdir -p "$W" /tmp/b9c "$FINAL"
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o /tmp/b9c/two bench/gpu/generated/wgmma_to_dotA_128x128_f16_w8.cu &
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o /tmp/b9c/one bench/gpu/trial/s9/wgmma_to_dotA_128x128_f16_w8_single.cu &
wait
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
for v in two one; do
  for args in "1 1 1" "4 1 1" "1 132 1"; do
    for k in 1 2 3; do
      echo "== $v R,tiles,reps=$args try $k" >> "$W/ncu.txt"
      timeout 60 ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics $M --csv /tmp/b9c/$v $args 2>&1 | grep -E '^"' | grep -v '"ID"' | sed 's/.*profiler metrics","//' >> "$W/ncu.txt"
    done
  done
done
cat "$W/ncu.txt" | head -80
tar czf "$FINAL/results.tgz" -C "$W" .
