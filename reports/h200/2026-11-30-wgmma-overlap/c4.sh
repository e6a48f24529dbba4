#!/usr/bin/env bash
# Session 16, call 4: call 3's seesaw S1 (c6a46f5) ran 3.5-9 % slower than B. S2 = 37a15fb
# built with -DVB_WGMMA_SEESAW_HIGH_FIRST=1 (blocks 4-8 load and are read first: the
# half the second warpgroup frees early). S2's GPU tests and correctness; A/B of B, S1, S2,
# 2 rounds, the eight wgmma cases; ncu warp-stall sampling of S1 on DDTree-64 B8 (call 2 did B).
tar xJf .device-carry/s16-c4.tar.xz -C .device-carry || exit 1
O=/tmp/s16c4; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/S2 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-S2.log 2>&1; echo "S2 tests rc=$? $(tail -n 1 $O/gpu-tests-S2.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/S2 $O/final correctness 2>&1 | tail -n 2
c='kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8'
VB_PROFILE_EXECUTOR=production VB_STALLS_CASE="$c" timeout 200 scripts/lab_run.sh .device-carry/S1 $O/stalls-S1 stalls > $O/stalls-S1.log 2>&1
echo "stalls rc=$?"; rm -f $O/stalls-S1/*.ncu-rep $O/stalls-S1/sass-sm_120.txt $O/stalls-S1/sass-sm_90.txt
head -n 2 $O/stalls-S1/stalls-top.txt; gzip -q $O/stalls-S1/*.csv $O/stalls-S1/sass-sm_90a.txt 2>/dev/null
tar czf $OUT/s16c4.tgz -C /tmp s16c4
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 290 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/S1 .device-carry/S2 -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=8' \
  'deepseek_v3_dp128_eagle/batch.size=8' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' kimi_k2_tp8_128k_batch8 \
  sglang_peer_b32_h16_t4_p8k kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tail -n 9 $O/ab.txt | cut -c1-250
tar czf $OUT/s16c4.tgz -C /tmp s16c4
