#!/usr/bin/env bash
# Session 13, call 10: validation of F = d265552 (9ebf893 plus the combine's warm pass for its
# instances of 12 and 16 loads): GPU tests; correctness, perf (67 cases, ceilings in the same
# run), memcheck / initcheck / synccheck; the nightly gate against the committed baseline.
tar xJf .device-carry/s13-c10.tar.xz -C .device-carry || exit 1
O=/tmp/s13c10; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/F && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-F.log 2>&1; echo "F tests rc=$? $(tail -n 1 $O/gpu-tests-F.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 330 scripts/lab_run.sh .device-carry/F $O/final correctness perf sanitize-fast 2>&1 | tail -n 6
tar czf $OUT/s13c10.tgz -C /tmp s13c10
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/F/run.sh \
  timeout 200 scripts/nightly.sh > $O/nightly.log 2>&1; echo "nightly rc=$?"; tail -n 3 $O/nightly.log
tar czf $OUT/s13c10.tgz -C /tmp s13c10
