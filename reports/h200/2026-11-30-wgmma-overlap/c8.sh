#!/usr/bin/env bash
# Session 16, call 8: the full perf set (scenarios/perf.yaml, cold and graph samples, every
# executor checked against the reference) with F4 = 3133fc4 (the wgmma softmax changes of
# calls 5-7), for the issue-5 goals table. Its GPU tests, correctness and sanitizers passed in
# call 7.
tar xJf .device-carry/s16-c8.tar.xz -C .device-carry || exit 1
O=/tmp/s16c8; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 330 scripts/lab_run.sh .device-carry/F4 $O/final perf 2>&1 | tail -n 3
tar czf $OUT/s16c8.tgz -C /tmp s16c8
