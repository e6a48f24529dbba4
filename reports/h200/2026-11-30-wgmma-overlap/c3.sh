#!/usr/bin/env bash
# Session 16, call 3: S1 = c6a46f5 (wgmma "seesaw" consumers on even and fixed-size plans:
# both consumer warpgroups take S and the softmax of alternate tiles; stages free in halves).
# B = R3 (6299733, ca9d175's kernels). S1's GPU tests, correctness, memcheck / initcheck /
# synccheck; A/B of B and S1, 2 rounds, call 1's eight wgmma cases (cold L2).
tar xJf .device-carry/s16-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s16c3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/S1 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-S1.log 2>&1; echo "S1 tests rc=$? $(tail -n 1 $O/gpu-tests-S1.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 150 scripts/lab_run.sh .device-carry/S1 $O/final correctness sanitize-fast 2>&1 | tail -n 5
tar czf $OUT/s16c3.tgz -C /tmp s16c3
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 200 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/S1 -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=8' \
  'deepseek_v3_dp128_eagle/batch.size=8' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' kimi_k2_tp8_128k_batch8 \
  sglang_peer_b32_h16_t4_p8k kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tail -n 9 $O/ab.txt | cut -c1-180
tar czf $OUT/s16c3.tgz -C /tmp s16c3
