#!/usr/bin/env bash
# Session 11, call 2: the in-kernel merge, second version (F = 57563ff+tests: one round trip
# per chunk, every slot merges, one arrival per block); N = F with -DVB_WGMMA_FUSED_MERGE=0
# (the combine kernel); O = b6c80f5 (session 10's final tree); FT = F with the phase timeline.
# GPU tests of F, memcheck of the merge test, timelines of four cases, A/B 2 rounds.
tar xJf .device-carry/s11-c2.tar.xz -C .device-carry || exit 1
O=/tmp/s11c2; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/F && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-F.log 2>&1; echo "F tests rc=$? $(tail -n 1 $O/gpu-tests-F.log)"
grep -E -A3 "FAILED:" $O/gpu-tests-F.log | head -n 12
( cd .device-carry/F && LD_LIBRARY_PATH=lib timeout 90 compute-sanitizer --tool memcheck --error-exitcode 3 bin/vb_test_kernels \
  "the wgmma path merges split partials in the kernel and leaves its counters zero" ) > $O/memcheck-merge.log 2>&1
echo "memcheck merge rc=$? $(grep -E 'ERROR SUMMARY' $O/memcheck-merge.log | tail -n 1)"
tar czf $OUT/s11c2.tgz -C /tmp s11c2
for c in 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths sglang_peer_b8_h16_t4_p4k; do
  n=$(echo "$c" | tr -c 'a-zA-Z0-9_\n' '_')
  timeout 60 .device-carry/FT/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline-$n.csv > $O/timeline-$n.txt 2>&1; echo "timeline $c rc=$?"
  grep -E "host events around|device span|per tile|epilogue|first entry -> last block end|imbalance|merger|last loop done" $O/timeline-$n.txt
done
gzip -q $O/*.csv
tar czf $OUT/s11c2.tgz -C /tmp s11c2
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/F .device-carry/N .device-carry/O -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths deepseek_v3_tp8_shared_prefix kimi_k2_tp8_eagle/batch.size=32 \
  kimi_k2_tp8_128k_batch8 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
  kimi_k2_tp8_dflash16/batch.size=1 kimi_k2_tp8_dflash16/batch.size=32 'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=1' \
  deepseek_v3_tp8_eagle/batch.size=8 deepseek_v3_tp8_eagle/batch.size=64 deepseek_v3_tp8_mtp/tree.nodes=4 \
  deepseek_v3_dp128_decode/batch.size=8 'deepseek_v3_dp128_single_request/batch.prefix_lens=[65536]' \
  sglang_peer_b8_h16_t4_p4k sglang_peer_b32_h16_t4_p8k > $O/ab.txt 2>&1
tail -n 20 $O/ab.txt | cut -c1-200
tar czf $OUT/s11c2.tgz -C /tmp s11c2
