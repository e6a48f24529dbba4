#!/usr/bin/env bash
# Session 17, call 5: T4 = 528963f (T3's kernels, machine code identical; the launcher takes the
# TMA instance with the token table only), T3 = 9531553, F4 = 3133fc4 (v16). T4's GPU tests and
# correctness set; A/B of F4 and T4, 2 rounds, five cases; then ncu stall sampling of T3 on
# mask_tax_ddtree64_b8 with the token table and with the block table (why the block table's
# TMA plans ran 5-8 % slower).
tar xJf .device-carry/s17-c5.tar.xz -C .device-carry || exit 1
O=/tmp/s17c5; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/T4 && timeout 170 ./run_gpu_tests.sh ) > $O/gpu-tests-T4.log 2>&1; echo "T4 tests rc=$? $(tail -n 1 $O/gpu-tests-T4.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 80 scripts/lab_run.sh .device-carry/T4 $O/T4 correctness 2>&1 | tail -n 2
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 150 scripts/ab_bundles.sh $O/ab .device-carry/F4 .device-carry/T4 -- \
  mask_tax_ddtree64_b8 'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8' 'deepseek_v3_dp128_eagle/batch.size=8' \
  kimi_k2_tp8_128k_batch8 sglang_peer_b32_h16_t4_p8k > $O/ab.txt 2>&1
tail -n 7 $O/ab.txt | cut -c1-200
tar czf $OUT/s17c5.tgz -C /tmp s17c5
for e in production production/block-table; do
  d=$O/stalls-${e//\//-}
  VB_PROFILE_EXECUTOR=$e VB_STALLS_CASE=mask_tax_ddtree64_b8 timeout 150 scripts/lab_run.sh .device-carry/T3 $d stalls > $d.log 2>&1
  echo "stalls $e rc=$?"
  rm -f $d/*.ncu-rep $d/sass-sm_120.txt $d/sass-sm_90.txt
  grep -E 'Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput' $d/stalls-details.txt | head -n 4
  gzip -q $d/*.csv $d/sass-sm_90a.txt 2>/dev/null
  tar czf $OUT/s17c5.tgz -C /tmp s17c5
done
