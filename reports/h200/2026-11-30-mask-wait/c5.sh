#!/usr/bin/env bash
# Session 15, call 5: call 3's full perf run put the SGLang adapter 2.6-9.1 % slower than in
# the previous session's run on the large page-16 layout batches and on MTP T3/T4 B32/B64,
# while its small cases were 5-12 % faster (cross-session, not an A/B). A/B of B = R3 (the
# kernels before the change) and N4 (the adapter's over-writer instances), 2 rounds, on those
# cases and three small ones (cold L2).
tar xJf .device-carry/s15-c5.tar.xz -C .device-carry || exit 1
O=/tmp/s15c5; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 500 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/N4 -- \
  'layout_b64_h8_t4_p16k/pages.placement=contiguous' 'layout_b64_h8_t4_p16k/pages.placement=interleaved' \
  'layout_b64_h8_t4_p16k/pages.placement=shuffled' layout_b64_h8_t4_p16k_shared_prefix \
  'kimi_k2_tp8_mtp/tree.nodes=3,batch.size=32' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=32' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' 'kimi_k2_tp8_mtp/tree.nodes=3,batch.size=8' \
  sglang_peer_b8_h8_t4_p32k 'deepseek_v3_tp8_mtp/tree.nodes=2' 'kimi_k2_tp8_dflash16/batch.size=32' \
  'kimi_k2_tp8_decode/batch.size=8,pages.size=1' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  'deepseek_v3_tp8_eagle/batch.size=1' > $O/ab.txt 2>&1
tail -n 3 $O/ab.txt | cut -c1-200
tar czf $OUT/s15c5.tgz -C /tmp s15c5
