#!/usr/bin/env bash
# Session 16, call 1: W1 = 4b69825 (wgmma: S of tile i before the softmax warpgroup's PV of
# tile i-1; the stage frees in two halves; blocks 4-8 first). W0 = W1 built with
# -DVB_WGMMA_S_BEFORE_PV=0 (the old order, with the new block order and halves).
# B = R3 (6299733, ca9d175's kernels). W1's GPU tests and correctness; A/B of B, W0, W1,
# 2 rounds, on eight cases the planner sends to the wgmma path (cold L2).
tar xJf .device-carry/s16-c1.tar.xz -C .device-carry || exit 1
O=/tmp/s16c1; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/W1 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-W1.log 2>&1; echo "W1 tests rc=$? $(tail -n 1 $O/gpu-tests-W1.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/W1 $O/final correctness 2>&1 | tail -n 2
tar czf $OUT/s16c1.tgz -C /tmp s16c1
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/W0 .device-carry/W1 -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=8' \
  'deepseek_v3_dp128_eagle/batch.size=8' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' kimi_k2_tp8_128k_batch8 \
  sglang_peer_b32_h16_t4_p8k kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tail -n 3 $O/ab.txt | cut -c1-200
tar czf $OUT/s16c1.tgz -C /tmp s16c1
