#!/usr/bin/env bash
# Session 13, call 3: the combine's bf16 partials converted after all loads are issued (N3 =
# the commit before this script's). G = b28e6eb; N = 2a8e431's machine code (slot records,
# early page-table base; call 1). GPU tests and correctness of N3; timelines of N3T on three
# cases; A/B of G, N, N3, 2 rounds, 16 cases (fixed-size and even split plans on both paths,
# two tile-balanced controls).
tar xJf .device-carry/s13-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s13c3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/N3 && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-N3.log 2>&1; echo "N3 tests rc=$? $(tail -n 1 $O/gpu-tests-N3.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 90 scripts/lab_run.sh .device-carry/N3 $O/N3 correctness 2>&1 | tail -n 2
i=0
for c in 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
         'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8'; do
  i=$((i+1))
  timeout 40 .device-carry/N3T/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline-$i.csv > $O/timeline-$i.txt 2>&1; echo "timeline $i $c rc=$?"
  grep -E "host events around|grid wait done|last main end -> last" $O/timeline-$i.txt | cut -c1-110
done
gzip -q $O/*.csv
tar czf $OUT/s13c3.tgz -C /tmp s13c3
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/G .device-carry/N .device-carry/N3 -- \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[4096]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=32' 'kimi_k2_tp8_decode/batch.size=1,pages.size=64' \
  'kimi_k2_tp8_decode/batch.size=8,pages.size=64' deepseek_v3_dp128_decode/batch.size=8 kimi_k2_tp8_dflash16/batch.size=1 \
  sglang_peer_b8_h16_t4_p4k kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths > $O/ab.txt 2>&1
tail -n 18 $O/ab.txt | cut -c1-200
tar czf $OUT/s13c3.tgz -C /tmp s13c3
