#!/usr/bin/env bash
# Session 15, call 12: N8 = 57f049e (review mends: the packing kernel through the warp::
# helpers, one even-waves lambda in the planner, a DelayedCopyRig in the GPU tests; kernel
# machine code compared identical for sm_90). MN8 = N8 with -DVB_DEBUG_NO_PREREQUISITE_WAIT=1:
# both delayed-writer tests must FAIL on all six plans. N8's GPU tests twice, correctness.
tar xJf .device-carry/s15-c12.tar.xz -C .device-carry || exit 1
O=/tmp/s15c12; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
for i in 1 2; do
  ( cd .device-carry/N8 && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-N8-$i.log 2>&1; echo "N8 tests ($i) rc=$? $(tail -n 1 $O/gpu-tests-N8-$i.log)"
done
for t in 'over a kernel still writing the mask and the lengths*' 'launched over a kernel still writing its Q*'; do
  ( cd .device-carry/MN8 && timeout 60 ./run_gpu_tests.sh "$t" ) >> $O/gpu-tests-MN8-mutation.log 2>&1; echo "MN8 (mutation) '$t' rc=$?"
done
grep -E "FAILED:" -A1 $O/gpu-tests-MN8-mutation.log | grep -E "CHECK|REQUIRE" | sort | uniq -c | head -n 8
grep -E "splits" $O/gpu-tests-MN8-mutation.log | sort | uniq -c
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 60 scripts/lab_run.sh .device-carry/N8 $O/final correctness 2>&1 | tail -n 2
tar czf $OUT/s15c12.tgz -C /tmp s15c12
