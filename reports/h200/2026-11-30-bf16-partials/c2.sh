#!/usr/bin/env bash
# Session 12, call 2: bf16 split partials on the wgmma path, staged through the Q buffer and
# written in whole rows. A = 3679d5c (the default build of d00dff9 has the same machine code);
# B = d00dff9 with -DVB_WGMMA_BF16_PARTIALS=1; BT / AT = B / the default with the phase
# timeline. GPU tests and correctness of B; timelines of AT and BT on three cases; A/B of A
# and B, 2 rounds, 14 cases (the wgmma fixed-size and even split plans, and two controls:
# MTP T4 B8 on mma.sync, mixed lengths tile-balanced).
tar xJf .device-carry/s12-c2.tar.xz -C .device-carry || exit 1
O=/tmp/s12c2; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/B && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-B.log 2>&1; echo "B tests rc=$? $(tail -n 1 $O/gpu-tests-B.log)"
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 150 scripts/lab_run.sh .device-carry/B $O/B correctness 2>&1 | tail -n 3
for c in 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
         kimi_k2_tp8_dflash16/batch.size=1; do
  n=$(echo "$c" | tr -c 'A-Za-z0-9_.\n' '_')
  for v in AT BT; do
    timeout 40 .device-carry/$v/run.sh profile scenarios/perf.yaml --case "$c" --launches 5 --timeline $O/timeline-$v-$n.csv > $O/timeline-$v-$n.txt 2>&1; echo "timeline $v $n rc=$?"
    grep -E "host events around|loop done -> last store|last main end -> |grid wait done -> end" $O/timeline-$v-$n.txt
  done
done
gzip -q $O/*.csv
tar czf $OUT/s12c2.tgz -C /tmp s12c2
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/A .device-carry/B -- \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' \
  kimi_k2_tp8_dflash16/batch.size=1 kimi_k2_tp8_dflash16/batch.size=8 kimi_k2_tp8_128k_batch8 \
  kimi_k2_tp8_eagle/batch.size=8 sglang_peer_b8_h16_t4_p4k deepseek_v3_dp128_decode/batch.size=8 \
  'deepseek_v3_dp128_single_request/batch.prefix_lens=[65536]' deepseek_v3_tp8_eagle/batch.size=8 \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' kimi_k2_tp8_mixed_lengths > $O/ab.txt 2>&1
tail -n 18 $O/ab.txt | cut -c1-190
tar czf $OUT/s12c2.tgz -C /tmp s12c2
