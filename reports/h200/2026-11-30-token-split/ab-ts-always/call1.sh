#!/usr/bin/env bash
# Session 6, call 1: token split (TS) correctness + A/B vs default (A); racecheck of the stage protocol.
O=/tmp/c1; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $O/gpu.txt 2>&1
.device-carry/TS/run.sh run scenarios/correctness.yaml --out-dir $O/correctness-TS > $O/correctness-TS.log 2>&1
echo "correctness TS rc=$? $(grep '^summary' $O/correctness-TS.log)"
AB_ROUNDS=2 scripts/ab_bundles.sh $O/ab .device-carry/A .device-carry/TS -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=1' 'kimi_k2_tp8_decode/batch.size=1,pages.size=64' \
  'kimi_k2_tp8_decode/batch.size=8,pages.size=1' 'kimi_k2_tp8_decode/batch.size=32,pages.size=1' \
  'kimi_k2_tp8_decode/batch.size=64,pages.size=1' \
  'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8' 'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=32' \
  'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=64' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' 'sglang_peer_b8_h8_t4_p32k' > $O/ab.log 2>&1
cat $O/ab.log
VB_RACECHECK_CASE_LIMIT=25 scripts/lab_run.sh .device-carry/A $O/rc racecheck-stages > $O/rc.log 2>&1
tail -n 20 $O/rc.log
tar czf $OUT/c1.tgz -C /tmp c1
