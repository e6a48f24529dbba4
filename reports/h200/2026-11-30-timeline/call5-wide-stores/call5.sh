#!/usr/bin/env bash
# Session 7, call 5: A/B F (cacbf48: v5's kernels) / G (e83bcb5: mma.sync split partials in
# 16-byte stores), 3 rounds, then G's validation (GPU tests, correctness, perf, sanitizers,
# nightly gate).
tar xJf .device-carry/s7-c5.tar.xz -C .device-carry || exit 1
O=/tmp/s7c5; mkdir -p $O
nvidia-smi > $O/nvidia-smi.txt 2>&1
AB_ROUNDS=3 scripts/ab_bundles.sh $O/ab .device-carry/F .device-carry/G -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=1' 'kimi_k2_tp8_decode/batch.size=8,pages.size=1' \
  'kimi_k2_tp8_decode/batch.size=8,pages.size=64' 'kimi_k2_tp8_decode/batch.size=32,pages.size=1' \
  'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' 'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[32768]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[4096]' \
  'sglang_peer_b1_h16_t4_p4k' 'deepseek_v3_tp8_eagle/batch.size=1' 'deepseek_v3_dp128_decode/batch.size=1' \
  'kimi_k2_tp8_mixed_lengths' 'kimi_k2_tp8_128k_batch8' > $O/ab.log 2>&1
tar czf $OUT/s7c5.tgz -C /tmp s7c5
grep -A20 "^production, cold-L2" $O/ab.log | cut -c1-200
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" scripts/lab_run.sh .device-carry/G $O/final tests correctness perf sanitize-fast > $O/final.log 2>&1
tail -n 8 $O/final.log
tar czf $OUT/s7c5.tgz -C /tmp s7c5
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/G/run.sh scripts/nightly.sh > $O/nightly.log 2>&1
echo "nightly rc=$?"; tail -n 1 $O/nightly.log
tar czf $OUT/s7c5.tgz -C /tmp s7c5
