#!/usr/bin/env bash
# Builds and runs select_headroom.cu on the device; writes to $OUT:
# select_headroom.jsonl (one line per selects-per-word setting),
# select_headroom_sass.txt (SEL instructions ptxas kept per kernel) and env.txt.
#   OUT=/tmp/res bash bench/gpu/tools/select_headroom.sh
set -euo pipefail
OUT=${OUT:?set OUT}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d)/select_headroom
nvcc -O3 -std=c++17 -arch=sm_90a -o "$bin" "$here/select_headroom.cu"
cuobjdump -sass "$bin" > "$OUT/select_headroom.sass"
awk '
  /Function :/ { name = $3 }
  /[[:space:]]SEL[[:space:]]|[[:space:]]SEL\./ { sel[name]++ }
  /[[:space:]]FSEL[[:space:]]/ { fsel[name]++ }
  /@!?P[0-9]+[[:space:]]+MOV[[:space:]]/ { pmov[name]++ }
  /[[:space:]]LDS/ { lds[name]++ }
  /[[:space:]](ISETP|LOP3|PLOP3|IADD3|IMAD|SHF|R2P|P2R)[[:space:].]/ { other[name]++ }
  /[[:space:]]STS/ { sts[name]++ }
  END { for (n in lds) printf "%s SEL %d FSEL %d predicated-MOV %d LDS %d STS %d integer-ALU %d\n", n, sel[n], fsel[n], pmov[n], lds[n], sts[n], other[n] }' \
  "$OUT/select_headroom.sass" | sort > "$OUT/select_headroom_sass.txt"
"$bin" | tee "$OUT/select_headroom.jsonl"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -2; } > "$OUT/env.txt"
