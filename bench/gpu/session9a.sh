#!/usr/bin/env bash
# Session 9's first trial call: two scratch buffers, one barrier per
# conversion (bench/gpu/trial/s9/*_db.cu, made by bench/gpu/session9_trial_make.py
# from the generated programs: cvt_bwd on a second buffer and the trailing
# barriers dropped; partial programs unrolled by two, alternating buffers)
# against the generated programs. Alternating, three rounds; ncu counters of
# the trial programs. Only results.tgz is left in $OUT.
set -u
FINAL=${OUT:-bench/gpu/out}
W=/tmp/s9a
R=${R:-256}
mkdir -p "$W" /tmp/b9 "$FINAL"
NAMES=$(ls bench/gpu/trial/s9/*_db.cu | xargs -n1 basename | sed 's/_db\.cu$//')
build() {  # file
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o "/tmp/b9/$(basename "$1" .cu)" "$1" > "$W/$(basename "$1" .cu).ptxas" 2>&1
}
for n in $NAMES; do build bench/gpu/generated/$n.cu & build bench/gpu/trial/s9/${n}_db.cu & done
wait
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$W/env.txt"
for round in 1 2 3; do
  for n in $NAMES; do
    for v in $n ${n}_db; do
      /tmp/b9/$v "$R" 1056 30 | sed "s/}$/, \"round\": $round}/" >> "$W/db_ab.jsonl"
    done
  done
done
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
for n in $NAMES; do
  echo "== ${n}_db" >> "$W/ncu.txt"
  timeout 60 ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics $M --csv /tmp/b9/${n}_db 1 1 1 2>&1 | grep -E '^"' >> "$W/ncu.txt"
done
tar czf "$FINAL/results.tgz" -C "$W" .
