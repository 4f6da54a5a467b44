#!/usr/bin/env bash
# Session 5's gather shuffle programs, the 'old' baseline of
# session6_trial.sh and session6_trial2.sh, restored from git history into
# bench/gpu/trial/ (ignored by git: name it in the device call's carry).
# Run here, before the device call:  bash bench/gpu/restore_session5_gathers.sh
set -eu
mkdir -p bench/gpu/trial
for n in gather_64x64_u32_shfl gather_32x32_u32_shfl gather_64x32_u16_shfl gather_128x64_u16_w8_shfl gather_64x32_u32_axis0_shfl; do
  git show 26ee0b1:bench/gpu/generated/$n.cu > bench/gpu/trial/${n}_old.cu
done
