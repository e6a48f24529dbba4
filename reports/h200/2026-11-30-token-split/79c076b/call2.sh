#!/usr/bin/env bash
# Session 6, call 2: validation of 79c076b (B: token split from 16 tiles per split), A/B vs
# 2a52ae1 (A), nightly gate, ncu durations of main and combine kernels on small cases.
O=/tmp/c2; mkdir -p $O
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" scripts/lab_run.sh .device-carry/B $O/final tests correctness perf sanitize-fast > $O/final.log 2>&1
tail -n 8 $O/final.log
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/B/run.sh scripts/nightly.sh > $O/nightly.log 2>&1
echo "nightly rc=$? $(grep -E '^(gate|verdict|PASS|FAIL)' $O/nightly.log | tail -n 2)"; tail -n 3 $O/nightly.log
AB_ROUNDS=2 scripts/ab_bundles.sh $O/ab .device-carry/A .device-carry/B -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=1' 'kimi_k2_tp8_decode/batch.size=8,pages.size=1' \
  'kimi_k2_tp8_decode/batch.size=32,pages.size=1' 'kimi_k2_tp8_decode/batch.size=64,pages.size=1' \
  'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=32' \
  'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=64' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' > $O/ab.log 2>&1
tail -n 10 $O/ab.log
for c in 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8' \
         'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' 'kimi_k2_tp8_decode/batch.size=1,pages.size=1' \
         'kimi_k2_tp8_mixed_lengths'; do
  n=$(echo "$c" | tr -c 'A-Za-z0-9_\n' '_')
  timeout 60 ncu --clock-control none --target-processes all -k regex:flash_verify \
    --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max \
    .device-carry/B/run.sh profile scenarios/perf.yaml --case "$c" > $O/ncu-$n.log 2>&1
  echo "== $c rc=$?"; grep -E "flash_verify|gpu__time|dram__|sm__cycles" $O/ncu-$n.log | tail -n 16
done > $O/ncu.txt
cat $O/ncu.txt | cut -c1-160 | tail -n 60
tar czf $OUT/c2.tgz -C /tmp c2
