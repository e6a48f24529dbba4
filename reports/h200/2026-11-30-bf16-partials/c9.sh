#!/usr/bin/env bash
# Session 12, call 9: the combine's blocks in row order. G = b28e6eb; RM = the tree at this
# script's commit with -DVB_COMBINE_ROW_MAJOR=1 (a row block's four chunks adjacent in a 1-D
# grid; call 8's ncu: mixed lengths' tile-balanced combine takes 1.29 waves at 3 blocks per
# SM, and with chunk-major order every row's chunk 3 waits for the second wave). GPU tests
# and correctness of RM; A/B of G and RM, 3 rounds, the tile-balanced cases and four others.
tar xJf .device-carry/s12-c9.tar.xz -C .device-carry || exit 1
O=/tmp/s12c9; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/RM && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-RM.log 2>&1; echo "RM tests rc=$? $(tail -n 1 $O/gpu-tests-RM.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 150 scripts/lab_run.sh .device-carry/RM $O/RM correctness 2>&1 | tail -n 3
AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/G .device-carry/RM -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths deepseek_v3_tp8_shared_prefix kimi_k2_tp8_eagle/batch.size=32 \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' 'kimi_k2_tp8_decode/batch.size=64,pages.size=1' > $O/ab.txt 2>&1
tail -n 10 $O/ab.txt | cut -c1-250
tar czf $OUT/s12c9.tgz -C /tmp s12c9
