#!/usr/bin/env bash
# Session 9, call 7. X = tile-balanced plans with one block per SM and row tile (132 on the
# H200; commit in X/BUILD_INFO.txt), X128 = X with -DVB_BALANCE_MAX_BLOCKS=128 (a878038's
# plans). X's GPU tests (tile-balanced plans now up to 200 blocks); X128 / X A/B, 2 rounds,
# on the cases whose plans change (plus the skewed batch, unchanged: 128 of its 132 blocks
# hold tiles either way); then X's full validation and the nightly gate, in case X is kept.
tar xJf .device-carry/s9-c7.tar.xz -C .device-carry || exit 1
O=/tmp/s9c7; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 160 scripts/ab_bundles.sh $O/ab .device-carry/X128 .device-carry/X -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_eagle/batch.size=8 kimi_k2_tp8_eagle/batch.size=32 \
  deepseek_v3_tp8_shared_prefix kimi_k2_tp8_skewed_lengths > $O/ab.txt 2>&1
tail -n 6 $O/ab.txt
tar czf $OUT/s9c7.tgz -C /tmp s9c7
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 330 scripts/lab_run.sh .device-carry/X $O/final tests correctness perf sanitize-fast 2>&1 | tail -n 8
tar czf $OUT/s9c7.tgz -C /tmp s9c7
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/X/run.sh timeout 100 scripts/nightly.sh > $O/nightly.log 2>&1; echo "nightly rc=$?"; tail -n 3 $O/nightly.log
tar czf $OUT/s9c7.tgz -C /tmp s9c7
