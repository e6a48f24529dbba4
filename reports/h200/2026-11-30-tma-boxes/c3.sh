#!/usr/bin/env bash
# Session 17, call 3: T2 = c66469c (TMA boxes of 16 rows, as in call 1's T, but only on plans
# of at least 4 row tiles and only in the fixed-split instance), M2 = T2 with every box one row
# off (a mutant: it must fail where boxes are used), F4 = 3133fc4 (v16). T2's GPU tests,
# correctness set and memcheck/initcheck/synccheck; M2 on the correctness set; A/B of F4 and T2,
# 2 rounds: seven plans with boxes, seven without; then T2's full perf set (issue-5 table).
tar xJf .device-carry/s17-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s17c3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/T2 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-T2.log 2>&1; echo "T2 tests rc=$? $(tail -n 1 $O/gpu-tests-T2.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/T2 $O/T2 correctness 2>&1 | tail -n 2
( cd .device-carry/M2 && timeout 60 ./run.sh run scenarios/correctness.yaml --out-dir $O/M2 ) > $O/M2.log 2>&1
echo "M2 (mutant) rc=$? (1 expected) $(grep '^summary' $O/M2.log)"
tar czf $OUT/s17c3.tgz -C /tmp s17c3
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 230 scripts/ab_bundles.sh $O/ab .device-carry/F4 .device-carry/T2 -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'kimi_k2_tp8_ddtree/tree.budget=256,batch.size=1' \
  'deepseek_v3_tp8_ddtree/tree.budget=64' 'deepseek_v3_dp128_eagle/batch.size=8' \
  'deepseek_v3_dp128_single_request/batch.prefix_lens=[65536]' mask_tax_ddtree64_b8 mask_tax_chain64_b8 \
  sglang_peer_b32_h16_t4_p8k kimi_k2_tp8_128k_batch8 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_dflash16/batch.size=8' kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tar czf $OUT/s17c3.tgz -C /tmp s17c3
timeout 100 scripts/lab_run.sh .device-carry/T2 $O/T2 sanitize-fast 2>&1 | tail -n 4
tail -n 16 $O/ab.txt | cut -c1-200
tar czf $OUT/s17c3.tgz -C /tmp s17c3
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 250 scripts/lab_run.sh .device-carry/T2 $O/final perf 2>&1 | tail -n 3
tar czf $OUT/s17c3.tgz -C /tmp s17c3
