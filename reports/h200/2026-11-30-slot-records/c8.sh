#!/usr/bin/env bash
# Session 13, call 8: the combine's warm pass. WP = the commit before this script's with
# -DVB_COMBINE_WARM_PASS=1 (the merge out of line, run once before the grid wait with nothing to
# load or store); WPT = the same with the phase timeline and -DVB_COMBINE_SMALL_BOUNDS=0 (the
# timeline's stamps spilled instance 6 otherwise). V = 9ebf893. GPU tests and correctness of
# WP; timelines of WPT on three cases (compare call 2's NT); A/B of V and WP, 3 rounds, 12 cases.
tar xJf .device-carry/s13-c8.tar.xz -C .device-carry || exit 1
O=/tmp/s13c8; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/WP && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-WP.log 2>&1; echo "WP tests rc=$? $(tail -n 1 $O/gpu-tests-WP.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 90 scripts/lab_run.sh .device-carry/WP $O/WP correctness 2>&1 | tail -n 2
i=0
for c in 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
         'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8'; do
  i=$((i+1))
  timeout 40 .device-carry/WPT/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline-$i.csv > $O/timeline-$i.txt 2>&1; echo "timeline $i $c rc=$?"
  grep -E "host events around|first combine entry|grid wait done|last main end -> last" $O/timeline-$i.txt | cut -c1-110
done
gzip -q $O/*.csv
tar czf $OUT/s13c8.tgz -C /tmp s13c8
AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/V .device-carry/WP -- \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=64' 'kimi_k2_tp8_decode/batch.size=8,pages.size=64' \
  deepseek_v3_dp128_decode/batch.size=8 kimi_k2_tp8_dflash16/batch.size=1 kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths > $O/ab.txt 2>&1
tail -n 14 $O/ab.txt | cut -c1-200
tar czf $OUT/s13c8.tgz -C /tmp s13c8
