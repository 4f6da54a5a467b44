#!/usr/bin/env bash
# Build one generated case with nvcc's front end but another ptxas (device
# machine), e.g. Triton's bundled one, so that ours and Triton's kernels can be
# assembled by the same assembler:
#   bash bench/gpu/tools/build_with_ptxas.sh PTXAS OUT_BINARY SRC.cu [extra nvcc flags]
# It replays `nvcc --dryrun`, replacing the ptxas step; the PTX's `.version`
# line is lowered to PTX_VERSION (default 8.7, the newest ptxas 12.8 reads):
# nvcc 13 writes 9.0 but our kernels use nothing newer than sm_90a's 7.8.
set -u
PTXAS=$1; BIN=$2; SRC=$3; shift 3
PTX_VERSION=${PTX_VERSION:-8.7}
steps=$(mktemp)
nvcc --dryrun -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v "$@" -o "$BIN" "$SRC" 2>&1 | sed -n 's/^#\$ //p' > "$steps"
ptxas() {
  local a
  for a in "$@"; do
    case "$a" in *.ptx) sed -i -E "s/^\.version [0-9.]+/.version $PTX_VERSION/" "$a" ;; esac
  done
  "$PTXAS" "$@"
}
rm() { command rm -f "$@"; }  # nvcc's dry run removes files the replay never made
while IFS= read -r line; do
  if [[ "$line" =~ ^[A-Za-z_][A-Za-z_0-9]*= ]]; then
    eval "export $line" 2>/dev/null || true
  else
    eval "$line" || { echo "build_with_ptxas: step failed: $line" >&2; rm -f "$steps"; exit 1; }
  fi
done < "$steps"
rm -f "$steps"
