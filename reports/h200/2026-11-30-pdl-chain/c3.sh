#!/usr/bin/env bash
# Session 14, call 3: validation of P (the build with FlashVerifyLaunchOptions): GPU tests;
# correctness, perf (67 cases, ceilings in the same run, modes cold, graph, chain and
# chain-pdl), memcheck / initcheck / synccheck; the nightly gate against the committed baseline.
tar xJf .device-carry/s14-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s14c3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/P && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-P.log 2>&1; echo "P tests rc=$? $(tail -n 1 $O/gpu-tests-P.log)"
VB_PERF_MODES=cold,graph,chain,chain-pdl VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" \
  timeout 440 scripts/lab_run.sh .device-carry/P $O/final correctness perf sanitize-fast 2>&1 | tail -n 6
tar czf $OUT/s14c3.tgz -C /tmp s14c3
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/P/run.sh \
  timeout 100 scripts/nightly.sh > $O/nightly.log 2>&1; echo "nightly rc=$?"; tail -n 3 $O/nightly.log
tar czf $OUT/s14c3.tgz -C /tmp s14c3
