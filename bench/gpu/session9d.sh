#!/usr/bin/env bash
# Session 9's fourth call: the same program with one barrier after the loop
# (bench/gpu/trial/s9/*_tail.cu: the generated program with `__syncthreads();`
# added after the benchmark loop by hand): are the 4 extra load wavefronts the
# epilogue's global stores of early warps meeting the last shared loads of
# late warps in L1's data banks? ncu three times each, as in session9c.sh,
# and a timing of both. Only results.tgz is left in $OUT.
set -u
FINAL=${OUT:-bench/gpu/out}
W=/tmp/s9d
mkdir -p "$W" /tmp/b9d "$FINAL"
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o /tmp/b9d/two bench/gpu/generated/wgmma_to_dotA_128x128_f16_w8.cu &
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o /tmp/b9d/tail bench/gpu/trial/s9/wgmma_to_dotA_128x128_f16_w8_tail.cu &
wait
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
for v in tail two; do
  for args in "1 1 1" "4 1 1" "1 132 1"; do
    for k in 1 2 3; do
      echo "== $v R,tiles,reps=$args try $k" >> "$W/ncu.txt"
      timeout 60 ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics $M --csv /tmp/b9d/$v $args 2>&1 | grep -E '^"' | grep -v '"ID"' | sed 's/.*profiler metrics","//' >> "$W/ncu.txt"
    done
  done
done
for v in tail two; do /tmp/b9d/$v 256 1056 30 >> "$W/time.jsonl"; done
cat "$W/time.jsonl"
grep -c . "$W/ncu.txt"
tar czf "$FINAL/results.tgz" -C "$W" .
