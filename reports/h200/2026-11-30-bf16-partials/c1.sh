#!/usr/bin/env bash
# Session 12, call 1: the early combine. E = de048c6 (each combine warp waits for its own
# request's partials); A = 3679d5c (the combine waits for the whole main grid); ET / ET0 = E
# with the phase timeline, early combine on / off (-DVB_EARLY_COMBINE=0).
# GPU tests and correctness of E; timelines of ET and ET0 on four cases; A/B of A and E,
# 2 rounds, 12 cases.
tar xJf .device-carry/s12-c1.tar.xz -C .device-carry || exit 1
O=/tmp/s12c1; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/E && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-E.log 2>&1; echo "E tests rc=$? $(tail -n 1 $O/gpu-tests-E.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 150 scripts/lab_run.sh .device-carry/E $O/E correctness 2>&1 | tail -n 3
for c in kimi_k2_tp8_mixed_lengths 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
         'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' kimi_k2_tp8_skewed_lengths; do
  n=$(echo "$c" | tr -c 'A-Za-z0-9_.\n' '_')
  for v in ET0 ET; do
    timeout 40 .device-carry/$v/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline-$v-$n.csv > $O/timeline-$v-$n.txt 2>&1; echo "timeline $v $n rc=$?"
    grep -E "host events around|first entry -> last block end|last main end -> " $O/timeline-$v-$n.txt
  done
done
gzip -q $O/*.csv
tar czf $OUT/s12c1.tgz -C /tmp s12c1
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/A .device-carry/E -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths deepseek_v3_tp8_shared_prefix \
  kimi_k2_tp8_eagle/batch.size=8 kimi_k2_tp8_128k_batch8 \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_decode/batch.size=8,pages.size=64' \
  kimi_k2_tp8_dflash16/batch.size=1 > $O/ab.txt 2>&1
tail -n 16 $O/ab.txt | cut -c1-190
tar czf $OUT/s12c1.tgz -C /tmp s12c1
