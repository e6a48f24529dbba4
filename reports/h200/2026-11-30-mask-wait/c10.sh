#!/usr/bin/env bash
# Session 15, call 10: N7 = a57a6f4, the adapter's rule at 10 modelled tiles per block on
# mma.sync (call 9 put the break-even near 12). N7's GPU tests and correctness; A/B of
# B = R3 and N7, 2 rounds: call 9's seven threshold cases and ten small ones (cold L2).
tar xJf .device-carry/s15-c10.tar.xz -C .device-carry || exit 1
O=/tmp/s15c10; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/N7 && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-N7.log 2>&1; echo "N7 tests rc=$? $(tail -n 1 $O/gpu-tests-N7.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 60 scripts/lab_run.sh .device-carry/N7 $O/final correctness 2>&1 | tail -n 2
AB_FILE=reports/h200/2026-11-30-mask-wait/threshold.yaml AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 200 \
  scripts/ab_bundles.sh $O/ab-threshold .device-carry/B .device-carry/N7 -- \
  'adapter_threshold_mtp4_b8/batch.prefix.value=6140' 'adapter_threshold_mtp4_b8/batch.prefix.value=8188' \
  'adapter_threshold_mtp4_b8/batch.prefix.value=10236' 'adapter_threshold_mtp4_b8/batch.prefix.value=12284' \
  'adapter_threshold_mtp4_b8/batch.prefix.value=14332' 'adapter_threshold_single_t4_p1/batch.prefix.value=65536' \
  'adapter_threshold_single_t4_p1/batch.prefix.value=98304' > $O/ab-threshold.txt 2>&1
tail -n 2 $O/ab-threshold.txt | cut -c1-160
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 250 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/N7 -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=64' 'kimi_k2_tp8_decode/batch.size=8,pages.size=1' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[32768]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
  sglang_peer_b1_h16_t4_p4k sglang_peer_b8_h16_t4_p4k 'deepseek_v3_tp8_eagle/batch.size=1' \
  deepseek_v3_dp128_decode/batch.size=8 > $O/ab.txt 2>&1
tail -n 2 $O/ab.txt | cut -c1-160
tar czf $OUT/s15c10.tgz -C /tmp s15c10
