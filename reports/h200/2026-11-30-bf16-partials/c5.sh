#!/usr/bin/env bash
# Session 12, call 5: the nightly gate with G (b28e6eb, validated in call 4) against the
# committed baseline; when a regression is reported, again with BASELINE_BIN = A (3679d5c,
# session 11's last build, the same naive kernel), which tells a kernel change from a
# run-to-run one.
tar xJf .device-carry/s12-c5.tar.xz -C .device-carry || exit 1
O=/tmp/s12c5; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/G/run.sh \
  timeout 220 scripts/nightly.sh > $O/nightly.log 2>&1; rc=$?; echo "nightly rc=$rc"; tail -n 4 $O/nightly.log
tar czf $OUT/s12c5.tgz -C /tmp s12c5
if [[ $rc != 0 ]]; then
  BASELINE_BIN=$PWD/.device-carry/A/run.sh VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly-vs-A \
    VERIFYBENCH=$PWD/.device-carry/G/run.sh timeout 300 scripts/nightly.sh > $O/nightly-vs-A.log 2>&1; echo "nightly vs A rc=$?"
  tail -n 4 $O/nightly-vs-A.log
  tar czf $OUT/s12c5.tgz -C /tmp s12c5
fi
