#!/usr/bin/env bash
# Session 7, call 2: N = 87781d7 (length-aware plans hand working splits out first), NB = N
# with -DVB_PARTIALS_BF16=1, E = 95a6851 (64d94d7's kernels, session 6's final); NT = N with
# the timeline. GPU tests of N and NB (inside ab_bundles), correctness set with N and NB,
# timelines with NT, A/B E / N / NB (2 rounds).
tar xJf .device-carry/s7-c2.tar.xz -C .device-carry || exit 1
O=/tmp/s7c2; mkdir -p $O/timeline
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $O/nvidia-smi.txt 2>&1
for b in N NB; do
  timeout 200 .device-carry/$b/run.sh run scenarios/correctness.yaml --out-dir $O/correctness-$b > $O/correctness-$b.log 2>&1
  echo "$b correctness rc=$? $(grep '^summary' $O/correctness-$b.log)"
done
tar czf $OUT/s7c2.tgz -C /tmp s7c2
i=0
for c in 'kimi_k2_tp8_mixed_lengths' 'kimi_k2_tp8_eagle/batch.size=32' 'kimi_k2_tp8_eagle/batch.size=8'; do
  i=$((i+1))
  timeout 60 .device-carry/NT/run.sh profile scenarios/perf.yaml --case "$c" --launches 7 --timeline $O/timeline/$i.csv > $O/timeline/$i.txt 2>&1
  echo "rc=$?" >> $O/timeline/$i.txt
done
tar czf $OUT/s7c2.tgz -C /tmp s7c2
AB_ROUNDS=2 scripts/ab_bundles.sh $O/ab .device-carry/E .device-carry/N .device-carry/NB -- \
  'kimi_k2_tp8_mixed_lengths' 'kimi_k2_tp8_eagle/batch.size=8' 'kimi_k2_tp8_eagle/batch.size=32' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'deepseek_v3_dp128_decode/batch.size=8' \
  'kimi_k2_tp8_dflash16/batch.size=1' 'kimi_k2_tp8_decode/batch.size=8,pages.size=1' \
  'kimi_k2_tp8_decode/batch.size=64,pages.size=1' 'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' \
  'deepseek_v3_tp8_shared_prefix' > $O/ab.log 2>&1
tar czf $OUT/s7c2.tgz -C /tmp s7c2
head -n 3 $O/ab.log; tail -n 16 $O/ab.log | cut -c1-200
for f in $O/timeline/*.txt; do echo "== $f"; sed -n '1p' $f | cut -c1-150; grep -E "device span|host events|main kernel:|dispatch|lifetime|first entry -> last|imbalance|last main end -> last" $f; done
