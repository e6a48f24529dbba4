#!/usr/bin/env bash
# Session 9, call 3 (one archive of F, C, C2). C2 = f8d5276 (compact_split loads 128 requests' lengths at once and
# shuffles the block's prefix instead of loading it again). C2's GPU tests; F / C / C2 A/B,
# 3 rounds, on the fixed-size split cases; then the nightly MTP T4 B8 16k page-64 case with
# F, 3 rounds (its runs time production = wgmma beside production/mma.sync).
for t in s9-c3; do tar xJf .device-carry/$t.tar.xz -C .device-carry || exit 1; done
O=/tmp/s9c3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
(cd .device-carry/C2 && timeout 120 ./run_gpu_tests.sh) > $O/gpu-tests-C2.log 2>&1; echo "C2 tests rc=$? $(tail -n 2 $O/gpu-tests-C2.log | tr '\n' ' ')"
AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 240 scripts/ab_bundles.sh $O/ab .device-carry/F .device-carry/C .device-carry/C2 -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_eagle/batch.size=8 kimi_k2_tp8_eagle/batch.size=32 \
  deepseek_v3_tp8_shared_prefix > $O/ab.txt 2>&1
tail -n 5 $O/ab.txt
tar czf $OUT/s9c3.tgz -C /tmp s9c3
AB_FILE=scenarios/nightly.yaml AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 100 scripts/ab_bundles.sh $O/ab-nightly .device-carry/F -- \
  nightly_kimi_mtp4_b8_p16k > $O/ab-nightly.txt 2>&1
for f in $O/ab-nightly/perf-*/results.csv; do grep -E "cold-l2" $f | grep -E ",(production|production/mma.sync|naive)," | cut -d, -f1,11,16; done
tar czf $OUT/s9c3.tgz -C /tmp s9c3
