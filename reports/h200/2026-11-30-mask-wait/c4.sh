#!/usr/bin/env bash
# Session 15, call 4: N4 = 20fb894 (272bf22's kernels; the delayed mask-and-lengths test
# now loads each plan's over-writer instance before it relies on the early start). MN4 = N4
# with -DVB_DEBUG_NO_PREREQUISITE_WAIT=1: that test must now FAIL on all six plans, the Q
# test too. N4's GPU tests (three times: the overlap tests depend on timing).
tar xJf .device-carry/s15-c4.tar.xz -C .device-carry || exit 1
O=/tmp/s15c4; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
for i in 1 2 3; do
  ( cd .device-carry/N4 && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-N4-$i.log 2>&1; echo "N4 tests ($i) rc=$? $(tail -n 1 $O/gpu-tests-N4-$i.log)"
done
for t in 'over a kernel still writing the mask and the lengths*' 'launched over a kernel still writing its Q*'; do
  ( cd .device-carry/MN4 && timeout 60 ./run_gpu_tests.sh "$t" ) >> $O/gpu-tests-MN4-mutation.log 2>&1; echo "MN4 (mutation) '$t' rc=$?"
done
grep -E "FAILED:" -A1 $O/gpu-tests-MN4-mutation.log | grep -E "CHECK|REQUIRE" | sort | uniq -c | head -n 8
grep -E "splits" $O/gpu-tests-MN4-mutation.log | sort | uniq -c
tar czf $OUT/s15c4.tgz -C /tmp s15c4
