#!/usr/bin/env bash
# Session 8's second trial call: swap1_128x128_f8 (8-bit word-form shuffles)
# as generated (`__launch_bounds__(128)`: its occupancy counts one register
# per byte, so no CTA floor) against the same program with the bound that
# counting its data as words gives (`__launch_bounds__(128, 4)`,
# bench/gpu/trial/s8, edited by sed: not generated code). Alternating, four
# rounds. Only results.tgz is left in $OUT.
set -u
FINAL=${OUT:-bench/gpu/out}
W=/tmp/s8b
R=${R:-256}
mkdir -p "$W" /tmp/b8 "$FINAL"
build() {  # file
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o "/tmp/b8/$(basename "$1" .cu)" "$1" > "$W/$(basename "$1" .cu).ptxas" 2>&1
}
build bench/gpu/generated/swap1_128x128_f8.cu &
build bench/gpu/trial/s8/swap1_128x128_f8_k4.cu &
wait
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$W/env.txt"
for round in 1 2 3 4; do
  for n in swap1_128x128_f8 swap1_128x128_f8_k4; do
    /tmp/b8/$n "$R" 1056 30 | sed "s/}$/, \"round\": $round}/" >> "$W/occupancy_ab.jsonl"
  done
done
cat "$W/occupancy_ab.jsonl"
tar czf "$FINAL/results.tgz" -C "$W" .
