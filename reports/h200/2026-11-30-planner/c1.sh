#!/usr/bin/env bash
# Session 9, call 1. P = 32ea11f (the planner sends 17-63 rows over pages of 16+ rows to the
# wgmma path), F = P + every fixed split size tried (Kimi EAGLE B32: 79 tiles per block, not
# 84), FT = F with the phase timeline. F's GPU tests; P / F A/B, 2 rounds, on the cases whose
# plans changed (each run also times production/mma.sync beside the production plan); the
# mixed-lengths timeline on the wgmma path; F's correctness file.
tar xJf .device-carry/s9-c1.tar.xz -C .device-carry || exit 1
O=/tmp/s9c1; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
(cd .device-carry/F && timeout 120 ./run_gpu_tests.sh) > $O/gpu-tests-F.log 2>&1; echo "F tests rc=$? $(tail -n 2 $O/gpu-tests-F.log | tr '\n' ' ')"
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/P .device-carry/F -- \
  kimi_k2_tp8_eagle/batch.size=32 kimi_k2_tp8_mixed_lengths kimi_k2_tp8_128k_batch8 \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[32768]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' kimi_k2_tp8_skewed_lengths > $O/ab.txt 2>&1
cat $O/ab.txt | tail -n 12
tar czf $OUT/s9c1.tgz -C /tmp s9c1
timeout 60 .device-carry/FT/run.sh profile scenarios/perf.yaml --case kimi_k2_tp8_mixed_lengths --launches 5 --timeline $O/timeline-mixed.csv > $O/timeline-mixed.txt 2>&1; echo "timeline rc=$?"
gzip -q $O/*.csv; grep -E "host events around|block lifetime|per tile|imbalance|combine: |last main end -> last combine" $O/timeline-mixed.txt
timeout 60 .device-carry/F/run.sh run scenarios/correctness.yaml --out-dir $O/correctness > $O/correctness.log 2>&1; echo "correctness rc=$? $(grep '^summary' $O/correctness.log)"
tar czf $OUT/s9c1.tgz -C /tmp s9c1
