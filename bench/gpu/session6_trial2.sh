#!/usr/bin/env bash
# Session 6's second exploratory call: the gather shuffle kernels with
# precomputed control words (as now emitted; 'ctl'), the same without the
# per-iteration empty asm that keeps candidate tests in the loop ('hoist'),
# and session 5's form ('old', restored by restore_session5_gathers.sh), each at R = 64 and 256;
# Triton's gl.gather at the same R. Output: $OUT/trial2.txt, sass_*.txt.
set -u
[ -f bench/gpu/trial/gather_64x64_u32_shfl_old.cu ] || { echo 'run bash bench/gpu/restore_session5_gathers.sh first' >&2; exit 2; }
OUT=${OUT:-bench/gpu/out}; mkdir -p "$OUT" /tmp/t2
G=bench/gpu/generated
NV="nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v"
GATHERS="gather_64x64_u32_shfl gather_32x32_u32_shfl gather_64x32_u16_shfl gather_128x64_u16_w8_shfl gather_64x32_u32_axis0_shfl"
for n in $GATHERS; do
  cp bench/gpu/trial/${n}_old.cu /tmp/t2/${n}_old.cu
  cp $G/$n.cu /tmp/t2/${n}_ctl.cu
  grep -v 'asm volatile("" : "+r"(w\[i\]))' $G/$n.cu > /tmp/t2/${n}_hoist.cu
done
cp $G/gather_32x128_u32_deep_shfl.cu /tmp/t2/gather_32x128_u32_deep_shfl_ctl.cu
for f in /tmp/t2/*.cu; do $NV -o ${f%.cu} $f > ${f%.cu}.ptxas 2>&1 & done
wait
: > "$OUT/trial2.txt"
for f in /tmp/t2/*.cu; do
  b=${f%.cu}; n=$(basename $b)
  regs=$(grep -o -E 'Used [0-9]+ registers' $b.ptxas | grep -o -E '[0-9]+' | head -1)
  [ -x $b ] || { echo "$n build failed: $(head -3 $b.ptxas)" >> "$OUT/trial2.txt"; continue; }
  for R in 64 256; do
    echo "$n regs=$regs $($b $R 1056 30 | tail -1)" >> "$OUT/trial2.txt"
  done
done
for v in ctl hoist; do
  cuobjdump -sass /tmp/t2/gather_64x64_u32_shfl_$v > "$OUT/sass_gather_64x64_u32_shfl_$v.txt" 2>&1
done
GONLY=gather_64x64_u32,gather_32x32_u32,gather_64x32_u16,gather_128x64_u16_w8,gather_64x32_u32_axis0,gather_32x128_u32_deep
for R in 64 256; do
  PYTHONUNBUFFERED=1 timeout 200 python3 bench/gpu/triton_gather_baseline.py $G/cases.json --R $R --only $GONLY --out "$OUT/tg_R$R.json" > /dev/null 2>&1
done
cat "$OUT/trial2.txt"
