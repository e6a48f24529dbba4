#!/usr/bin/env bash
# Session 12, call 10: phase timelines of the final kernels (GT = b28e6eb's kernels with the
# timeline, built at the commit of this script) on the cases of the fixed-cost table in
# reports/h200/2026-11-30-timeline/README.md (with bf16 partials), for NOTES item 3.
tar xJf .device-carry/s12-c10.tar.xz -C .device-carry || exit 1
O=/tmp/s12c10; mkdir -p $O/timeline
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
i=0
for c in 'kimi_k2_tp8_decode/batch.size=1,pages.size=1' 'kimi_k2_tp8_decode/batch.size=8,pages.size=64' \
         'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
         'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[4096]' \
         'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
         'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' 'deepseek_v3_dp128_decode/batch.size=8' kimi_k2_tp8_mixed_lengths; do
  i=$((i + 1))
  timeout 40 .device-carry/GT/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline/$i.csv > $O/timeline/$i.txt 2>&1
  echo "timeline $i $c rc=$?"
done
gzip -q $O/timeline/*.csv
python3 scripts/timeline_table.py $O/timeline > $O/timeline-table.md 2>&1; cat $O/timeline-table.md | cut -c1-200
tar czf $OUT/s12c10.tgz -C /tmp s12c10
