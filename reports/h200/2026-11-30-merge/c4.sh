#!/usr/bin/env bash
# Session 11, call 4: the nightly gate with B (the validated build of call 3) against the
# committed baseline; when a regression is reported, again with BASELINE_BIN = O (b6c80f5,
# the same naive kernel), which tells a kernel change from a run-to-run one.
tar xJf .device-carry/s11-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s11c4; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/B/run.sh \
  timeout 200 scripts/nightly.sh > $O/nightly.log 2>&1; rc=$?; echo "nightly rc=$rc"; tail -n 4 $O/nightly.log
tar czf $OUT/s11c4.tgz -C /tmp s11c4
if [[ $rc != 0 ]]; then
  BASELINE_BIN=$PWD/.device-carry/O/run.sh VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly-vs-O \
    VERIFYBENCH=$PWD/.device-carry/B/run.sh timeout 250 scripts/nightly.sh > $O/nightly-vs-O.log 2>&1; echo "nightly vs O rc=$?"
  tail -n 4 $O/nightly-vs-O.log
  tar czf $OUT/s11c4.tgz -C /tmp s11c4
fi
