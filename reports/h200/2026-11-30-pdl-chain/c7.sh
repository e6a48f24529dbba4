#!/usr/bin/env bash
# Session 14, call 7: the nightly gate for Q (62a1cfe, the session's last kernel change), with
# the baseline's own build (G = b28e6eb, whose run is reports/baselines/nvidia-h200.json)
# re-measured in the same call (BASELINE_BIN): call 3's plain gate failed on the naive
# executor alone, as in session 13's call 10.
tar xJf .device-carry/s14-c7.tar.xz -C .device-carry || exit 1
O=/tmp/s14c7; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
BASELINE_BIN=$PWD/.device-carry/G/run.sh VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly-vs-G \
  VERIFYBENCH=$PWD/.device-carry/Q/run.sh timeout 300 scripts/nightly.sh > $O/nightly-vs-G.log 2>&1; echo "nightly vs G rc=$?"
tail -n 3 $O/nightly-vs-G.log
tar czf $OUT/s14c7.tgz -C /tmp s14c7
