#!/usr/bin/env bash
# Session 15, call 3: N3 = 272bf22 (the adapter's own kernel instances: lengths from kv_indptr,
# the wait before the mask; the native instances' machine code is ca9d175's). MN3 = N3 with
# -DVB_DEBUG_NO_PREREQUISITE_WAIT=1: the delayed-writer test and the Q test must FAIL there.
# B = R3 (6299733, ca9d175's kernels). N3's GPU tests; MN3's two tests; correctness and
# memcheck / initcheck / synccheck of N3; A/B of B and N3, 2 rounds, call 1's 12 cases;
# then the full perf set with N3 (cold, graph).
tar xJf .device-carry/s15-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s15c3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/N3 && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-N3.log 2>&1; echo "N3 tests rc=$? $(tail -n 1 $O/gpu-tests-N3.log)"
for t in 'over a kernel still writing the mask and the lengths*' 'launched over a kernel still writing its Q*'; do
  ( cd .device-carry/MN3 && timeout 60 ./run_gpu_tests.sh "$t" ) >> $O/gpu-tests-MN3-mutation.log 2>&1; echo "MN3 (mutation) '$t' rc=$?"
done
grep -E "FAILED:" -A1 $O/gpu-tests-MN3-mutation.log | grep -E "CHECK|REQUIRE" | sort | uniq -c | head -n 8
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 150 scripts/lab_run.sh .device-carry/N3 $O/final correctness sanitize-fast 2>&1 | tail -n 5
tar czf $OUT/s15c3.tgz -C /tmp s15c3
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/N3 -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=64' 'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=64' \
  sglang_peer_b1_h16_t4_p4k sglang_peer_b8_h16_t4_p4k sglang_peer_b32_h16_t4_p8k \
  deepseek_v3_dp128_decode/batch.size=8 kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths > $O/ab.txt 2>&1
tail -n 3 $O/ab.txt | cut -c1-200
tar czf $OUT/s15c3.tgz -C /tmp s15c3
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 240 scripts/lab_run.sh .device-carry/N3 $O/final perf 2>&1 | tail -n 3
tar czf $OUT/s15c3.tgz -C /tmp s15c3
