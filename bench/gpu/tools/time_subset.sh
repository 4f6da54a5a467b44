#!/usr/bin/env bash
# Builds and times a subset of the generated programs (bench/gpu/generated)
# and counts one iteration's shared-memory wavefronts with ncu (R = 2 − R =
# 1), as run.sh's build, time and ncu stages do, for a quick comparison of a
# few programs in one device call. Usage (on the device):
#   OUT=/tmp/res [G=DIR] bash bench/gpu/tools/time_subset.sh NAME...
# (G: the folder of the programs, default bench/gpu/generated)
set -u
OUT=${OUT:-bench/gpu/out}
R=${R:-256}
mkdir -p "$OUT" /tmp/b
G=${G:-bench/gpu/generated}
NVCC="nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/env.txt"
for n in "$@"; do
  $NVCC -Xptxas -v -o /tmp/b/$n "$G/$n.cu" > /tmp/b/$n.ptxas 2>&1 &
done
wait
: > "$OUT/ours.jsonl"
: > "$OUT/ptxas.txt"
for n in "$@"; do
  echo "$n $(grep -o -E 'Used [0-9]+ registers|[0-9]+ bytes spill stores' /tmp/b/$n.ptxas | tr '\n' ' ')" >> "$OUT/ptxas.txt"
  /tmp/b/$n "$R" 1056 30 >> "$OUT/ours.jsonl" || echo "{\"case\": \"$n\", \"error\": \"run failed\"}" >> "$OUT/ours.jsonl"
done
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
: > "$OUT/ncu.txt"
for n in "$@"; do
  for r in 1 2; do
    if [ "$r" = 1 ]; then echo "== $n" >> "$OUT/ncu.txt"; else echo "== $n R=$r" >> "$OUT/ncu.txt"; fi
    timeout 60 ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics $M --csv /tmp/b/$n $r 1 1 2>&1 | grep -E '^"' >> "$OUT/ncu.txt"
  done
done
