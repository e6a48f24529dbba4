#!/usr/bin/env bash
# Session 11, call 7: a smaller hot-code range for the wgmma softmax loop. B = HEAD (switch
# off: kernels identical to b7dc226's); X1 / X2 = B with -DVB_WGMMA_COLD_MASK=1 / 2 (the
# tree-mask path marked unlikely / also out of line). GPU tests of X1 and X2, SASS of their
# wgmma kernels (where the HGMMA clusters land), A/B 8 cases, 2 rounds.
tar xJf .device-carry/s11-c7.tar.xz -C .device-carry || exit 1
O=/tmp/s11c7; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
for v in X1 X2; do
  ( cd .device-carry/$v && timeout 60 ./run_gpu_tests.sh ) > $O/gpu-tests-$v.log 2>&1; echo "$v tests rc=$? $(tail -n 1 $O/gpu-tests-$v.log)"
done
for v in B X1 X2; do
  cuobjdump -sass -arch sm_90a .device-carry/$v/bin/verifybench 2>/dev/null | gzip > $O/sass-$v-sm_90a.txt.gz
  zcat $O/sass-$v-sm_90a.txt.gz | awk '/Function :/{f=($0 ~ /wgmma_kernel/)} f && /HGMMA/{n++} END{print "'$v' wgmma HGMMA lines:", n}'
done
tar czf $OUT/s11c7.tgz -C /tmp s11c7
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 200 scripts/ab_bundles.sh $O/ab .device-carry/B .device-carry/X1 .device-carry/X2 -- \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_eagle/batch.size=32 kimi_k2_tp8_128k_batch8 \
  sglang_peer_b8_h16_t4_p4k deepseek_v3_tp8_eagle/batch.size=8 kimi_k2_tp8_dflash16/batch.size=1 > $O/ab.txt 2>&1
tail -n 10 $O/ab.txt | cut -c1-190
tar czf $OUT/s11c7.tgz -C /tmp s11c7
