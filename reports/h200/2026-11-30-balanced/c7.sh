#!/usr/bin/env bash
# Session 8, call 7: the final commit (F8; kernels' PTX identical to effdb78's, GPU tests'
# prefix generator factored): its GPU tests, and the two unequal-length perf cases timed.
tar xJf .device-carry/s8-c7.tar.xz -C .device-carry || exit 1
O=/tmp/s8c7; mkdir -p $O
(cd .device-carry/F8 && ./run_gpu_tests.sh) > $O/gpu-tests-F8.log 2>&1; echo "F8 tests rc=$? $(tail -n 1 $O/gpu-tests-F8.log)"
grep -E "All tests|assertions|FAILED|failed" $O/gpu-tests-F8.log | head
timeout 120 .device-carry/F8/run.sh run scenarios/perf.yaml --time --modes cold --budget-s 0.2 --max-samples 100 \
  --case kimi_k2_tp8_skewed_lengths --case kimi_k2_tp8_mixed_lengths --out-dir $O/perf > $O/perf.log 2>&1
echo "perf rc=$? $(grep '^summary' $O/perf.log)"
grep "| production |" $O/perf/summary.md | cut -c1-220 | head -4
tar czf $OUT/s8c7.tgz -C /tmp s8c7
