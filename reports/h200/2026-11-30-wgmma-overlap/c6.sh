#!/usr/bin/env bash
# Session 16, call 6: F3 = 0987de2 (F1's fused scale, plus: prefix-only tiles skip the mask test;
# P handed over in 16-byte accesses). F2 = F3 built with -DVB_WGMMA_VECTOR_HANDOVER=0.
# F1 = a75666d of call 5. B = R3 (6299733). F3's GPU tests and correctness; A/B of B, F1,
# F2, F3, 2 rounds, call 5's eight wgmma cases and two more.
tar xJf .device-carry/s16-c6.tar.xz -C .device-carry || exit 1
O=/tmp/s16c6; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/F3 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-F3.log 2>&1; echo "F3 tests rc=$? $(tail -n 1 $O/gpu-tests-F3.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/F3 $O/final correctness 2>&1 | tail -n 2
tar czf $OUT/s16c6.tgz -C /tmp s16c6
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/F1 .device-carry/F2 .device-carry/F3 -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=8' \
  'deepseek_v3_dp128_eagle/batch.size=8' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' kimi_k2_tp8_128k_batch8 \
  sglang_peer_b32_h16_t4_p8k kimi_k2_tp8_mixed_lengths 'deepseek_v3_dp128_decode/batch.size=64' \
  mask_tax_ddtree64_b8 > $O/ab.txt 2>&1
tail -n 11 $O/ab.txt | cut -c1-230
tar czf $OUT/s16c6.tgz -C /tmp s16c6
