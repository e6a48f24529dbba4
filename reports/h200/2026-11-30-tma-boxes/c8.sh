#!/usr/bin/env bash
# Session 17, call 8: T5 = the commit in its BUILD_INFO.txt (the TMA-box rule moved into
# flash_verify_wgmma_tma_boxes, shared by the launcher and the reports; kernel machine code
# identical to T4's). GPU tests, the correctness set, and the plan string of one case.
tar xJf .device-carry/s17-c8.tar.xz -C .device-carry || exit 1
O=/tmp/s17c8; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
cp .device-carry/T5/BUILD_INFO.txt $O/
( cd .device-carry/T5 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-T5.log 2>&1; echo "T5 tests rc=$? $(tail -n 1 $O/gpu-tests-T5.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/T5 $O/T5 correctness 2>&1 | tail -n 2
grep -o 'path=[^"]*' $O/T5/correctness/result.json | sort | uniq -c | grep tma_boxes | head -n 5
tar czf $OUT/s17c8.tgz -C /tmp s17c8
