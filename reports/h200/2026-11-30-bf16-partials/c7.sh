#!/usr/bin/env bash
# Session 12, call 7: the tile-balanced combine's loop over a long request's slots with 8
# loads in flight per round instead of 4. G = b28e6eb; T8 = the tree at this script's commit
# with -DVB_BALANCED_TAIL_LOADS=8. GPU tests of T8; A/B of G and T8, 3 rounds, the four
# tile-balanced cases.
tar xJf .device-carry/s12-c7.tar.xz -C .device-carry || exit 1
O=/tmp/s12c7; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/T8 && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-T8.log 2>&1; echo "T8 tests rc=$? $(tail -n 1 $O/gpu-tests-T8.log)"
AB_SKIP_TESTS=1 AB_ROUNDS=3 timeout 240 scripts/ab_bundles.sh $O/ab .device-carry/G .device-carry/T8 -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths deepseek_v3_tp8_shared_prefix kimi_k2_tp8_eagle/batch.size=32 > $O/ab.txt 2>&1
tail -n 6 $O/ab.txt | cut -c1-250
tar czf $OUT/s12c7.tgz -C /tmp s12c7
