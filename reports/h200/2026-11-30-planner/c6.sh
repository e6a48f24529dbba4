#!/usr/bin/env bash
# Session 9, call 6: full validation of a878038 (FINAL: the planner's page-size rule, every
# fixed split size, the wgmma path's tile-balanced schedule): GPU tests, correctness (59
# cases), perf (67 cases, ceilings measured in the same run), memcheck / initcheck /
# synccheck of the correctness file, and the nightly gate against the committed baseline.
tar xJf .device-carry/s9-c6.tar.xz -C .device-carry || exit 1
O=/tmp/s9c6; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 380 scripts/lab_run.sh .device-carry/FINAL $O/final tests correctness perf sanitize-fast 2>&1 | tail -n 8
tar czf $OUT/s9c6.tgz -C /tmp s9c6
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/FINAL/run.sh timeout 120 scripts/nightly.sh > $O/nightly.log 2>&1; echo "nightly rc=$?"; tail -n 3 $O/nightly.log
tar czf $OUT/s9c6.tgz -C /tmp s9c6
