#!/usr/bin/env bash
# Session 17, call 7: the new correctness case tma_runs_mixed_tile (a tile whose producer warps
# mix TMA boxes and the gather) with T4 = 528963f (the kernels of HEAD) and with the mutant M3
# (every box one row off: must fail it), then T4 on the whole correctness set (60 cases).
tar xJf .device-carry/s17-c7.tar.xz -C .device-carry || exit 1
O=/tmp/s17c7; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
timeout 60 .device-carry/T4/run.sh run scenarios/correctness.yaml --case tma_runs_mixed_tile --out-dir $O/T4-case > $O/T4-case.log 2>&1
echo "T4 rc=$? $(grep '^summary' $O/T4-case.log)"
timeout 60 .device-carry/M3/run.sh run scenarios/correctness.yaml --case tma_runs_mixed_tile --out-dir $O/M3-case > $O/M3-case.log 2>&1
echo "M3 (mutant) rc=$? (1 expected) $(grep '^summary' $O/M3-case.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/T4 $O/T4 correctness 2>&1 | tail -n 2
tar czf $OUT/s17c7.tgz -C /tmp s17c7
