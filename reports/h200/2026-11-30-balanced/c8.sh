#!/usr/bin/env bash
# Session 8, call 8: the review commit (R8; only the tile-balanced main kernels' PTX changed:
# the walk no longer reduces an unused sum): GPU tests, the tile-balanced correctness case,
# and the two unequal-length perf cases timed.
tar xJf .device-carry/s8-c8.tar.xz -C .device-carry || exit 1
O=/tmp/s8c8; mkdir -p $O
(cd .device-carry/R8 && ./run_gpu_tests.sh) > $O/gpu-tests-R8.log 2>&1; echo "R8 tests rc=$? $(tail -n 1 $O/gpu-tests-R8.log)"
grep -E "All tests|assertions|FAILED|failed" $O/gpu-tests-R8.log | head
timeout 120 .device-carry/R8/run.sh run scenarios/correctness.yaml --case tile_balanced_skewed --out-dir $O/correctness > $O/correctness.log 2>&1
echo "correctness rc=$? $(grep '^summary' $O/correctness.log)"
timeout 120 .device-carry/R8/run.sh run scenarios/perf.yaml --time --modes cold --budget-s 0.2 --max-samples 100 \
  --case kimi_k2_tp8_skewed_lengths --case kimi_k2_tp8_mixed_lengths --out-dir $O/perf > $O/perf.log 2>&1
echo "perf rc=$? $(grep '^summary' $O/perf.log)"
grep "| production |" $O/perf/summary.md | cut -c1-220 | head -4
grep -E "^\| (1152|mma|launch)" $O/perf/summary.md | cut -c1-60
tar czf $OUT/s8c8.tgz -C /tmp s8c8
