#!/usr/bin/env bash
# Session 6's device call: the full suite (run.sh, R = 256 on both sides),
# our nvcc-built programs timed again (repeat/), every case through the
# cudarc runner (crates/gpu-run, NVRTC + driver API; its binary is carried
# as target/carry/gpu-run, built by `cargo build --release -p gpu-run`),
# and the SASS mix of a few cases; all tarred into results.tgz.
set -u
OUT=${OUT:-bench/gpu/out}
R=${R:-256}
export OUT R
for d in /usr/local/cuda/lib64 $(dirname "$(which nvcc)")/../lib64; do
  [ -d "$d" ] && export LD_LIBRARY_PATH=$d:${LD_LIBRARY_PATH:-}
done
bash bench/gpu/run.sh > "$OUT/run.log" 2>&1
mkdir -p "$OUT/repeat"
for f in bench/gpu/generated/*.cu; do
  n=$(basename "$f" .cu)
  [ -x /tmp/b/$n ] && /tmp/b/$n "$R" 1056 30 >> "$OUT/repeat/ours.jsonl"
done
for x in ceiling.json env.txt ncu.txt ptxas.txt triton.json triton_gather.json; do cp "$OUT/$x" "$OUT/repeat/"; done
./target/carry/gpu-run --r "$R" > "$OUT/cudarc.jsonl" 2> "$OUT/cudarc.log"
cp "$OUT/cudarc.jsonl" "$OUT/repeat/"
python3 bench/gpu/report.py "$OUT" > "$OUT/report.md" 2>&1
python3 bench/gpu/report.py "$OUT/repeat" > "$OUT/repeat/report.md" 2>&1
: > "$OUT/sass_mix.txt"
for n in swap1_64x64_f32 gather_64x64_u32_shfl gather_64x32_u32_axis0_shfl blocked_T_128x128_f8; do
  echo "== $n $(cuobjdump -sass /tmp/b/$n | grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9.]+' | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -12 | tr '\n' ' ')" >> "$OUT/sass_mix.txt"
done
cd "$OUT" && tar czf results.tgz --exclude=results.tgz . && ls
