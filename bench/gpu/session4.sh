#!/usr/bin/env bash
# Session 4's device call: the full suite (run.sh), then our kernels timed
# again in the same call against the same Triton timings (repeat/), and the
# SASS instruction mix of the word-shuffle cases; all tarred into one file.
set -u
OUT=${OUT:-bench/gpu/out}
# Iterations per kernel, ours and Triton's (cases.json says the same).
R=${R:-256}
export R
export OUT
bash bench/gpu/run.sh > "$OUT/run.log" 2>&1
mkdir -p "$OUT/repeat"
for f in bench/gpu/generated/*.cu; do
  n=$(basename "$f" .cu)
  [ -x /tmp/b/$n ] && /tmp/b/$n "$R" 1056 30 >> "$OUT/repeat/ours.jsonl"
done
for x in ceiling.json env.txt ncu.txt ptxas.txt triton.json triton_gather.json; do cp "$OUT/$x" "$OUT/repeat/"; done
python3 bench/gpu/report.py "$OUT/repeat" > "$OUT/repeat/report.md" 2>&1
: > "$OUT/sass_mix.txt"
for n in swap1_64x64_f16 swap1_64x64_f32 swap1_128x128_f8 swap1_128x128_f8_smem blocked_T_128x128_f8 blocked_to_wgmma_128x128_f8; do
  echo "== $n $(cuobjdump -sass /tmp/b/$n | grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9.]+' | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -12 | tr '\n' ' ')" >> "$OUT/sass_mix.txt"
done
cd "$OUT" && tar czf results.tgz --exclude=results.tgz . && ls
