#!/usr/bin/env bash
# Session 10, call 5: what sets the wgmma path's per-tile rate on memory-bound batches.
# D = f015a68 (validated in call 3); S12 / S1 = D with S issuing only 12 / 1 of its 36 k
# steps (timing only: their results are wrong and show "incorrect"). Cases: perf.yaml's
# mixed lengths and 128k x 8, and layouts.yaml (the same batches over pages of 16 and 64
# rows, spread or contiguous), 2 rounds.
tar xJf .device-carry/s10-c5.tar.xz -C .device-carry || exit 1
O=/tmp/s10c5; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 150 scripts/ab_bundles.sh $O/ab-perf .device-carry/D .device-carry/S12 .device-carry/S1 -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_128k_batch8 kimi_k2_tp8_eagle/batch.size=32 > $O/ab-perf.txt 2>&1
tail -n 4 $O/ab-perf.txt
tar czf $OUT/s10c5.tgz -C /tmp s10c5
AB_FILE=reports/h200/2026-11-30-prefetch/layouts.yaml AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 150 scripts/ab_bundles.sh $O/ab-layouts \
  .device-carry/D .device-carry/S1 -- $(.device-carry/D/run.sh list reports/h200/2026-11-30-prefetch/layouts.yaml | awk 'NR>1 && $1 ~ /layouts\// {print $1}') > $O/ab-layouts.txt 2>&1
tail -n 9 $O/ab-layouts.txt
tar czf $OUT/s10c5.tgz -C /tmp s10c5
