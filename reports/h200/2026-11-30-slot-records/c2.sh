#!/usr/bin/env bash
# Session 13, call 2: where the combine's time after its grid wait goes, and the producer's
# way to its first copies. NT = HEAD with the phase timeline (two more combine stamps: first
# partials' loads issued, merged; one more main stamp: first page-table words in). Its GPU
# tests (the stamps' order), then timelines of six cases.
tar xJf .device-carry/s13-c2.tar.xz -C .device-carry || exit 1
O=/tmp/s13c2; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/NT && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-NT.log 2>&1; echo "NT tests rc=$? $(tail -n 1 $O/gpu-tests-NT.log)"
i=0
for c in 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
         'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_decode/batch.size=8,pages.size=64' \
         kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths; do
  i=$((i+1))
  timeout 40 .device-carry/NT/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline-$i.csv > $O/timeline-$i.txt 2>&1; echo "timeline $i $c rc=$?"
  grep -E "host events around|length loaded|page-table words in|copies issued|Q in reg|tile landed|grid wait done|last main end -> last" $O/timeline-$i.txt | cut -c1-110
done
gzip -q $O/*.csv
tar czf $OUT/s13c2.tgz -C /tmp s13c2
