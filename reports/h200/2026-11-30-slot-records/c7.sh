#!/usr/bin/env bash
# Session 13, call 7: the cases that moved most between b28e6eb's final run and 9ebf893's
# (call 5) but were not A/B'd in one call: G = b28e6eb against V = 9ebf893, 4 interleaved
# rounds, the three 8-request MTP batches (T = 2 / 3 / 4), decode B1 and B8 at page size 1,
# one 4k request.
tar xJf .device-carry/s13-c7.tar.xz -C .device-carry || exit 1
O=/tmp/s13c7; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
AB_SKIP_TESTS=1 AB_ROUNDS=4 timeout 400 scripts/ab_bundles.sh $O/ab .device-carry/G .device-carry/V -- \
  'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=3,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=1' 'kimi_k2_tp8_decode/batch.size=8,pages.size=1' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' > $O/ab.txt 2>&1
tail -n 8 $O/ab.txt | cut -c1-200
tar czf $OUT/s13c7.tgz -C /tmp s13c7
