#!/usr/bin/env bash
# Session 6's programs of the cases that session 7 moved onto shared words
# (layout_cuda::shared_words), the 'old' side of session7.sh's A/B, restored
# from git history into bench/gpu/trial/s6/ (ignored by git: name it in the
# device call's carry). Run here, before the device call:
#   bash bench/gpu/restore_session6_programs.sh
set -eu
mkdir -p bench/gpu/trial/s6
for n in blocked_T_128x128_f8 blocked_to_wgmma_128x128_f8 swap1_128x128_f8_smem \
         blocked_T_64x64_f16 blocked_T_128x256_f16_w8 mma2_to_dotA_64x64_f16 \
         mma2_to_dotB_64x64_f16 swap1_64x64_f16_smem lane_permute_64x64_f16 \
         blocked_to_mma2_128x128_f16 wgmma_to_blocked_128x128_f16 \
         wgmma_to_blocked_128x256_bf16_w8 blocked_to_wgmma_128x128_f16; do
  git show 7cf0f46:bench/gpu/generated/$n.cu > bench/gpu/trial/s6/$n.cu
done
