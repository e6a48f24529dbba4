#!/usr/bin/env bash
# Session 17, call 1: T = 4e953ba (the wgmma producer loads runs of 16 consecutive pool rows as
# TMA boxes), M = T with every box one row off (a mutant: its wgmma checks must fail, which shows
# the checks reach the TMA path), F4 = 3133fc4 (v16, the kernel of record). T's GPU tests and
# correctness set; M on six correctness cases; A/B of F4 and T, 2 rounds, thirteen wgmma cases.
tar xJf .device-carry/s17-c1.tar.xz -C .device-carry || exit 1
O=/tmp/s17c1; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/T && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-T.log 2>&1; echo "T tests rc=$? $(tail -n 1 $O/gpu-tests-T.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/T $O/T correctness 2>&1 | tail -n 2
( cd .device-carry/M && timeout 60 ./run.sh run scenarios/correctness.yaml --case page16_boundaries --case page64_boundaries \
    --case tile_balanced_wgmma_page16 --case ddtree64 --case 'placements/pages.size=64,pages.placement=shuffled' \
    --case 'placements/pages.size=1,pages.placement=contiguous' --out-dir $O/M ) > $O/M.log 2>&1
echo "M (mutant) rc=$? (1 expected) $(grep '^summary' $O/M.log)"
tar czf $OUT/s17c1.tgz -C /tmp s17c1
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 230 scripts/ab_bundles.sh $O/ab .device-carry/F4 .device-carry/T -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=8' \
  'deepseek_v3_dp128_eagle/batch.size=8' 'deepseek_v3_tp8_eagle/batch.size=64' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' kimi_k2_tp8_128k_batch8 \
  sglang_peer_b32_h16_t4_p8k kimi_k2_tp8_mixed_lengths 'deepseek_v3_dp128_decode/batch.size=64' \
  mask_tax_ddtree64_b8 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' kimi_k2_tp8_skewed_lengths \
  deepseek_v3_tp8_shared_prefix > $O/ab.txt 2>&1
tail -n 15 $O/ab.txt | cut -c1-200
tar czf $OUT/s17c1.tgz -C /tmp s17c1
