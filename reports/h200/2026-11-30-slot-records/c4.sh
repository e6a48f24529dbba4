#!/usr/bin/env bash
# Session 13, call 4: the tile-balanced walk's 32-bit divisions and first page-table base from a
# per-lane load beside the lengths (W = the commit before this script's). N = 2a8e431's machine
# code. GPU tests and correctness of W; timelines of WT (W with the phase timeline) on the two
# balanced batches; A/B of N and W, 3 rounds, 4 tile-balanced cases and 3 controls.
tar xJf .device-carry/s13-c4.tar.xz -C .device-carry || exit 1
O=/tmp/s13c4; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/W && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-W.log 2>&1; echo "W tests rc=$? $(tail -n 1 $O/gpu-tests-W.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 90 scripts/lab_run.sh .device-carry/W $O/W correctness 2>&1 | tail -n 2
i=0
for c in kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths; do
  i=$((i+1))
  timeout 40 .device-carry/WT/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline-$i.csv > $O/timeline-$i.txt 2>&1; echo "timeline $i $c rc=$?"
  grep -E "host events around|length loaded|page-table words in|copies issued|Q in reg|tile landed" $O/timeline-$i.txt | cut -c1-110
done
gzip -q $O/*.csv
tar czf $OUT/s13c4.tgz -C /tmp s13c4
AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/N .device-carry/W -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths deepseek_v3_tp8_shared_prefix kimi_k2_tp8_eagle/batch.size=32 \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' kimi_k2_tp8_128k_batch8 > $O/ab.txt 2>&1
tail -n 9 $O/ab.txt | cut -c1-240
tar czf $OUT/s13c4.tgz -C /tmp s13c4
