#!/usr/bin/env bash
# Session 18, call 7: V19 = ad7c6a7 (v18 with the producer's stage wait last in the gather-only
# and page-box wgmma instances; their machine code is call 6's R, the others v18's). GPU tests,
# correctness set, memcheck / initcheck / synccheck, then the full perf set with the ceilings
# measured in the same run.
tar xJf .device-carry/s18-c7.tar.xz -C .device-carry || exit 1
O=/tmp/s18c7; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/V19 && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-V19.log 2>&1; echo "V19 tests rc=$? $(tail -n 1 $O/gpu-tests-V19.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 60 scripts/lab_run.sh .device-carry/V19 $O/V19 correctness 2>&1 | tail -n 2
timeout 90 scripts/lab_run.sh .device-carry/V19 $O/V19 sanitize-fast 2>&1 | tail -n 4
tar czf $OUT/s18c7.tgz -C /tmp s18c7
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 230 scripts/lab_run.sh .device-carry/V19 $O/final perf 2>&1 | tail -n 3
tar czf $OUT/s18c7.tgz -C /tmp s18c7
