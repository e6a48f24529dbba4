#!/usr/bin/env bash
# Session 17, call 2: T1 = 38a4e29 (TMA boxes only for whole tiles: 64 consecutive
# pool rows, 9 boxes of 64 rows from one thread; other tiles keep the cp.async gather), M1 = T1
# with every box one row off (a mutant: its wgmma checks on page-64 layouts must fail), F4 =
# 3133fc4 (v16). T1's GPU tests, correctness set and memcheck/initcheck/synccheck; M1 on six
# correctness cases; A/B of F4 and T1, 2 rounds, the thirteen wgmma cases of call 1.
tar xJf .device-carry/s17-c2.tar.xz -C .device-carry || exit 1
O=/tmp/s17c2; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/T1 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-T1.log 2>&1; echo "T1 tests rc=$? $(tail -n 1 $O/gpu-tests-T1.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/T1 $O/T1 correctness 2>&1 | tail -n 2
( cd .device-carry/M1 && timeout 60 ./run.sh run scenarios/correctness.yaml --case page16_boundaries --case page64_boundaries \
    --case fixed_prefix_page64 --case ddtree64 --case 'placements/pages.size=64,pages.placement=shuffled' \
    --case 'placements/pages.size=1,pages.placement=contiguous' --out-dir $O/M1 ) > $O/M1.log 2>&1
echo "M1 (mutant) rc=$? (1 expected) $(grep '^summary' $O/M1.log)"
tar czf $OUT/s17c2.tgz -C /tmp s17c2
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 230 scripts/ab_bundles.sh $O/ab .device-carry/F4 .device-carry/T1 -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=8' \
  'deepseek_v3_dp128_eagle/batch.size=8' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' kimi_k2_tp8_128k_batch8 \
  sglang_peer_b32_h16_t4_p8k kimi_k2_tp8_mixed_lengths 'deepseek_v3_dp128_decode/batch.size=64' \
  mask_tax_ddtree64_b8 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' kimi_k2_tp8_skewed_lengths \
  deepseek_v3_tp8_shared_prefix > $O/ab.txt 2>&1
tar czf $OUT/s17c2.tgz -C /tmp s17c2
timeout 150 scripts/lab_run.sh .device-carry/T1 $O/T1 sanitize-fast 2>&1 | tail -n 3
tail -n 15 $O/ab.txt | cut -c1-200
tar czf $OUT/s17c2.tgz -C /tmp s17c2
