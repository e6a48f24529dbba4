#!/usr/bin/env bash
# Session 17, call 9: the TMA boxes' L2 promotion. T6 = the commit in its BUILD_INFO.txt
# (256 B, the default; T5's kernels), P0 = T6 with -DVB_WGMMA_TMA_L2_PROMOTION=0 (none),
# P2 = =2 (128 B). Correctness of P0 and P2; A/B of T6, P0, P2, 2 rounds, five plans with boxes.
tar xJf .device-carry/s17-c9.tar.xz -C .device-carry || exit 1
O=/tmp/s17c9; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
cp .device-carry/T6/BUILD_INFO.txt $O/
for b in P0 P2; do
  VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 40 scripts/lab_run.sh .device-carry/$b $O/$b correctness 2>&1 | tail -n 2
done
tar czf $OUT/s17c9.tgz -C /tmp s17c9
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 140 scripts/ab_bundles.sh $O/ab .device-carry/T6 .device-carry/P0 .device-carry/P2 -- \
  mask_tax_ddtree64_b8 'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'deepseek_v3_dp128_eagle/batch.size=8' \
  'deepseek_v3_tp8_ddtree/tree.budget=64' 'deepseek_v3_dp128_single_request/batch.prefix_lens=[65536]' > $O/ab.txt 2>&1
tail -n 7 $O/ab.txt | cut -c1-200
tar czf $OUT/s17c9.tgz -C /tmp s17c9
