#!/usr/bin/env bash
# Session 8, call 5: the final kernels (B): GPU tests; an A/B of the tile-balanced combine
# (B: lanes hold 8 slots, a long request's rows loop over the rest; BS: lanes sized for the
# most slots, as in call 4) against H (c9b9d82 = 4a2658c's PTX), 2 rounds; a timeline of the
# skewed case (BT); racecheck of the tile-balanced correctness case in the every-lane-arrives
# build (BL, whose stage protocol racecheck accepts); then B's full validation: correctness,
# perf (66 + 1 cases, in-run ceilings), memcheck/initcheck/synccheck, and the nightly gate.
tar xJf .device-carry/s8-c5.tar.xz -C .device-carry || exit 1
O=/tmp/s8c5; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 200 scripts/ab_bundles.sh $O/ab .device-carry/H .device-carry/B .device-carry/BS -- \
  kimi_k2_tp8_skewed_lengths kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tail -n 3 $O/ab.txt
grep -rho 'splits=[^"]*' $O/ab/perf-B-1/ | sort | uniq -c
tar czf $OUT/s8c5.tgz -C /tmp s8c5
timeout 60 .device-carry/BT/run.sh profile scenarios/perf.yaml --case kimi_k2_tp8_skewed_lengths --launches 5 --timeline $O/timeline-skewed.csv > $O/timeline-skewed.txt 2>&1; echo "timeline rc=$?"
gzip -q $O/*.csv; grep -E "host events around|block lifetime|imbalance|combine: |last main end -> last combine" $O/timeline-skewed.txt
LD_LIBRARY_PATH=$PWD/.device-carry/BL/lib timeout 120 compute-sanitizer --tool racecheck --error-exitcode 99 .device-carry/BL/bin/verifybench run \
  scenarios/correctness.yaml --case tile_balanced_skewed --out-dir $O/racecheck-balanced > $O/racecheck-balanced.log 2>&1
echo "racecheck balanced (BL) rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|^summary' $O/racecheck-balanced.log | tr '\n' ' ')"
tar czf $OUT/s8c5.tgz -C /tmp s8c5
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 330 scripts/lab_run.sh .device-carry/B $O/final tests correctness perf sanitize-fast 2>&1 | tail -n 8
tar czf $OUT/s8c5.tgz -C /tmp s8c5
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/B/run.sh timeout 90 scripts/nightly.sh > $O/nightly.log 2>&1; echo "nightly rc=$?"; tail -n 3 $O/nightly.log
tar czf $OUT/s8c5.tgz -C /tmp s8c5
