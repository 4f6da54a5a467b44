#!/usr/bin/env bash
# Session 7's device call: the full suite (run.sh, R = 256 on both sides),
# session 6's programs of the cases now on shared words timed between two
# timings of the new ones (A/B: run.sh, then old, then the repeat), every
# case through the cudarc runner (target/carry/gpu-run), and the SASS mix
# of the 8-bit cases. Needs bench/gpu/trial/s6 (restore_session6_programs.sh)
# carried. Everything is written under /tmp/s7 and only results.tgz is left
# in $OUT (the device returns at most eight files).
set -u
FINAL=${OUT:-bench/gpu/out}
W=/tmp/s7
R=${R:-256}
export OUT=$W R
mkdir -p "$W/repeat" "$W/ab" /tmp/b6 "$FINAL"
for d in /usr/local/cuda/lib64 $(dirname "$(which nvcc)")/../lib64; do
  [ -d "$d" ] && export LD_LIBRARY_PATH=$d:${LD_LIBRARY_PATH:-}
done
bash bench/gpu/run.sh > "$W/run.log" 2>&1
for f in bench/gpu/trial/s6/*.cu; do
  n=$(basename "$f" .cu)
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/b6/$n "$f" > /tmp/b6/$n.ptxas 2>&1 &
done
wait
: > "$W/ab/ptxas_s6.txt"
for f in bench/gpu/trial/s6/*.cu; do
  n=$(basename "$f" .cu)
  echo "$n $(grep -o -E 'Used [0-9]+ registers|[0-9]+ bytes spill stores' /tmp/b6/$n.ptxas | tr '\n' ' ')" >> "$W/ab/ptxas_s6.txt"
  [ -x /tmp/b6/$n ] && /tmp/b6/$n "$R" 1056 30 >> "$W/ab/s6.jsonl"
done
for f in bench/gpu/generated/*.cu; do
  n=$(basename "$f" .cu)
  [ -x /tmp/b/$n ] && /tmp/b/$n "$R" 1056 30 >> "$W/repeat/ours.jsonl"
done
for x in ceiling.json env.txt ncu.txt ptxas.txt triton.json triton_gather.json; do cp "$W/$x" "$W/repeat/"; done
./target/carry/gpu-run --r "$R" > "$W/cudarc.jsonl" 2> "$W/cudarc.log"
cp "$W/cudarc.jsonl" "$W/repeat/"
python3 bench/gpu/report.py "$W" > "$W/report.md" 2>&1
python3 bench/gpu/report.py "$W/repeat" > "$W/repeat/report.md" 2>&1
: > "$W/sass_mix.txt"
for n in blocked_T_128x128_f8 blocked_to_wgmma_128x128_f8 mma2_to_dotA_64x64_f16 blocked_T_128x256_f16_w8; do
  for b in /tmp/b /tmp/b6; do
    [ -x $b/$n ] && echo "== $b $n $(cuobjdump -sass $b/$n | grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9.]+' | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -12 | tr '\n' ' ')" >> "$W/sass_mix.txt"
  done
done
tar czf "$FINAL/results.tgz" -C "$W" . && ls -la "$FINAL"
