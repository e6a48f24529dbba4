#!/usr/bin/env bash
# Session 8, call 4: the planner takes the tile-balanced plan only when modelled 15 % cheaper
# (B: boundary 6 units, whole requests finalized by their block); BF0 = B without the
# finalization, BM = B taking it whenever cheaper (the mixed-lengths case then runs it), H =
# c9b9d82 (4a2658c's PTX). B's GPU tests, the skewed correctness case, an A/B (2 rounds) and
# a timeline of the skewed case in the timeline build (BT).
tar xJf .device-carry/s8-c4.tar.xz -C .device-carry || exit 1
O=/tmp/s8c4; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
(cd .device-carry/B && ./run_gpu_tests.sh) > $O/gpu-tests-B.log 2>&1; echo "B tests rc=$? $(tail -n 1 $O/gpu-tests-B.log)"
grep -E "All tests|assertions|FAILED|failed" $O/gpu-tests-B.log | head -20
timeout 120 .device-carry/B/run.sh run scenarios/correctness.yaml --case tile_balanced_skewed --out-dir $O/correctness > $O/correctness.log 2>&1; echo "correctness rc=$? $(grep '^summary' $O/correctness.log)"
tar czf $OUT/s8c4.tgz -C /tmp s8c4
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/H .device-carry/B .device-carry/BF0 .device-carry/BM -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths 'kimi_k2_tp8_decode/batch.size=32,pages.size=1' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' > $O/ab.txt 2>&1
tail -n 6 $O/ab.txt
grep -rho 'splits=[^"]*' $O/ab/perf-B-1/ $O/ab/perf-BM-1/ | sort | uniq -c
tar czf $OUT/s8c4.tgz -C /tmp s8c4
timeout 60 .device-carry/BT/run.sh profile scenarios/perf.yaml --case kimi_k2_tp8_skewed_lengths --launches 5 --timeline $O/timeline-skewed.csv > $O/timeline-skewed.txt 2>&1; echo "timeline rc=$?"
gzip -q $O/*.csv; tail -n 22 $O/timeline-skewed.txt
tar czf $OUT/s8c4.tgz -C /tmp s8c4
