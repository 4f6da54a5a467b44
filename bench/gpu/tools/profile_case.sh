#!/usr/bin/env bash
# Instruction-level comparison of one case, ours vs Triton (device machine):
#   bash bench/gpu/tools/profile_case.sh swap1_64x64_f32
# ncu: executed instructions and elapsed cycles of one launch (R = 64) of each
# kernel; plus our SASS instruction histogram.
set -u
OUT=${OUT:-bench/gpu/out}
mkdir -p "$OUT" /tmp/b
n=$1
G=bench/gpu/generated
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o /tmp/b/$n $G/$n.cu
M=sm__inst_executed.sum,sm__cycles_elapsed.max,smsp__inst_executed_op_shfl.sum
echo "== ours" | tee "$OUT/profile_$n.txt"
ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics $M --csv /tmp/b/$n 64 1056 1 2>&1 | grep -E '^"' | cut -d, -f13- | tee -a "$OUT/profile_$n.txt"
echo "== triton" | tee -a "$OUT/profile_$n.txt"
python3 - "$n" > /tmp/b/one.json <<'PY'
import json, sys
cases = json.load(open("bench/gpu/generated/cases.json"))
print(json.dumps([c for c in cases if c["name"] == sys.argv[1]]))
PY
ncu --clock-control none --kernel-name regex:cvt_bench --launch-skip 1 --launch-count 1 --metrics $M --csv python3 bench/gpu/triton_baseline.py /tmp/b/one.json --rep 5 2>&1 | grep -E '^"[0-9]' | cut -d, -f13- | tee -a "$OUT/profile_$n.txt"
echo "== our SASS histogram (bench kernel)" | tee -a "$OUT/profile_$n.txt"
cuobjdump -sass /tmp/b/$n | grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+' | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -15 | tee -a "$OUT/profile_$n.txt"
