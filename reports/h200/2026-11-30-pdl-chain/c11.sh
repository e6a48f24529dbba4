#!/usr/bin/env bash
# Session 14, call 11: the full perf set (67 cases, ceilings in the same run, cold and graph
# samples) with R3 = 6299733, whose kernels are 62a1cfe's: every executor's cold samples taken
# without chains in between (call 3's non-production cold samples on large cases were not).
tar xJf .device-carry/s14-c10.tar.xz -C .device-carry || exit 1
O=/tmp/s14c11; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,temperature.memory --format=csv > $O/gpu.txt
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 230 scripts/lab_run.sh .device-carry/R3 $O/final perf 2>&1 | tail -n 3
tar czf $OUT/s14c11.tgz -C /tmp s14c11
