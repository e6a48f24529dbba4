#!/usr/bin/env bash
# Session 15, call 9: the adapter rule's unmeasured range (10-32 tiles per block on mma.sync).
# A/B/C of B = R3 (the adapter waits at entry), N4 (the over-writer instance on every plan)
# and N6 = 57f1468 (the rule: mma.sync over-writer up to 24 modelled tiles), 3 rounds, on
# reports/h200/2026-11-30-mask-wait/threshold.yaml (12-28 tiles per block; cold L2).
tar xJf .device-carry/s15-c9.tar.xz -C .device-carry || exit 1
O=/tmp/s15c9; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
AB_FILE=reports/h200/2026-11-30-mask-wait/threshold.yaml AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 500 \
  scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/N4 .device-carry/N6 -- \
  'adapter_threshold_mtp4_b8/batch.prefix.value=6140' 'adapter_threshold_mtp4_b8/batch.prefix.value=8188' \
  'adapter_threshold_mtp4_b8/batch.prefix.value=10236' 'adapter_threshold_mtp4_b8/batch.prefix.value=12284' \
  'adapter_threshold_mtp4_b8/batch.prefix.value=14332' 'adapter_threshold_single_t4_p1/batch.prefix.value=65536' \
  'adapter_threshold_single_t4_p1/batch.prefix.value=98304' > $O/ab.txt 2>&1
tail -n 4 $O/ab.txt | cut -c1-200
tar czf $OUT/s15c9.tgz -C /tmp s15c9
