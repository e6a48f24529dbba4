#!/usr/bin/env bash
# Session 13, call 6: the nightly gate with V (9ebf893, validated in call 5) against the
# committed baseline (b28e6eb's run); when a regression is reported, again with BASELINE_BIN =
# G (b28e6eb), which tells a kernel change from a run-to-run one.
tar xJf .device-carry/s13-c6.tar.xz -C .device-carry || exit 1
O=/tmp/s13c6; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/V/run.sh \
  timeout 240 scripts/nightly.sh > $O/nightly.log 2>&1; rc=$?; echo "nightly rc=$rc"; tail -n 4 $O/nightly.log
tar czf $OUT/s13c6.tgz -C /tmp s13c6
if [[ $rc != 0 ]]; then
  BASELINE_BIN=$PWD/.device-carry/G/run.sh VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly-vs-G \
    VERIFYBENCH=$PWD/.device-carry/V/run.sh timeout 300 scripts/nightly.sh > $O/nightly-vs-G.log 2>&1; echo "nightly vs G rc=$?"
  tail -n 4 $O/nightly-vs-G.log
  tar czf $OUT/s13c6.tgz -C /tmp s13c6
fi
