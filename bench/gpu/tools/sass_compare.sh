#!/usr/bin/env bash
# SASS of one case, ours and Triton's (device machine, after run.sh built
# /tmp/b/<case>):  bash bench/gpu/tools/sass_compare.sh swap1_64x64_f32
# Writes $OUT/sass_<case>_{ours,triton}.txt and prints both instruction
# histograms of the R loop (the basic block that holds the conversions).
set -u
OUT=${OUT:-bench/gpu/out}
n=$1
G=bench/gpu/generated
mkdir -p "$OUT" /tmp/b
[ -x /tmp/b/$n ] || nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o /tmp/b/$n $G/$n.cu
cuobjdump -sass -fun bench /tmp/b/$n > "$OUT/sass_${n}_ours.txt" 2>&1
python3 - "$n" "$OUT/sass_${n}_triton.txt" <<'PY' 2>/dev/null
import json, subprocess, sys
sys.path.insert(0, "bench/gpu")
import triton_baseline as tb
case = [c for c in json.load(open("bench/gpu/generated/cases.json")) if c["name"] == sys.argv[1]][0]
k, _ = tb.compile_case(case)
open("/tmp/b/triton.cubin", "wb").write(k.asm["cubin"])
open(sys.argv[2], "w").write(subprocess.run(["cuobjdump", "-sass", "/tmp/b/triton.cubin"], capture_output=True, text=True).stdout)
PY
for side in ours triton; do
  echo "== $side: SASS opcode histogram of the whole kernel"
  grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.@!P ]+' "$OUT/sass_${n}_${side}.txt" | awk '{for(i=2;i<=NF;i++) if ($i !~ /^@/) {print $i; break}}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -14
done
