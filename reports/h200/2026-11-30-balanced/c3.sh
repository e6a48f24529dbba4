#!/usr/bin/env bash
# Session 8, call 3: as call 2, after tile-balanced blocks finalize the requests they hold
# whole (B = 4 boundary units, B2, B6), against H (c9b9d82 = 4a2658c's PTX); B's GPU tests,
# the whole correctness set on B, and timelines of both cases in the timeline build (BT).
tar xJf .device-carry/s8-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s8c3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
(cd .device-carry/B && ./run_gpu_tests.sh) > $O/gpu-tests-B.log 2>&1; echo "B tests rc=$? $(tail -n 1 $O/gpu-tests-B.log)"
grep -E "All tests|assertions|FAILED|failed" $O/gpu-tests-B.log | head -20
timeout 150 .device-carry/B/run.sh run scenarios/correctness.yaml --out-dir $O/correctness > $O/correctness.log 2>&1; echo "correctness rc=$? $(grep '^summary' $O/correctness.log)"
tar czf $OUT/s8c3.tgz -C /tmp s8c3
AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/H .device-carry/B .device-carry/B2 .device-carry/B6 -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths > $O/ab.txt 2>&1
tail -n 4 $O/ab.txt
tar czf $OUT/s8c3.tgz -C /tmp s8c3
for c in mixed skewed; do
  timeout 60 .device-carry/BT/run.sh profile scenarios/perf.yaml --case kimi_k2_tp8_${c}_lengths --launches 5 --timeline $O/timeline-$c.csv > $O/timeline-$c.txt 2>&1; echo "timeline $c rc=$?"
  grep -E "host events around|per tile|imbalance|last main end -> last combine|block lifetime" $O/timeline-$c.txt
done
gzip -q $O/*.csv
tar czf $OUT/s8c3.tgz -C /tmp s8c3
