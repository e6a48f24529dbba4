#!/usr/bin/env bash
# Session 17, call 6: the full perf set (every case timed, every executor checked against the
# reference) with T4 = 528963f, the session's last change to kernels/ (its GPU tests and
# correctness set passed in call 5, T3's sanitizers in call 4: the same kernel machine code).
tar xJf .device-carry/s17-c6.tar.xz -C .device-carry || exit 1
O=/tmp/s17c6; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 300 scripts/lab_run.sh .device-carry/T4 $O/final perf 2>&1 | tail -n 3
tar czf $OUT/s17c6.tgz -C /tmp s17c6
