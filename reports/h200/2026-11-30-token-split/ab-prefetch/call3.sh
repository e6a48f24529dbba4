#!/usr/bin/env bash
# Session 6, call 3: A = 2a52ae1 (v4.1), P = 1d04129 with -DVB_TOKEN_SPLIT=0 (page-table
# words kStages tiles ahead), PT = 1d04129 (prefetch + token-split instance by plan).
O=/tmp/c3; mkdir -p $O
.device-carry/PT/run.sh run scenarios/correctness.yaml --out-dir $O/correctness-PT > $O/correctness-PT.log 2>&1
echo "correctness PT rc=$? $(grep '^summary' $O/correctness-PT.log)"
AB_ROUNDS=2 scripts/ab_bundles.sh $O/ab .device-carry/A .device-carry/P .device-carry/PT -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=1' 'kimi_k2_tp8_decode/batch.size=1,pages.size=64' \
  'kimi_k2_tp8_decode/batch.size=8,pages.size=1' 'kimi_k2_tp8_decode/batch.size=64,pages.size=1' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[4096]' \
  'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=32' 'sglang_peer_b8_h8_t4_p32k' 'kimi_k2_tp8_mixed_lengths' \
  'deepseek_v3_dp128_decode/batch.size=1' > $O/ab.log 2>&1
cat $O/ab.log
tar czf $OUT/c3.tgz -C /tmp c3
