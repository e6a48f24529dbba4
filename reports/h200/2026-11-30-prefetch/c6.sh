#!/usr/bin/env bash
# Session 10, call 6. W = wide combine rows for tile-balanced plans (commit in
# W/BUILD_INFO.txt); D = f015a68 (validated in call 3). W's GPU tests; D / W A/B, 3 rounds,
# on the tile-balanced cases; W's full validation (GPU tests, correctness, perf, memcheck /
# initcheck / synccheck) and the nightly gate (slower cases re-measured interleaved with
# D); then phase timelines of the skewed and mixed-lengths batches with WT (W + timeline).
tar xJf .device-carry/s10-c6.tar.xz -C .device-carry || exit 1
O=/tmp/s10c6; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 120 scripts/ab_bundles.sh $O/ab .device-carry/D .device-carry/W -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths deepseek_v3_tp8_shared_prefix kimi_k2_tp8_eagle/batch.size=32 \
  kimi_k2_tp8_eagle/batch.size=8 > $O/ab.txt 2>&1
tail -n 6 $O/ab.txt
tar czf $OUT/s10c6.tgz -C /tmp s10c6
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 300 scripts/lab_run.sh .device-carry/W $O/final tests correctness perf sanitize-fast 2>&1 | tail -n 8
tar czf $OUT/s10c6.tgz -C /tmp s10c6
BASELINE_BIN=$PWD/.device-carry/D/run.sh VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/W/run.sh timeout 150 scripts/nightly.sh > $O/nightly.log 2>&1; echo "nightly rc=$?"; grep -E "re-measuring|FAIL|PASS" $O/nightly.log | tail -n 3
tar czf $OUT/s10c6.tgz -C /tmp s10c6
for c in kimi_k2_tp8_skewed_lengths kimi_k2_tp8_mixed_lengths; do
  timeout 40 .device-carry/WT/run.sh profile scenarios/perf.yaml --case $c --launches 5 --timeline $O/timeline-$c.csv > $O/timeline-$c.txt 2>&1; echo "timeline $c rc=$?"
  grep -E "host events around|first entry -> last block end|last main end -> |grid wait done" $O/timeline-$c.txt
done
gzip -q $O/*.csv
tar czf $OUT/s10c6.tgz -C /tmp s10c6
