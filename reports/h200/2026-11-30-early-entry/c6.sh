#!/usr/bin/env bash
# Session 18, call 6: Q2 = the switch commit after f8145c3 (v18's machine code), R = Q2 with
# -DVB_WGMMA_STAGE_WAIT_LAST=1 (the producer computes a tile's row pointers, box check and the
# next tile's table words before waiting for the tile's stage), RT1 = R with the token table's
# checked run boxes on every fixed-split plan (-DVB_WGMMA_TMA_MIN_ROW_TILES=1). R's GPU tests
# and correctness set, RT1's correctness set; A/B of Q2, R and RT1, 2 rounds, fifteen wgmma plans.
tar xJf .device-carry/s18-c6.tar.xz -C .device-carry || exit 1
O=/tmp/s18c6; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/R && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-R.log 2>&1; echo "R tests rc=$? $(tail -n 1 $O/gpu-tests-R.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/R $O/R correctness 2>&1 | tail -n 2
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/RT1 $O/RT1 correctness 2>&1 | tail -n 2
tar czf $OUT/s18c6.tgz -C /tmp s18c6
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/Q2 .device-carry/R .device-carry/RT1 -- \
  kimi_k2_tp8_128k_batch8 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_dflash16/batch.size=1' 'kimi_k2_tp8_dflash16/batch.size=8' \
  'deepseek_v3_dp128_decode/batch.size=8' 'deepseek_v3_dp128_decode/batch.size=64' \
  'deepseek_v3_tp8_eagle/batch.size=8' 'deepseek_v3_tp8_eagle/batch.size=64' 'kimi_k2_tp8_eagle/batch.size=8' \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'deepseek_v3_dp128_eagle/batch.size=8' \
  mask_tax_eagle8_b32 sglang_peer_b32_h16_t4_p8k > $O/ab.txt 2>&1
echo "ab rc=$?"
tar czf $OUT/s18c6.tgz -C /tmp s18c6
