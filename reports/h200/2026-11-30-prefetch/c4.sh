#!/usr/bin/env bash
# Session 10, call 4. (1) The nightly gate of D (f015a68) again, its "slower" cases
# re-measured interleaved with B0 (a2c9537, the same naive kernel) as BASELINE_BIN: call 3's
# gate failed on the naive executor alone (11.32 -> 12.08 ms), whose kernel has not changed
# since 8338ad1. (2) D8 = D with 8 loads per round of the tile-balanced combine's
# long-request loop (the skewed batch's longest combine block took 10.9 us, call 3):
# D8's GPU tests; D / D8 A/B, 3 rounds, on the tile-balanced cases.
tar xJf .device-carry/s10-c4.tar.xz -C .device-carry || exit 1
O=/tmp/s10c4; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/D8 && timeout 60 ./run_gpu_tests.sh ) > $O/gpu-tests-D8.log 2>&1; echo "D8 tests rc=$? $(tail -n 1 $O/gpu-tests-D8.log)"
AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 200 scripts/ab_bundles.sh $O/ab .device-carry/D .device-carry/D8 -- \
  kimi_k2_tp8_skewed_lengths kimi_k2_tp8_mixed_lengths deepseek_v3_tp8_shared_prefix kimi_k2_tp8_eagle/batch.size=32 > $O/ab.txt 2>&1
tail -n 5 $O/ab.txt
tar czf $OUT/s10c4.tgz -C /tmp s10c4
BASELINE_BIN=$PWD/.device-carry/B0/run.sh VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/D/run.sh timeout 200 scripts/nightly.sh > $O/nightly.log 2>&1; echo "nightly rc=$?"; grep -E "slower|re-measuring|FAIL|PASS" $O/nightly.log | tail -n 6
tar czf $OUT/s10c4.tgz -C /tmp s10c4
