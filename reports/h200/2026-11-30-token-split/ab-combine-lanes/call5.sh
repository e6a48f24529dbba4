#!/usr/bin/env bash
# Session 6, call 5: combine lanes per launch. C = 0a13f4b, D = 3787e50 (rows packed per
# block, lanes chosen for one resident wave). D's correctness set, both GPU test suites, A/B.
O=/tmp/c5; mkdir -p $O
.device-carry/D/run.sh run scenarios/correctness.yaml --out-dir $O/correctness-D > $O/correctness-D.log 2>&1
echo "correctness D rc=$? $(grep '^summary' $O/correctness-D.log)"
AB_ROUNDS=2 scripts/ab_bundles.sh $O/ab .device-carry/C .device-carry/D -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=1' 'kimi_k2_tp8_decode/batch.size=64,pages.size=1' \
  'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=32' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=32' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' \
  'kimi_k2_tp8_mixed_lengths' 'deepseek_v3_tp8_shared_prefix' 'kimi_k2_tp8_dflash16/batch.size=8' \
  'deepseek_v3_tp8_eagle/batch.size=64' 'kimi_k2_tp8_128k_batch8' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  'sglang_peer_b32_h16_t4_p8k' 'deepseek_v3_dp128_eagle/batch.size=8' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'layout_b64_h8_t4_p16k/pages.placement=shuffled' > $O/ab.log 2>&1
tail -n 20 $O/ab.log
tar czf $OUT/c5.tgz -C /tmp c5
