#!/usr/bin/env bash
# Session 9's device call: the full suite (run.sh, R = 256), where every
# program whose doubled scratch keeps its CTAs per SM now takes two scratch
# buffers in turn and one barrier per conversion (layout_cuda::scratch),
# then a second timing of every program of ours (repeat/ours.jsonl) to
# confirm the ratios. Only results.tgz is left in $OUT (the device returns
# at most 8 files).
set -u
FINAL=${OUT:-bench/gpu/out}
W=/tmp/s9
R=${R:-256}
export OUT=$W R
mkdir -p "$W/repeat" "$FINAL"
bash bench/gpu/run.sh > "$W/run.log" 2>&1
tar czf "$FINAL/results.tgz" -C "$W" .
for f in bench/gpu/generated/*.cu; do
  n=$(basename "$f" .cu)
  [ -x /tmp/b/$n ] && /tmp/b/$n "$R" 1056 30 >> "$W/repeat/ours.jsonl"
done
tar czf "$FINAL/results.tgz" -C "$W" . && ls -la "$FINAL"
