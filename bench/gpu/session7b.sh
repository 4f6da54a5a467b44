#!/usr/bin/env bash
# Session 7's second device call: the full suite again (run.sh, R = 256,
# after partial kernels moved onto packed words), an A/B of the two 16-bit
# partial programs against their element-wise form of the first call
# (bench/gpu/trial/s7a, restored by restore_session7a_partials.sh; old, new,
# old, new), and a trial of eight CTAs per SM instead of four on the small
# 16-bit shared-memory cases (launch bounds edited by sed into
# bench/gpu/trial/s7b: not generated code). Only results.tgz is left in $OUT.
set -u
FINAL=${OUT:-bench/gpu/out}
W=/tmp/s7b
R=${R:-256}
export OUT=$W R
mkdir -p "$W/ab" /tmp/b7a /tmp/b7b "$FINAL" bench/gpu/trial/s7b
bash bench/gpu/run.sh > "$W/run.log" 2>&1
build() {  # dir file
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o "$1/$(basename "$2" .cu)" "$2" > "$1/$(basename "$2" .cu).ptxas" 2>&1
}
for f in bench/gpu/trial/s7a/*.cu; do build /tmp/b7a "$f" & done
for n in mma2_to_dotA_64x64_f16 mma2_to_dotB_64x64_f16 blocked_T_64x64_f16 lane_permute_64x64_f16 swap1_64x64_f16_smem; do
  sed 's/__launch_bounds__(128, 4)/__launch_bounds__(128, 8)/' bench/gpu/generated/$n.cu > bench/gpu/trial/s7b/${n}_k8.cu
  build /tmp/b7b bench/gpu/trial/s7b/${n}_k8.cu &
done
wait
for b in /tmp/b7a /tmp/b7b; do for p in $b/*.ptxas; do echo "$(basename $p .ptxas) $(grep -o -E 'Used [0-9]+ registers|[0-9]+ bytes spill stores' $p | tr '\n' ' ')"; done; done > "$W/ab/ptxas.txt"
for round in 1 2; do
  for f in bench/gpu/trial/s7a/*.cu; do
    n=$(basename "$f" .cu)
    /tmp/b7a/$n "$R" 1056 30 | sed "s/}$/, \"side\": \"elements\", \"round\": $round}/" >> "$W/ab/partial_ab.jsonl"
    /tmp/b/$n "$R" 1056 30 | sed "s/}$/, \"side\": \"words\", \"round\": $round}/" >> "$W/ab/partial_ab.jsonl"
  done
  for f in bench/gpu/trial/s7b/*.cu; do
    n=$(basename "$f" _k8.cu)
    /tmp/b/$n "$R" 1056 30 | sed "s/}$/, \"side\": \"k4\", \"round\": $round}/" >> "$W/ab/occupancy.jsonl"
    /tmp/b7b/${n}_k8 "$R" 1056 30 | sed "s/}$/, \"side\": \"k8\", \"round\": $round}/" >> "$W/ab/occupancy.jsonl"
  done
done
tar czf "$FINAL/results.tgz" -C "$W" . && ls -la "$FINAL"
