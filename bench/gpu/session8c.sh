#!/usr/bin/env bash
# Session 8's last device call (a rejected experiment, reverted: see
# bench/gpu/results/session8_replica_stores/README.md): the full suite
# (run.sh, R = 256) on a tree where broadcast sources shared their
# shared-memory stores among the replicas (AccessMap::emit_store), then an
# A/B of the four
# changed programs against their previous form (bench/gpu/trial/s8c, the
# committed programs before the change; old, new alternating, three
# rounds), then a second timing of every program of ours. Only results.tgz
# is left in $OUT.
set -u
FINAL=${OUT:-bench/gpu/out}
W=/tmp/s8c
R=${R:-256}
export OUT=$W R
mkdir -p "$W/repeat" "$W/ab" /tmp/b8c "$FINAL"
bash bench/gpu/run.sh > "$W/run.log" 2>&1
tar czf "$FINAL/results.tgz" -C "$W" .
for f in bench/gpu/trial/s8c/*.cu; do
  n=$(basename "$f" .cu)
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/b8c/$n "$f" > "$W/ab/$n.old.ptxas" 2>&1 &
done
wait
for round in 1 2 3; do
  for f in bench/gpu/trial/s8c/*.cu; do
    n=$(basename "$f" .cu)
    /tmp/b8c/$n "$R" 1056 30 | sed "s/}$/, \"side\": \"old\", \"round\": $round}/" >> "$W/ab/replica_stores_ab.jsonl"
    /tmp/b/$n "$R" 1056 30 | sed "s/}$/, \"side\": \"new\", \"round\": $round}/" >> "$W/ab/replica_stores_ab.jsonl"
  done
done
tar czf "$FINAL/results.tgz" -C "$W" .
for f in bench/gpu/generated/*.cu; do
  n=$(basename "$f" .cu)
  [ -x /tmp/b/$n ] && /tmp/b/$n "$R" 1056 30 >> "$W/repeat/ours.jsonl"
done
tar czf "$FINAL/results.tgz" -C "$W" . && ls -la "$FINAL"
