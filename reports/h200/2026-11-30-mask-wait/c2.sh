#!/usr/bin/env bash
# Session 15, call 2: where call 1's mma.sync slowdown (N against B: production/mma.sync
# 1.028x, MTP T4 B8 1.031x) comes from. B = R3 (the kernels before the change); N = cce8aac
# (wait in the mma.sync tile loop's tree-tile branch); N2 = HEAD's build (the mma.sync compute
# warps wait after issuing their Q copy instead, before their first tile); NP = ca9d175 with only
# VerifyParams::prefix (the lengths' accessor), no wait changes. N2's GPU tests, then A/B of
# the four, 2 rounds, 9 cases (cold L2).
tar xJf .device-carry/s15-c2.tar.xz -C .device-carry || exit 1
O=/tmp/s15c2; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/N2 && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-N2.log 2>&1; echo "N2 tests rc=$? $(tail -n 1 $O/gpu-tests-N2.log)"
tar czf $OUT/s15c2.tgz -C /tmp s15c2
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 400 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/N .device-carry/N2 .device-carry/NP -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=64' 'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  sglang_peer_b1_h16_t4_p4k sglang_peer_b8_h16_t4_p4k sglang_peer_b32_h16_t4_p8k \
  deepseek_v3_dp128_decode/batch.size=8 kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tail -n 12 $O/ab.txt | cut -c1-200
tar czf $OUT/s15c2.tgz -C /tmp s15c2
