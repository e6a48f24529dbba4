#!/usr/bin/env bash
# Session 18, call 3: P = 05eae89 (the block table's wgmma instance with TMA page boxes, plans of
# >= 4 row tiles), P1 = P with -DVB_WGMMA_TMA_PAGE_MIN_ROW_TILES=1 (page boxes on every fixed-split
# wgmma plan with the block table), MP = P with every page box one row off (a mutant), E0 = the
# kernels of record (v17). P's GPU tests and correctness set (61 cases); MP's correctness set and
# GPU tests (both must fail); A/B of E0, P and P1, 2 rounds, thirteen wgmma cases over pages of
# 16 or 64 rows.
tar xJf .device-carry/s18-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s18c3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/P && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-P.log 2>&1; echo "P tests rc=$? $(tail -n 1 $O/gpu-tests-P.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/P $O/P correctness 2>&1 | tail -n 2
( cd .device-carry/MP && timeout 60 ./run.sh run scenarios/correctness.yaml --out-dir $O/MP ) > $O/MP.log 2>&1
echo "MP (mutant) rc=$? (1 expected) $(grep '^summary' $O/MP.log)"
grep -E 'incorrect' $O/MP.log | awk '{print $1, $2}' | sort | uniq -c | head -n 20
( cd .device-carry/MP && timeout 100 ./run_gpu_tests.sh ) > $O/gpu-tests-MP.log 2>&1; echo "MP (mutant) tests rc=$? (failure expected) $(tail -n 1 $O/gpu-tests-MP.log)"
tar czf $OUT/s18c3.tgz -C /tmp s18c3
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/E0 .device-carry/P .device-carry/P1 -- \
  'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=1' 'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' \
  'kimi_k2_tp8_ddtree/tree.budget=256,batch.size=1' 'deepseek_v3_tp8_ddtree/tree.budget=64' \
  'deepseek_v3_dp128_eagle/batch.size=8' 'deepseek_v3_dp128_single_request/batch.prefix_lens=[65536]' \
  mask_tax_ddtree64_b8 'deepseek_v3_dp128_decode/batch.size=64' 'kimi_k2_tp8_dflash16/batch.size=8' \
  kimi_k2_tp8_128k_batch8 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_eagle/batch.size=8' \
  'deepseek_v3_tp8_eagle/batch.size=64' > $O/ab.txt 2>&1
echo "ab rc=$?"
tar czf $OUT/s18c3.tgz -C /tmp s18c3
tail -n 16 $O/ab.txt | cut -c1-240
