#!/usr/bin/env bash
# Session 13, call 9: the combine's warm pass for the instances of 12 and 16 loads only. WQ =
# 186df0c with -DVB_COMBINE_WARM_PASS=1 (every combine instance's code is that of the merge
# function 186df0c introduced); WQT = the same with the phase timeline. V = 9ebf893. GPU tests
# and correctness of WQ; timelines of WQT on two cases; A/B of V and WQ, 3 rounds, 13 cases.
tar xJf .device-carry/s13-c9.tar.xz -C .device-carry || exit 1
O=/tmp/s13c9; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/WQ && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-WQ.log 2>&1; echo "WQ tests rc=$? $(tail -n 1 $O/gpu-tests-WQ.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 90 scripts/lab_run.sh .device-carry/WQ $O/WQ correctness 2>&1 | tail -n 2
i=0
for c in 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]'; do
  i=$((i+1))
  timeout 40 .device-carry/WQT/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline-$i.csv > $O/timeline-$i.txt 2>&1; echo "timeline $i $c rc=$?"
  grep -E "host events around|grid wait done|last main end -> last" $O/timeline-$i.txt | cut -c1-110
done
gzip -q $O/*.csv
tar czf $OUT/s13c9.tgz -C /tmp s13c9
AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/V .device-carry/WQ -- \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[32768]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[16384]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_decode/batch.size=1,pages.size=64' \
  'kimi_k2_tp8_decode/batch.size=8,pages.size=64' deepseek_v3_dp128_decode/batch.size=8 kimi_k2_tp8_dflash16/batch.size=1 \
  'deepseek_v3_dp128_single_request/batch.prefix_lens=[65536]' kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tail -n 15 $O/ab.txt | cut -c1-200
tar czf $OUT/s13c9.tgz -C /tmp s13c9
