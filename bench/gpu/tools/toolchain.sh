#!/usr/bin/env bash
# Toolchain and occupancy study (device machine, repository root):
#   bash bench/gpu/tools/toolchain.sh
# Builds every generated conversion case four ways and times each the way
# run.sh does (R = 64, 1056 tiles, median of 30):
#   nvcc13     nvcc 13 with its own ptxas (what run.sh does);
#   tptxas     nvcc 13's front end, Triton's bundled ptxas (build_with_ptxas.sh);
#   min3 / min4   nvcc 13 with the kernel's __launch_bounds__(threads) raised
#              to (threads, 3) / (threads, 4): a register cap that lets that
#              many CTAs share an SM (8-warp kernels: (256, 2) for both).
# Then times Triton's Gluon kernels again with TRITON_PTXAS_PATH set to
# nvcc 13's ptxas (fresh cache), and prints Triton's registers per thread.
# Output: $OUT/toolchain.txt (variant, ptxas stats, timing JSON per line),
# $OUT/triton_ptxas13.json, $OUT/triton_regs.txt.
set -u
OUT=${OUT:-bench/gpu/out}
mkdir -p "$OUT" /tmp/t
G=bench/gpu/generated
TPTXAS=$(python3 -c "import os, triton; print(os.path.join(os.path.dirname(triton.__file__), 'backends', 'nvidia', 'bin', 'ptxas'))")
{ echo "triton ptxas: $($TPTXAS --version | tail -1)"; echo "nvcc ptxas: $(ptxas --version | tail -1)"; } | tee "$OUT/toolchain_env.txt"
cases=$(ls $G/*.cu | xargs -n1 basename | sed 's/\.cu$//' | grep -v -E '^gather_|_branch$')
for n in $cases; do
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/t/${n}.nvcc13 $G/$n.cu > /tmp/t/${n}.nvcc13.log 2>&1 &
  bash bench/gpu/tools/build_with_ptxas.sh "$TPTXAS" /tmp/t/${n}.tptxas $G/$n.cu > /tmp/t/${n}.tptxas.log 2>&1 &
  for m in 3 4; do
    sed -E "s/__launch_bounds__\(128\)/__launch_bounds__(128, $m)/; s/__launch_bounds__\(256\)/__launch_bounds__(256, 2)/" $G/$n.cu > /tmp/t/${n}_min$m.cu
    nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/t/${n}.min$m /tmp/t/${n}_min$m.cu > /tmp/t/${n}.min$m.log 2>&1 &
  done
  while [ "$(jobs -r | wc -l)" -ge 16 ]; do sleep 0.5; done
done
wait
: > "$OUT/toolchain.txt"
for n in $cases; do
  for v in nvcc13 tptxas min3 min4; do
    b=/tmp/t/$n.$v
    stats=$(grep -o -E 'Used [0-9]+ registers|[0-9]+ bytes spill stores' /tmp/t/$n.$v.log | tr '\n' ' ')
    if [ ! -x $b ]; then echo "$v | $stats | {\"case\": \"$n\", \"error\": \"build failed\"}" >> "$OUT/toolchain.txt"; tail -3 /tmp/t/$n.$v.log; continue; fi
    echo "$v | $stats | $($b 64 1056 30)" | tee -a "$OUT/toolchain.txt"
  done
done
[ "${SKIP_TRITON:-0}" = 1 ] && exit 0
TRITON_PTXAS_PATH=$(which ptxas) TRITON_CACHE_DIR=/tmp/t/tcache PYTHONUNBUFFERED=1 timeout 200 python3 bench/gpu/triton_baseline.py $G/cases.json --out "$OUT/triton_ptxas13.json" 2>&1 | grep -v -E "leaked|nanobind|skipped remainder" | tail -40
timeout 100 python3 bench/gpu/tools/triton_regs.py $G/cases.json 2>&1 | grep registers | tee "$OUT/triton_regs.txt"
