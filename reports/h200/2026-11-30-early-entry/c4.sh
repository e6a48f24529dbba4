#!/usr/bin/env bash
# Session 18, call 4: Q = f8145c3 (the block table's page boxes on every fixed-split wgmma plan),
# QT1 = Q with -DVB_WGMMA_TMA_MIN_ROW_TILES=1 (the token table's checked run boxes on every
# fixed-split wgmma plan too), E0 = the kernels of record before (v17). Q's GPU tests,
# correctness set and memcheck / initcheck / synccheck; QT1's correctness set; A/B of E0, Q and
# QT1, 2 rounds, fourteen wgmma plans of 1-2 row tiles (where QT1 adds token runs) and one
# page-1 shuffled plan (the check finds no runs: its cost alone).
tar xJf .device-carry/s18-c4.tar.xz -C .device-carry || exit 1
O=/tmp/s18c4; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/Q && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-Q.log 2>&1; echo "Q tests rc=$? $(tail -n 1 $O/gpu-tests-Q.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/Q $O/Q correctness 2>&1 | tail -n 2
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/QT1 $O/QT1 correctness 2>&1 | tail -n 2
tar czf $OUT/s18c4.tgz -C /tmp s18c4
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/E0 .device-carry/Q .device-carry/QT1 -- \
  kimi_k2_tp8_128k_batch8 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_dflash16/batch.size=1' 'kimi_k2_tp8_dflash16/batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=32' \
  'deepseek_v3_dp128_decode/batch.size=8' 'deepseek_v3_dp128_decode/batch.size=64' \
  'deepseek_v3_tp8_eagle/batch.size=8' 'deepseek_v3_tp8_eagle/batch.size=32' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_eagle/batch.size=8' mask_tax_eagle8_b32 sglang_peer_b32_h16_t4_p8k > $O/ab.txt 2>&1
echo "ab rc=$?"
tar czf $OUT/s18c4.tgz -C /tmp s18c4
timeout 120 scripts/lab_run.sh .device-carry/Q $O/Q sanitize-fast 2>&1 | tail -n 4
tar czf $OUT/s18c4.tgz -C /tmp s18c4
