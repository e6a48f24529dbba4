#!/usr/bin/env bash
# Session 8, call 1: the tile-balanced schedule (B = 258a88c+, boundary 1 unit) against the
# previous kernels (H = c9b9d82, PTX = 114392c's = 4a2658c's): B's GPU tests, the new
# correctness case, an A/B over the mixed-lengths case and plans whose kernels the change
# touched (token split, combine), with the boundary at 0 and 2 units (B0, B2), and a timeline
# of the mixed-lengths case in the timeline build (BT).
tar xJf .device-carry/s8-c1.tar.xz -C .device-carry || exit 1
O=/tmp/s8c1; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
(cd .device-carry/B && ./run_gpu_tests.sh) > $O/gpu-tests-B.log 2>&1; echo "B tests rc=$? $(tail -n 1 $O/gpu-tests-B.log)"
grep -E "All tests|assertions|FAILED|failed" $O/gpu-tests-B.log | head -20
tar czf $OUT/s8c1.tgz -C /tmp s8c1
timeout 120 .device-carry/B/run.sh run scenarios/correctness.yaml --case tile_balanced_lognormal --time --modes cold --budget-s 0.2 --out-dir $O/corr > $O/corr.log 2>&1; echo "corr rc=$? $(grep '^summary' $O/corr.log)"
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/H .device-carry/B .device-carry/B0 .device-carry/B2 -- \
  kimi_k2_tp8_mixed_lengths 'kimi_k2_tp8_decode/batch.size=32,pages.size=1' 'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' > $O/ab.txt 2>&1
tail -n 9 $O/ab.txt
tar czf $OUT/s8c1.tgz -C /tmp s8c1
timeout 60 .device-carry/BT/run.sh profile scenarios/perf.yaml --case kimi_k2_tp8_mixed_lengths --launches 5 --timeline $O/timeline-mixed.csv > $O/timeline-mixed.txt 2>&1; echo "timeline rc=$?"
gzip -q $O/*.csv; tail -n 25 $O/timeline-mixed.txt
tar czf $OUT/s8c1.tgz -C /tmp s8c1
