#!/usr/bin/env bash
# Session 7, call 1: phase timelines of the production kernels (T = 3ddcf2b's kernels with
# -DVB_DEBUG_TIMELINE=1, on E's bundle), T's timeline GPU test, then the A/B left from
# session 6: C (0a13f4b) / E (95a6851) / E2 (E with -DVB_COMBINE_SMALL_BOUNDS=0), 2 rounds.
tar xJf .device-carry/s7-bundles.tar.xz -C .device-carry || exit 1
O=/tmp/s7c1; mkdir -p $O/timeline
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $O/nvidia-smi.txt 2>&1
i=0
for c in 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_mixed_lengths' 'kimi_k2_tp8_decode/batch.size=1,pages.size=1' 'kimi_k2_tp8_decode/batch.size=8,pages.size=1' \
  'deepseek_v3_dp128_decode/batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=1' 'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8'; do
  i=$((i+1))
  timeout 60 .device-carry/T/run.sh profile scenarios/perf.yaml --case "$c" --launches 7 --timeline $O/timeline/$i.csv > $O/timeline/$i.txt 2>&1
  echo "rc=$?" >> $O/timeline/$i.txt
done
tar czf $OUT/s7c1.tgz -C /tmp s7c1
LD_LIBRARY_PATH=.device-carry/T/lib timeout 120 .device-carry/T/bin/vb_test_kernels "the phase timeline records every block in timeline builds and nothing otherwise" > $O/timeline-test.log 2>&1; echo "timeline test rc=$?" | tee -a $O/timeline-test.log
tail -n 3 $O/timeline-test.log
tar czf $OUT/s7c1.tgz -C /tmp s7c1
AB_ROUNDS=2 scripts/ab_bundles.sh $O/ab .device-carry/C .device-carry/E .device-carry/E2 -- \
  'kimi_k2_tp8_decode/batch.size=8,pages.size=1' 'kimi_k2_tp8_decode/batch.size=8,pages.size=64' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=3,batch.size=8' \
  'sglang_peer_b1_h16_t4_p4k' > $O/ab.log 2>&1
tail -n 9 $O/ab.log
tar czf $OUT/s7c1.tgz -C /tmp s7c1
for f in $O/timeline/*.txt; do echo "== $f"; sed -n '1,2p' $f | cut -c1-160; grep -E "device span|host events|per tile|first KV tile landed|epilogue|imbalance|last main end" $f; done
