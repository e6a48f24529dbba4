#!/usr/bin/env bash
# Session 16, call 9: F5 = 351be8e (F4 plus the row max as a tree of depth 4, not a chain of 16;
# F5 with -DVB_WGMMA_TREE_MAX=0 compiles to F4's machine code). F4 = 3133fc4. B = R3
# (6299733). F5's GPU tests and correctness; A/B of B, F4, F5, 2 rounds, the ten wgmma cases.
tar xJf .device-carry/s16-c9.tar.xz -C .device-carry || exit 1
O=/tmp/s16c9; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/F5 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-F5.log 2>&1; echo "F5 tests rc=$? $(tail -n 1 $O/gpu-tests-F5.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/F5 $O/final correctness 2>&1 | tail -n 2
tar czf $OUT/s16c9.tgz -C /tmp s16c9
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 250 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/F4 .device-carry/F5 -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=8' \
  'deepseek_v3_dp128_eagle/batch.size=8' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' kimi_k2_tp8_128k_batch8 \
  sglang_peer_b32_h16_t4_p8k kimi_k2_tp8_mixed_lengths 'deepseek_v3_dp128_decode/batch.size=64' \
  mask_tax_ddtree64_b8 > $O/ab.txt 2>&1
tail -n 11 $O/ab.txt | cut -c1-200
tar czf $OUT/s16c9.tgz -C /tmp s16c9
