#!/usr/bin/env bash
# Session 10, call 3: full validation of f015a68 (D: the combine's lane choice counts the
# tile-balanced instances' bounds; kernels' PTX identical to a2c9537's): GPU tests,
# correctness (59 cases), perf (67 cases, ceilings measured in the same run), memcheck /
# initcheck / synccheck of the correctness file, the nightly gate against the committed
# baseline; then phase timelines of the skewed and mixed-lengths batches (DT = D with the
# timeline) for the combine tails.
tar xJf .device-carry/s10-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s10c3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 380 scripts/lab_run.sh .device-carry/D $O/final tests correctness perf sanitize-fast 2>&1 | tail -n 8
tar czf $OUT/s10c3.tgz -C /tmp s10c3
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/D/run.sh timeout 120 scripts/nightly.sh > $O/nightly.log 2>&1; echo "nightly rc=$?"; tail -n 3 $O/nightly.log
tar czf $OUT/s10c3.tgz -C /tmp s10c3
for c in kimi_k2_tp8_skewed_lengths kimi_k2_tp8_mixed_lengths; do
  timeout 60 .device-carry/DT/run.sh profile scenarios/perf.yaml --case $c --launches 5 --timeline $O/timeline-$c.csv > $O/timeline-$c.txt 2>&1; echo "timeline $c rc=$?"
  grep -E "host events around|per tile|first entry -> last block end|last main end -> |grid wait done" $O/timeline-$c.txt
done
gzip -q $O/*.csv
tar czf $OUT/s10c3.tgz -C /tmp s10c3
