#!/usr/bin/env bash
# Session 7, call 3: N = ad016f1 (default build: session 6's kernels plus two unused combine
# instances), M = N with -DVB_MAX_SPLITS=192, W = N with -DVB_WIDE_PARTIAL_STORES=1, MW = both;
# WT = W with the timeline. GPU tests of N/M/W/MW (inside ab_bundles), timelines with WT,
# A/B N / M / W / MW (2 rounds).
tar xJf .device-carry/s7-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s7c3; mkdir -p $O/timeline
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $O/nvidia-smi.txt 2>&1
i=0
for c in 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8'; do
  i=$((i+1))
  timeout 60 .device-carry/WT/run.sh profile scenarios/perf.yaml --case "$c" --launches 7 --timeline $O/timeline/$i.csv > $O/timeline/$i.txt 2>&1
  echo "rc=$?" >> $O/timeline/$i.txt
done
tar czf $OUT/s7c3.tgz -C /tmp s7c3
AB_ROUNDS=2 scripts/ab_bundles.sh $O/ab .device-carry/N .device-carry/M .device-carry/W .device-carry/MW -- \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[32768]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' \
  'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8' 'kimi_k2_tp8_decode/batch.size=8,pages.size=1' \
  'kimi_k2_tp8_mixed_lengths' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[4096]' \
  'sglang_peer_b1_h16_t4_p4k' 'deepseek_v3_tp8_eagle/batch.size=1' 'kimi_k2_tp8_128k_batch8' > $O/ab.log 2>&1
tar czf $OUT/s7c3.tgz -C /tmp s7c3
head -n 4 $O/ab.log; tail -n 15 $O/ab.log | cut -c1-250
for f in $O/timeline/*.txt; do echo "== $f"; sed -n '1p' $f | cut -c1-150; grep -E "device span|host events|per tile|epilogue|lifetime|imbalance|last main end -> last" $f; done
