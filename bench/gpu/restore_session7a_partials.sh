#!/usr/bin/env bash
# The two 16-bit partial programs as session 7's first call ran them (one
# element per register), the 'elements' side of session7b.sh's A/B,
# restored from git history into bench/gpu/trial/s7a/ (ignored by git:
# carry it). Run here, before the device call:
#   bash bench/gpu/restore_session7a_partials.sh
set -eu
mkdir -p bench/gpu/trial/s7a
for n in partial_b22_to_b41_128x128_f16 partial_b22_to_b14cols_128x128_f16; do
  git show ac63f10:bench/gpu/generated/$n.cu > bench/gpu/trial/s7a/$n.cu
done
