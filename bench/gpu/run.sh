#!/usr/bin/env bash
# The GPU suite, run on the device machine from the repository root:
#   bash bench/gpu/run.sh
# Builds every generated case (bench/gpu/generated/*.cu, written by
# `cargo run -p layout-cuda --bin gpu-suite`), checks every element on random
# data, times ours (CUDA events, median) and Triton's Gluon kernel
# (do_bench, median) in the same call, reads ncu's shared-memory wavefront
# and bank-conflict counters for one tile at R = 1 and R = 2, and measures the
# shared-memory ceiling. Everything lands in $OUT (or bench/gpu/out).
set -u
OUT=${OUT:-bench/gpu/out}
# Iterations per kernel, ours and Triton's (cases.json says the same).
R=${R:-256}
export R
mkdir -p "$OUT" /tmp/b
G=bench/gpu/generated
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -1; python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"; } 2>&1 | tee "$OUT/env.txt"
nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o /tmp/b/smem_ceiling bench/gpu/smem_ceiling.cu && /tmp/b/smem_ceiling | tee "$OUT/ceiling.json"
for f in $G/*.cu; do
  n=$(basename "$f" .cu)
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/b/$n "$f" > /tmp/b/$n.ptxas 2>&1 &
done
wait
: > "$OUT/ptxas.txt"
for f in $G/*.cu; do n=$(basename "$f" .cu); echo "$n $(grep -o -E 'Used [0-9]+ registers|[0-9]+ bytes spill stores' /tmp/b/$n.ptxas | tr '\n' ' ')" >> "$OUT/ptxas.txt"; done
: > "$OUT/ours.jsonl"
for f in $G/*.cu; do
  n=$(basename "$f" .cu)
  if [ -x /tmp/b/$n ]; then /tmp/b/$n "$R" 1056 30 | tee -a "$OUT/ours.jsonl"; else echo "{\"case\": \"$n\", \"error\": \"build failed\"}" | tee -a "$OUT/ours.jsonl"; cat /tmp/b/$n.ptxas | head -5; fi
done
: > "$OUT/ncu.txt"
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
for f in $G/*.cu; do
  n=$(basename "$f" .cu)
  [ -x /tmp/b/$n ] || continue
  echo "== $n" >> "$OUT/ncu.txt"
  timeout 60 ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics $M --csv /tmp/b/$n 1 1 1 2>&1 | grep -E '^"' >> "$OUT/ncu.txt"
  # R = 2 as well: the difference is one iteration's counts, free of what
  # happens once per kernel (session 9: 4 extra load wavefronts per CTA on
  # one 8-warp program, whatever R is).
  echo "== $n R=2" >> "$OUT/ncu.txt"
  timeout 60 ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics $M --csv /tmp/b/$n 2 1 1 2>&1 | grep -E '^"' >> "$OUT/ncu.txt"
done
PYTHONUNBUFFERED=1 timeout 300 python3 bench/gpu/triton_baseline.py $G/cases.json --R "$R" --out "$OUT/triton.json" 2>&1 | grep -v -E "leaked|nanobind|skipped remainder" | tee "$OUT/triton.log"
# Gather (Figure 6): Triton's gl.gather on the gather cases' layouts.
PYTHONUNBUFFERED=1 timeout 300 python3 bench/gpu/triton_gather_baseline.py $G/cases.json --R "$R" --out "$OUT/triton_gather.json" 2>&1 | grep -v -E "leaked|nanobind|skipped remainder" | tee "$OUT/triton_gather.log"
python3 bench/gpu/report.py "$OUT" | tee "$OUT/report.md"
