#!/usr/bin/env bash
# Session 13, call 1: tile-balanced slot records and the early page-table base (2a8e431).
# G = b28e6eb (bc2bc1b's machine code); N = 2a8e431; NR = N with -DVB_EARLY_TABLE_BASE=0 (the
# records only); N0 = N with -DVB_BALANCED_COMBINE_FEWER=0 (balanced combine instances at the
# others' bounds); NT / GT = N / G with the phase timeline. GPU tests and correctness of N;
# timelines of GT and NT on three cases; A/B of G, N, NR, N0, 2 rounds, 12 cases.
tar xJf .device-carry/s13-c1.tar.xz -C .device-carry || exit 1
O=/tmp/s13c1; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/N && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-N.log 2>&1; echo "N tests rc=$? $(tail -n 1 $O/gpu-tests-N.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 90 scripts/lab_run.sh .device-carry/N $O/N correctness 2>&1 | tail -n 2
for c in kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]'; do
  n=$(echo "$c" | tr -c 'A-Za-z0-9_.\n' '_')
  for v in GT NT; do
    timeout 40 .device-carry/$v/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline-$v-$n.csv > $O/timeline-$v-$n.txt 2>&1; echo "timeline $v $n rc=$?"
    grep -E "host events around|entry -> first KV copies|last main end -> last combine|grid wait done -> end" $O/timeline-$v-$n.txt
  done
done
gzip -q $O/*.csv
tar czf $OUT/s13c1.tgz -C /tmp s13c1
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/G .device-carry/N .device-carry/NR .device-carry/N0 -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths deepseek_v3_tp8_shared_prefix \
  kimi_k2_tp8_eagle/batch.size=8 kimi_k2_tp8_eagle/batch.size=32 \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  'kimi_k2_tp8_decode/batch.size=8,pages.size=64' deepseek_v3_dp128_decode/batch.size=8 kimi_k2_tp8_128k_batch8 > $O/ab.txt 2>&1
tail -n 14 $O/ab.txt | cut -c1-240
tar czf $OUT/s13c1.tgz -C /tmp s13c1
