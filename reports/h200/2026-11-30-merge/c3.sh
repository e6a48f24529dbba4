#!/usr/bin/env bash
# Session 11, call 3: B = one block per SM and row tile for tile-balanced plans whose blocks
# stay long (commit in B/BUILD_INFO.txt; kernels' machine code identical to b6c80f5's);
# O = b6c80f5. GPU tests of B; A/B 4 rounds over the three cases whose plan changed and two
# that must not move; then B's validation: correctness, perf (67 cases, ceilings in the same
# run), memcheck / initcheck / synccheck of the correctness file.
tar xJf .device-carry/s11-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s11c3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/B && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-B.log 2>&1; echo "B tests rc=$? $(tail -n 1 $O/gpu-tests-B.log)"
AB_SKIP_TESTS=1 AB_ROUNDS=4 timeout 130 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/O -- \
  kimi_k2_tp8_mixed_lengths deepseek_v3_tp8_shared_prefix kimi_k2_tp8_eagle/batch.size=32 \
  kimi_k2_tp8_skewed_lengths kimi_k2_tp8_eagle/batch.size=8 > $O/ab.txt 2>&1
tail -n 6 $O/ab.txt | cut -c1-250
tar czf $OUT/s11c3.tgz -C /tmp s11c3
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 360 scripts/lab_run.sh .device-carry/B $O/final correctness perf sanitize-fast 2>&1 | tail -n 6
tar czf $OUT/s11c3.tgz -C /tmp s11c3
