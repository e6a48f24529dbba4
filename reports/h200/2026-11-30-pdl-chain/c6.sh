#!/usr/bin/env bash
# Session 14, call 6: the SGLang adapter's production kernel launched over its mask-packing
# kernel (Q = 62a1cfe; MQ = Q with -DVB_DEBUG_NO_PREREQUISITE_WAIT=1, the mutation the
# adapter test, which now poisons the adapter's scratch, and the two overlap tests must catch).
# Q's GPU tests; MQ's three tests (expected to FAIL); correctness and memcheck / initcheck /
# synccheck of Q; cold and graph samples of 4 cases (the adapter captured with its PDL edge);
# A/B of P (call 3's build) and Q, 2 rounds, 10 cases, production and sglang-adapter medians.
tar xJf .device-carry/s14-c6.tar.xz -C .device-carry || exit 1
O=/tmp/s14c6; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/Q && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-Q.log 2>&1; echo "Q tests rc=$? $(tail -n 1 $O/gpu-tests-Q.log)"
for t in 'the SGLang adapter gives bit-identical*' 'launched over a kernel still writing its Q*' 'two launches back to back*'; do
  ( cd .device-carry/MQ && timeout 60 ./run_gpu_tests.sh "$t" ) >> $O/gpu-tests-MQ-mutation.log 2>&1; echo "MQ (mutation) '$t' rc=$?"
done
grep -E "FAILED:" -A1 $O/gpu-tests-MQ-mutation.log | grep -E "CHECK|REQUIRE" | sort | uniq -c | head -n 8
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 120 scripts/lab_run.sh .device-carry/Q $O/final correctness sanitize-fast 2>&1 | tail -n 5
tar czf $OUT/s14c6.tgz -C /tmp s14c6
timeout 90 .device-carry/Q/run.sh run scenarios/perf.yaml --case 'kimi_k2_tp8_decode/batch.size=1,pages.size=64' \
  --case sglang_peer_b8_h16_t4_p4k --case 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' --case kimi_k2_tp8_mixed_lengths \
  --time --modes cold,graph --budget-s 0.2 --max-samples 100 --out-dir $O/graph > $O/graph.txt 2>&1; echo "graph run rc=$?"
grep -E "sglang-adapter|^summary" $O/graph.txt | cut -c1-140
tar czf $OUT/s14c6.tgz -C /tmp s14c6
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/P .device-carry/Q -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=64' 'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  sglang_peer_b1_h16_t4_p4k sglang_peer_b8_h16_t4_p4k sglang_peer_b32_h16_t4_p8k sglang_peer_b8_h8_t4_p32k \
  deepseek_v3_dp128_decode/batch.size=8 kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tail -n 3 $O/ab.txt | cut -c1-200
tar czf $OUT/s14c6.tgz -C /tmp s14c6
