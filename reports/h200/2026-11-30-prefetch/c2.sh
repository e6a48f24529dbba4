#!/usr/bin/env bash
# Session 10, call 2. B0 = a2c9537 (session 9's final kernels); C = tile-balanced combine
# instances at 4 blocks per SM and the lane choice counting it (commit in C/BUILD_INFO.txt);
# C8 = C with 8 loads per round of the long-request loop; CE = C with the wgmma producer
# loading a segment's first page-table words before its Q; CT = C with the phase timeline.
# GPU tests of C, C8, CE; A/B 3 rounds; the mixed-lengths timeline with CT.
tar xJf .device-carry/s10-c2.tar.xz -C .device-carry || exit 1
O=/tmp/s10c2; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
for v in C C8 CE; do
  ( cd .device-carry/$v && timeout 60 ./run_gpu_tests.sh ) > $O/gpu-tests-$v.log 2>&1; echo "$v tests rc=$? $(tail -n 1 $O/gpu-tests-$v.log)"
done
timeout 60 .device-carry/CT/run.sh profile scenarios/perf.yaml --case kimi_k2_tp8_mixed_lengths --launches 5 --timeline $O/timeline-mixed.csv > $O/timeline-mixed.txt 2>&1; echo "timeline rc=$?"
gzip -q $O/*.csv; grep -E "host events around|per tile|block lifetime|first entry -> last block end|combine: |last main end -> |grid wait done" $O/timeline-mixed.txt
tar czf $OUT/s10c2.tgz -C /tmp s10c2
AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/B0 .device-carry/C .device-carry/C8 .device-carry/CE -- \
  kimi_k2_tp8_mixed_lengths deepseek_v3_tp8_shared_prefix kimi_k2_tp8_skewed_lengths kimi_k2_tp8_eagle/batch.size=32 \
  kimi_k2_tp8_eagle/batch.size=8 kimi_k2_tp8_128k_batch8 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  deepseek_v3_tp8_eagle/batch.size=8 kimi_k2_tp8_dflash16/batch.size=1 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' > $O/ab.txt 2>&1
tail -n 13 $O/ab.txt
tar czf $OUT/s10c2.tgz -C /tmp s10c2
