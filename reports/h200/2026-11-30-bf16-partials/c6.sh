#!/usr/bin/env bash
# Session 12, call 6: bf16 partials in the wgmma path's tile-balanced instance too. G = b28e6eb
# (fp32 partials under the tile-balanced schedule); BB = the tree at 41329f5+ with
# -DVB_WGMMA_BALANCED_BF16_PARTIALS=1 (the pair swap straight from the accumulators; the
# instance's code grows 74.9 -> 93.7 KB); GT / BBT = the timeline builds. GPU tests and
# correctness of BB; timelines of GT and BBT on mixed lengths and the skewed batch; A/B of G
# and BB, 3 rounds, the four tile-balanced cases and two fixed-split controls.
tar xJf .device-carry/s12-c6.tar.xz -C .device-carry || exit 1
O=/tmp/s12c6; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/BB && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-BB.log 2>&1; echo "BB tests rc=$? $(tail -n 1 $O/gpu-tests-BB.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 150 scripts/lab_run.sh .device-carry/BB $O/BB correctness 2>&1 | tail -n 3
for c in kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths; do
  for v in GT BBT; do
    timeout 40 .device-carry/$v/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline-$v-$c.csv > $O/timeline-$v-$c.txt 2>&1; echo "timeline $v $c rc=$?"
    grep -E "host events around|per tile|loop done -> last store|last main end -> last combine" $O/timeline-$v-$c.txt
  done
done
gzip -q $O/*.csv
tar czf $OUT/s12c6.tgz -C /tmp s12c6
AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/G .device-carry/BB -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths deepseek_v3_tp8_shared_prefix kimi_k2_tp8_eagle/batch.size=32 \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' kimi_k2_tp8_128k_batch8 > $O/ab.txt 2>&1
tail -n 8 $O/ab.txt | cut -c1-250
tar czf $OUT/s12c6.tgz -C /tmp s12c6
