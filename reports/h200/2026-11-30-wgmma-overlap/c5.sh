#!/usr/bin/env bash
# Session 16, call 5: F1 = a75666d (the wgmma softmax scales each score inside its exponent's
# FFMA instead of a multiply before the row max; the launcher refuses a scale that is not
# positive). B = R3 (6299733, ca9d175's kernels). F1's GPU tests, correctness and
# memcheck / initcheck / synccheck; A/B of B and F1, 2 rounds, the eight wgmma cases.
tar xJf .device-carry/s16-c5.tar.xz -C .device-carry || exit 1
O=/tmp/s16c5; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/F1 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-F1.log 2>&1; echo "F1 tests rc=$? $(tail -n 1 $O/gpu-tests-F1.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 150 scripts/lab_run.sh .device-carry/F1 $O/final correctness sanitize-fast 2>&1 | tail -n 5
tar czf $OUT/s16c5.tgz -C /tmp s16c5
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 200 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/F1 -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=8' \
  'deepseek_v3_dp128_eagle/batch.size=8' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' kimi_k2_tp8_128k_batch8 \
  sglang_peer_b32_h16_t4_p8k kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tail -n 9 $O/ab.txt | cut -c1-180
tar czf $OUT/s16c5.tgz -C /tmp s16c5
