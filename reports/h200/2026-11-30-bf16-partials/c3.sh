#!/usr/bin/env bash
# Session 12, call 3: bf16 split partials on the mma.sync path too. F = 82d144e (bf16 on the
# wgmma path's fixed-size and even plans); M = F's tree at 72f7965 with -DVB_MMA_BF16_PARTIALS=1
# (the mma.sync path's fixed-size and even plans as well). GPU tests and correctness of M;
# A/B of F and M, 2 rounds, 18 cases (mma.sync split plans; controls: one 64k T16 request on
# wgmma, mixed lengths tile-balanced).
tar xJf .device-carry/s12-c3.tar.xz -C .device-carry || exit 1
O=/tmp/s12c3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/M && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-M.log 2>&1; echo "M tests rc=$? $(tail -n 1 $O/gpu-tests-M.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 150 scripts/lab_run.sh .device-carry/M $O/M correctness 2>&1 | tail -n 3
tar czf $OUT/s12c3.tgz -C /tmp s12c3
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 400 scripts/ab_bundles.sh $O/ab .device-carry/F .device-carry/M -- \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[32768]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[4096]' \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=1' 'kimi_k2_tp8_decode/batch.size=8,pages.size=64' \
  'kimi_k2_tp8_decode/batch.size=32,pages.size=64' 'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=32' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' deepseek_v3_tp8_eagle/batch.size=1 deepseek_v3_dp128_decode/batch.size=1 \
  sglang_peer_b1_h16_t4_p4k sglang_peer_b8_h8_t4_p32k 'deepseek_v3_tp8_mtp/tree.nodes=2' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tail -n 22 $O/ab.txt | cut -c1-190
tar czf $OUT/s12c3.tgz -C /tmp s12c3
