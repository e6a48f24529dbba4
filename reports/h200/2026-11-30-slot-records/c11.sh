#!/usr/bin/env bash
# Session 13, call 11: call 10's nightly gate failed on the naive executor alone
# (nightly_kimi_mtp4_b8_p16k, 12.09 against 11.36 ms; the naive kernel did not change). The
# gate again with BASELINE_BIN = G (b28e6eb, whose run is the baseline): its confirmation runs
# interleave the two binaries, which tells a kernel change from a run-to-run one.
tar xJf .device-carry/s13-c11.tar.xz -C .device-carry || exit 1
O=/tmp/s13c11; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
BASELINE_BIN=$PWD/.device-carry/G/run.sh VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly-vs-G \
  VERIFYBENCH=$PWD/.device-carry/F/run.sh timeout 280 scripts/nightly.sh > $O/nightly-vs-G.log 2>&1; echo "nightly vs G rc=$?"
tail -n 3 $O/nightly-vs-G.log
tar czf $OUT/s13c11.tgz -C /tmp s13c11
