#!/usr/bin/env bash
# Session 18, call 1: E2 = 372757b (the wgmma producer of fixed-split and even plans loads its
# first tile's page-table words ahead of the barrier set-up; VB_WGMMA_EARLY_FIRST_ENTRY=2, the
# default), E0 = the same source with -DVB_WGMMA_EARLY_FIRST_ENTRY=0 (the order before: wgmma
# machine code identical to f45f80c's per function), E0T / E2T = both with the phase timeline.
# E2's GPU tests and correctness set; A/B of E0 and E2, 2 rounds, twelve cases (eleven wgmma
# launches of fixed-split or even plans, one mma.sync control); timelines of E0T and E2T on
# three cases (where the first page-table words and copies come).
tar xJf .device-carry/s18-c1.tar.xz -C .device-carry || exit 1
O=/tmp/s18c1; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/E2 && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-E2.log 2>&1; echo "E2 tests rc=$? $(tail -n 1 $O/gpu-tests-E2.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/E2 $O/E2 correctness 2>&1 | tail -n 2
tar czf $OUT/s18c1.tgz -C /tmp s18c1
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 230 scripts/ab_bundles.sh $O/ab .device-carry/E0 .device-carry/E2 -- \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[16384]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_dflash16/batch.size=1' 'deepseek_v3_dp128_decode/batch.size=8' \
  'deepseek_v3_dp128_single_request/batch.prefix_lens=[16384]' 'deepseek_v3_tp8_eagle/batch.size=8' \
  'kimi_k2_tp8_eagle/batch.size=8' 'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=1' kimi_k2_tp8_128k_batch8 \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' > $O/ab.txt 2>&1
echo "ab rc=$?"
tar czf $OUT/s18c1.tgz -C /tmp s18c1
i=0
for c in 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_dflash16/batch.size=1' \
         'deepseek_v3_dp128_decode/batch.size=8'; do
  i=$((i+1))
  for b in E0T E2T; do
    timeout 20 .device-carry/$b/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline-$b-$i.csv > $O/timeline-$b-$i.txt 2>&1; echo "timeline $b $i $c rc=$?"
    grep -E "host events around|length loaded|page-table words in|copies issued|tile landed|block lifetime" $O/timeline-$b-$i.txt | cut -c1-110
  done
done
gzip -q $O/*.csv
tar czf $OUT/s18c1.tgz -C /tmp s18c1
tail -n 14 $O/ab.txt | cut -c1-200
