#!/usr/bin/env bash
# Session 15, call 6: N5 = d01cdd0: the SGLang adapter launches the production kernel's
# over-writer instances (lengths from kv_indptr, the wait before the mask) only on wgmma
# plans and on mma.sync plans of at most 24 modelled tiles per block; elsewhere the wait at
# entry, as before. B = R3 (ca9d175's kernels). N5's GPU tests; correctness and memcheck /
# initcheck / synccheck of N5; A/B of B and N5, 2 rounds, 16 cases (cold L2); the full perf
# set with N5 (cold, graph).
tar xJf .device-carry/s15-c6.tar.xz -C .device-carry || exit 1
O=/tmp/s15c6; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/N5 && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-N5.log 2>&1; echo "N5 tests rc=$? $(tail -n 1 $O/gpu-tests-N5.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 150 scripts/lab_run.sh .device-carry/N5 $O/final correctness sanitize-fast 2>&1 | tail -n 5
tar czf $OUT/s15c6.tgz -C /tmp s15c6
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/N5 -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=64' 'kimi_k2_tp8_decode/batch.size=8,pages.size=1' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[32768]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' sglang_peer_b1_h16_t4_p4k sglang_peer_b8_h16_t4_p4k \
  'deepseek_v3_tp8_eagle/batch.size=1' deepseek_v3_dp128_decode/batch.size=8 \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=3,batch.size=32' \
  'layout_b64_h8_t4_p16k/pages.placement=interleaved' sglang_peer_b8_h8_t4_p32k kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tail -n 3 $O/ab.txt | cut -c1-200
tar czf $OUT/s15c6.tgz -C /tmp s15c6
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 240 scripts/lab_run.sh .device-carry/N5 $O/final perf 2>&1 | tail -n 3
tar czf $OUT/s15c6.tgz -C /tmp s15c6
