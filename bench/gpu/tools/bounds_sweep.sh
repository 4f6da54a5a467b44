#!/usr/bin/env bash
# CTAs-per-SM sweep on the device machine: each listed generated case rebuilt
# with __launch_bounds__(threads, k) for several k, checked and timed
# (R = 64, 1056 tiles, median of 30). Prints: case k registers per_cvt_us ok.
#   bash bench/gpu/tools/bounds_sweep.sh "swap1_64x64_f32 blocked_T_64x64_f16" "4 6 8 12"
set -u
mkdir -p /tmp/sweep
for n in $1; do
  for k in $2; do
    sed -E "s/__launch_bounds__\(([0-9]+), [0-9]+\)/__launch_bounds__(\1, $k)/" bench/gpu/generated/$n.cu > /tmp/sweep/${n}_$k.cu
    nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/sweep/${n}_$k /tmp/sweep/${n}_$k.cu > /tmp/sweep/${n}_$k.log 2>&1 &
  done
done
wait
for n in $1; do
  for k in $2; do
    regs=$(grep -o -E 'Used [0-9]+ registers' /tmp/sweep/${n}_$k.log | grep -o -E '[0-9]+' | head -1)
    r=$(/tmp/sweep/${n}_$k 64 1056 30 | tail -1)
    echo "$n k=$k regs=$regs $(echo "$r" | grep -o -E '"per_cvt_us": [0-9.]+') $(echo "$r" | grep -o -E '"ok": [a-z]+')"
  done
done
