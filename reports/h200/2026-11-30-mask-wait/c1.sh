#!/usr/bin/env bash
# Session 15, call 1: the SGLang adapter's production kernel waits for its mask-packing kernel
# only before its first tree-mask read, with the lengths from kv_indptr (N = cce8aac).
# B = R3 (6299733, the kernels of 62a1cfe = HEAD before this change). MN = N with
# -DVB_DEBUG_NO_PREREQUISITE_WAIT=1: the new delayed-mask test and the Q test must FAIL there.
# N's GPU tests; MN's two tests; correctness and memcheck / initcheck / synccheck of N;
# A/B of B and N, 2 rounds, 12 cases (cold L2): the adapter, and the native executors whose
# machine code changed (VerifyParams::prefix, the wait's place).
tar xJf .device-carry/s15-c1.tar.xz -C .device-carry || exit 1
O=/tmp/s15c1; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/N && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-N.log 2>&1; echo "N tests rc=$? $(tail -n 1 $O/gpu-tests-N.log)"
for t in 'waiting only before the tree mask*' 'launched over a kernel still writing its Q*'; do
  ( cd .device-carry/MN && timeout 60 ./run_gpu_tests.sh "$t" ) >> $O/gpu-tests-MN-mutation.log 2>&1; echo "MN (mutation) '$t' rc=$?"
done
grep -E "FAILED:" -A1 $O/gpu-tests-MN-mutation.log | grep -E "CHECK|REQUIRE" | sort | uniq -c | head -n 8
tar czf $OUT/s15c1.tgz -C /tmp s15c1
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 150 scripts/lab_run.sh .device-carry/N $O/final correctness sanitize-fast 2>&1 | tail -n 5
tar czf $OUT/s15c1.tgz -C /tmp s15c1
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/N -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=64' 'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=64' \
  sglang_peer_b1_h16_t4_p4k sglang_peer_b8_h16_t4_p4k sglang_peer_b32_h16_t4_p8k \
  deepseek_v3_dp128_decode/batch.size=8 kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths > $O/ab.txt 2>&1
tail -n 3 $O/ab.txt | cut -c1-200
tar czf $OUT/s15c1.tgz -C /tmp s15c1
