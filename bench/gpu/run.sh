#!/usr/bin/env bash
# The GPU suite, run on the device machine from the repository root:
#   bash bench/gpu/run.sh                 # every stage
#   STAGES="build time triton" bash bench/gpu/run.sh
# Stages (in this order; each needs `build` in the same machine session):
#   build   nvcc every generated program (bench/gpu/generated/*.cu, written
#           by `cargo run -p gpu-suite` from bench/gpu/cases.toml) and the
#           command-line pair and device-function demo (bench/gpu/generated/cli)
#   time    shared-memory ceiling; every program of ours: forward element
#           check on random data and CUDA-event timing (R iterations, median)
#   triton  Triton's Gluon kernels on the same layouts (do_bench, median)
#   cli     the pairs given on the command line (linlayout cuda --bench) and
#           the hand-written kernel calling their --device-function (the
#           second pair's is a partial cross-warp plan)
#   ncu     ncu's shared-memory wavefronts and bank conflicts of one tile at
#           R = 1 and R = 2 for every conversion program (gathers: R = 1)
#   report  report.md from the above (python3 bench/gpu/report.py)
# Everything lands in $OUT (default bench/gpu/out). Stage times go to
# $OUT/stages.txt. CASES (a glob, default all) limits the build, time and
# ncu stages to the programs it names, e.g. CASES='partial_pred_*'.
set -u
OUT=${OUT:-bench/gpu/out}
R=${R:-256}
export R
STAGES=${STAGES:-"build time triton cli ncu report"}
CASES=${CASES:-*}
mkdir -p "$OUT" /tmp/b
G=bench/gpu/generated
has() { [[ " $STAGES " == *" $1 "* ]]; }
stamp() { echo "$1 $(date -u +%T)" >> "$OUT/stages.txt"; }
NVCC="nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a"

stamp start
if has build; then
  { nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -1; python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"; } 2>&1 | tee "$OUT/env.txt"
  $NVCC -o /tmp/b/smem_ceiling bench/gpu/smem_ceiling.cu &
  for f in $G/$CASES.cu $G/cli/*_bench.cu; do
    n=$(basename "$f" .cu)
    $NVCC -Xptxas -v -o /tmp/b/$n "$f" > /tmp/b/$n.ptxas 2>&1 &
  done
  $NVCC -I $G/cli -o /tmp/b/device_function_demo bench/gpu/device_function_demo.cu > /tmp/b/device_function_demo.ptxas 2>&1 &
  $NVCC -I $G/cli/partial -o /tmp/b/device_function_demo_partial bench/gpu/device_function_demo.cu > /tmp/b/device_function_demo_partial.ptxas 2>&1 &
  $NVCC -I $G/cli/staged -o /tmp/b/device_function_demo_staged bench/gpu/device_function_demo.cu > /tmp/b/device_function_demo_staged.ptxas 2>&1 &
  wait
  : > "$OUT/ptxas.txt"
  for f in $G/$CASES.cu; do n=$(basename "$f" .cu); echo "$n $(grep -o -E 'Used [0-9]+ registers|[0-9]+ bytes spill stores' /tmp/b/$n.ptxas | tr '\n' ' ')" >> "$OUT/ptxas.txt"; done
  stamp build
fi
if has time; then
  /tmp/b/smem_ceiling | tee "$OUT/ceiling.json"
  : > "$OUT/ours.jsonl"
  for f in $G/$CASES.cu; do
    n=$(basename "$f" .cu)
    if [ -x /tmp/b/$n ]; then /tmp/b/$n "$R" 1056 30 | tee -a "$OUT/ours.jsonl"; else echo "{\"case\": \"$n\", \"error\": \"build failed\"}" | tee -a "$OUT/ours.jsonl"; head -5 /tmp/b/$n.ptxas; fi
  done
  stamp time
fi
if has triton; then
  PYTHONUNBUFFERED=1 timeout 300 python3 bench/gpu/triton_baseline.py $G/cases.json --R "$R" --out "$OUT/triton.json" 2>&1 | grep -v -E "leaked|nanobind|skipped remainder" | tee "$OUT/triton.log"
  PYTHONUNBUFFERED=1 timeout 300 python3 bench/gpu/triton_gather_baseline.py $G/cases.json --R "$R" --out "$OUT/triton_gather.json" 2>&1 | grep -v -E "leaked|nanobind|skipped remainder" | tee "$OUT/triton_gather.log"
  stamp triton
fi
if has cli; then
  : > "$OUT/cli.jsonl"
  for f in $G/cli/*_bench.cu; do
    n=$(basename "$f" .cu)
    if [ -x /tmp/b/$n ]; then /tmp/b/$n "$R" 1056 30 | tee -a "$OUT/cli.jsonl"; else echo "{\"case\": \"$n\", \"error\": \"build failed\"}" | tee -a "$OUT/cli.jsonl"; head -5 /tmp/b/$n.ptxas; fi
  done
  for d in device_function_demo device_function_demo_partial device_function_demo_staged; do
    if [ -x /tmp/b/$d ]; then /tmp/b/$d | sed "s/\"device_function_demo\"/\"$d\"/" | tee -a "$OUT/cli.jsonl"; else echo "{\"case\": \"$d\", \"error\": \"build failed\"}" | tee -a "$OUT/cli.jsonl"; head -20 /tmp/b/$d.ptxas; fi
  done
  stamp cli
fi
if has ncu; then
  : > "$OUT/ncu.txt"
  M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  for f in $G/$CASES.cu; do
    n=$(basename "$f" .cu)
    [ -x /tmp/b/$n ] || continue
    echo "== $n" >> "$OUT/ncu.txt"
    timeout 60 ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics $M --csv /tmp/b/$n 1 1 1 2>&1 | grep -E '^"' >> "$OUT/ncu.txt"
    # R = 2 as well: the difference is one iteration's counts, free of what
    # happens once per kernel (the load, the forward check's conversion and
    # store). Gathers have no loop to isolate.
    case $n in gather_*) continue ;; esac
    echo "== $n R=2" >> "$OUT/ncu.txt"
    timeout 60 ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics $M --csv /tmp/b/$n 2 1 1 2>&1 | grep -E '^"' >> "$OUT/ncu.txt"
  done
  stamp ncu
fi
if has report; then
  python3 bench/gpu/report.py "$OUT" | tee "$OUT/report.md"
  stamp report
fi
