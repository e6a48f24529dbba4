#!/usr/bin/env bash
# Session 10, call 1. L2 prefetch of KV rows ahead of their copies. B = the tree at the
# commit in B/BUILD_INFO.txt (prefetch off); Vn = B with the wgmma producer prefetching tile
# t + n while it issues tile t + 1 (n = 2, 3, 4) and the mma.sync producers tile t + 2n
# (32-token tiles). V3's GPU tests; B / V2 / V3 / V4 A/B, 2 rounds, on memory-bound cases
# of both paths.
tar xJf .device-carry/s10-c1.tar.xz -C .device-carry || exit 1
O=/tmp/s10c1; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/V3 && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-V3.log 2>&1; echo "V3 tests rc=$? $(tail -n 1 $O/gpu-tests-V3.log)"
tar czf $OUT/s10c1.tgz -C /tmp s10c1
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 300 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/V2 .device-carry/V3 .device-carry/V4 -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_128k_batch8 kimi_k2_tp8_skewed_lengths deepseek_v3_tp8_shared_prefix \
  kimi_k2_tp8_eagle/batch.size=32 'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' \
  'kimi_k2_tp8_decode/batch.size=64,pages.size=1' 'layout_b64_h8_t4_p16k/pages.placement=shuffled' \
  sglang_peer_b8_h8_t4_p32k 'deepseek_v3_dp128_single_request/batch.prefix_lens=[131072]' > $O/ab.txt 2>&1
tail -n 16 $O/ab.txt
tar czf $OUT/s10c1.tgz -C /tmp s10c1
