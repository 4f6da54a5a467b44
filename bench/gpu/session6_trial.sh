#!/usr/bin/env bash
# Session 6's exploratory device call: (1) gather shuffle kernels in three
# forms (the session-5 masked-bit index maps, restored by restore_session5_gathers.sh;
# the shift-run maps now emitted; shift runs recomputed every iteration by an
# opaque copy of the index), (2) ours and Triton's at R = 64 and R = 256 for
# the cases below 0.95 at R = 64, to separate per-conversion cost from the
# fixed part. Output: $OUT/trial.txt, $OUT/triton_*.json, $OUT/sass_*.txt.
set -u
[ -f bench/gpu/trial/gather_64x64_u32_shfl_old.cu ] || { echo 'run bash bench/gpu/restore_session5_gathers.sh first' >&2; exit 2; }
OUT=${OUT:-bench/gpu/out}; mkdir -p "$OUT" /tmp/t
G=bench/gpu/generated
NV="nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v"
GATHERS="gather_64x64_u32_shfl gather_32x32_u32_shfl gather_64x32_u16_shfl gather_128x64_u16_w8_shfl gather_64x32_u32_axis0_shfl"
CONV="swap1_64x64_f32 blocked_T_64x64_f16 blocked_T_64x64_f16_mx wide_to_tall_64x64_f32 swap2_64x64_f32 gather_64x64_u32_smem gather_32x32_u32_smem"
for n in $GATHERS; do
  cp bench/gpu/trial/${n}_old.cu /tmp/t/${n}_old.cu
  cp $G/$n.cu /tmp/t/${n}_runs.cu
  sed -E 's/const uint32_t v = ix\[([0-9]+)\];/uint32_t v = ix[\1]; asm volatile("" : "+r"(v));/' $G/$n.cu > /tmp/t/${n}_opaque.cu
done
for n in $CONV; do cp $G/$n.cu /tmp/t/$n.cu; done
for f in /tmp/t/*.cu; do $NV -o ${f%.cu} $f > ${f%.cu}.ptxas 2>&1 & done
wait
: > "$OUT/trial.txt"
for f in /tmp/t/*.cu; do
  b=${f%.cu}; n=$(basename $b)
  regs=$(grep -o -E 'Used [0-9]+ registers' $b.ptxas | grep -o -E '[0-9]+' | head -1)
  for R in 64 256; do
    echo "$n regs=$regs $($b $R 1056 30 | tail -1)" | tee -a "$OUT/trial.txt"
  done
done
for n in gather_64x64_u32_shfl_old gather_64x64_u32_shfl_runs gather_64x64_u32_shfl_opaque swap1_64x64_f32; do
  cuobjdump -sass /tmp/t/$n > "$OUT/sass_$n.txt" 2>&1
done
ONLY=swap1_64x64_f32,blocked_T_64x64_f16,wide_to_tall_64x64_f32,swap2_64x64_f32
GONLY=gather_64x64_u32,gather_32x32_u32,gather_64x32_u16,gather_128x64_u16_w8,gather_64x32_u32_axis0
for R in 64 256; do
  PYTHONUNBUFFERED=1 timeout 200 python3 bench/gpu/triton_baseline.py $G/cases.json --R $R --only $ONLY --out "$OUT/triton_R$R.json" 2>&1 | grep -v -E "leaked|nanobind|skipped remainder"
  PYTHONUNBUFFERED=1 timeout 200 python3 bench/gpu/triton_gather_baseline.py $G/cases.json --R $R --only $GONLY --out "$OUT/triton_gather_R$R.json" 2>&1 | grep -v -E "leaked|nanobind|skipped remainder"
done
cd "$OUT" && tar czf results.tgz --exclude=results.tgz . && ls
