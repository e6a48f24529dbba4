#!/usr/bin/env bash
# Session 14, call 5: the slow state of chain-pdl on large one-wave launches (call 4: MTP T4
# B64 335 against 313 us per launch, the layout cases +5-9 %; not the combine's trigger: T0, T2
# alike). Timelines (PT = P with the phase timeline) of many chain-pdl samples, to compare
# the slow samples' blocks (SMs, rates) with the fast ones'; chain samples for reference.
tar xJf .device-carry/s14-c4.tar.xz -C .device-carry || exit 1
O=/tmp/s14c5; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
i=0
for c in 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' 'layout_b64_h8_t4_p16k/pages.placement=interleaved'; do
  for m in chain-pdl chain; do
    i=$((i+1))
    n=40; [[ $m == chain ]] && n=16
    timeout 90 .device-carry/PT/run.sh profile scenarios/perf.yaml --case "$c" --launches $n --timeline $O/timeline-$i.csv \
      --timeline-mode $m > $O/timeline-$i.txt 2>&1; echo "timeline $i $m $c rc=$?"
    grep -E "host event times" $O/timeline-$i.txt | cut -c1-400
  done
done
gzip -q $O/*.csv
tar czf $OUT/s14c5.tgz -C /tmp s14c5
