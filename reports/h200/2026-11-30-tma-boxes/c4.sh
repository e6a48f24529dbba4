#!/usr/bin/env bash
# Session 17, call 4: T3 = 9531553 (the TMA boxes of 16 rows in a kernel instance of their own,
# launched for fixed-split plans of at least 4 row tiles; every other instance is v16's machine
# code), M3 = T3 with every box one row off (a mutant), F4 = 3133fc4 (v16). T3's GPU tests,
# correctness set and memcheck/initcheck/synccheck; M3's GPU tests and correctness set (both
# must fail); A/B of F4 and T3, 2 rounds, seventeen wgmma cases; T3's full perf set.
tar xJf .device-carry/s17-c4.tar.xz -C .device-carry || exit 1
O=/tmp/s17c4; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/T3 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-T3.log 2>&1; echo "T3 tests rc=$? $(tail -n 1 $O/gpu-tests-T3.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/T3 $O/T3 correctness 2>&1 | tail -n 2
( cd .device-carry/M3 && timeout 100 ./run_gpu_tests.sh ) > $O/gpu-tests-M3.log 2>&1; echo "M3 (mutant) tests rc=$? (failure expected) $(tail -n 1 $O/gpu-tests-M3.log)"
( cd .device-carry/M3 && timeout 60 ./run.sh run scenarios/correctness.yaml --out-dir $O/M3 ) > $O/M3.log 2>&1
echo "M3 (mutant) rc=$? (1 expected) $(grep '^summary' $O/M3.log)"
tar czf $OUT/s17c4.tgz -C /tmp s17c4
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 260 scripts/ab_bundles.sh $O/ab .device-carry/F4 .device-carry/T3 -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'kimi_k2_tp8_ddtree/tree.budget=256,batch.size=1' \
  'kimi_k2_tp8_ddtree/tree.budget=256,batch.size=8' 'deepseek_v3_tp8_ddtree/tree.budget=64' \
  'deepseek_v3_dp128_eagle/batch.size=8' 'deepseek_v3_dp128_eagle/batch.size=32' \
  'deepseek_v3_dp128_single_request/batch.prefix_lens=[65536]' mask_tax_ddtree64_b8 mask_tax_chain64_b8 \
  sglang_peer_b32_h16_t4_p8k kimi_k2_tp8_128k_batch8 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_dflash16/batch.size=8' kimi_k2_tp8_mixed_lengths 'deepseek_v3_dp128_decode/batch.size=64' > $O/ab.txt 2>&1
tar czf $OUT/s17c4.tgz -C /tmp s17c4
timeout 100 scripts/lab_run.sh .device-carry/T3 $O/T3 sanitize-fast 2>&1 | tail -n 4
tail -n 19 $O/ab.txt | cut -c1-200
tar czf $OUT/s17c4.tgz -C /tmp s17c4
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 200 scripts/lab_run.sh .device-carry/T3 $O/final perf 2>&1 | tail -n 3
tar czf $OUT/s17c4.tgz -C /tmp s17c4
