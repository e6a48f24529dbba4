#!/usr/bin/env bash
# Session 16, call 7: F4 = 3133fc4 (F3 plus lazy rescaling: the running row max moves only when a
# tile's max exceeds it by more than 8 log2 units). F3 = 0987de2 (call 6). B = R3 (6299733).
# F4's GPU tests, correctness, memcheck / initcheck / synccheck; A/B of B, F3, F4, 2 rounds,
# call 6's ten wgmma cases.
tar xJf .device-carry/s16-c7.tar.xz -C .device-carry || exit 1
O=/tmp/s16c7; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/F4 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-F4.log 2>&1; echo "F4 tests rc=$? $(tail -n 1 $O/gpu-tests-F4.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 150 scripts/lab_run.sh .device-carry/F4 $O/final correctness sanitize-fast 2>&1 | tail -n 5
tar czf $OUT/s16c7.tgz -C /tmp s16c7
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/F3 .device-carry/F4 -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=8' \
  'deepseek_v3_dp128_eagle/batch.size=8' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' kimi_k2_tp8_128k_batch8 \
  sglang_peer_b32_h16_t4_p8k kimi_k2_tp8_mixed_lengths 'deepseek_v3_dp128_decode/batch.size=64' \
  mask_tax_ddtree64_b8 > $O/ab.txt 2>&1
tail -n 11 $O/ab.txt | cut -c1-200
tar czf $OUT/s16c7.tgz -C /tmp s16c7
