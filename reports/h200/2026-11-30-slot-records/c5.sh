#!/usr/bin/env bash
# Session 13, call 5: validation of V = 9ebf893 (machine code of 2a8e431: tile-balanced slot
# records read by the combine, early page-table base): GPU tests, then correctness, perf (67
# cases, ceilings in the same run), memcheck / initcheck / synccheck.
tar xJf .device-carry/s13-c5.tar.xz -C .device-carry || exit 1
O=/tmp/s13c5; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/V && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-V.log 2>&1; echo "V tests rc=$? $(tail -n 1 $O/gpu-tests-V.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 420 scripts/lab_run.sh .device-carry/V $O/final correctness perf sanitize-fast 2>&1 | tail -n 6
tar czf $OUT/s13c5.tgz -C /tmp s13c5
