#!/usr/bin/env bash
# Session 15, call 8: N6 = 57f1468 (d01cdd0's kernels; the two delayed-writer tests share one
# helper). MN6 = N6 with -DVB_DEBUG_NO_PREREQUISITE_WAIT=1: both tests must FAIL on all six
# plans. N6's GPU tests twice.
tar xJf .device-carry/s15-c8.tar.xz -C .device-carry || exit 1
O=/tmp/s15c8; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
for i in 1 2; do
  ( cd .device-carry/N6 && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-N6-$i.log 2>&1; echo "N6 tests ($i) rc=$? $(tail -n 1 $O/gpu-tests-N6-$i.log)"
done
for t in 'over a kernel still writing the mask and the lengths*' 'launched over a kernel still writing its Q*'; do
  ( cd .device-carry/MN6 && timeout 60 ./run_gpu_tests.sh "$t" ) >> $O/gpu-tests-MN6-mutation.log 2>&1; echo "MN6 (mutation) '$t' rc=$?"
done
grep -E "FAILED:" -A1 $O/gpu-tests-MN6-mutation.log | grep -E "CHECK|REQUIRE" | sort | uniq -c | head -n 8
grep -E "splits" $O/gpu-tests-MN6-mutation.log | sort | uniq -c
tar czf $OUT/s15c8.tgz -C /tmp s15c8
