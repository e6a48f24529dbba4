#!/usr/bin/env bash
# Session 18, call 2: E0 (372757b with -DVB_WGMMA_EARLY_FIRST_ENTRY=0: the kernels of record,
# v17, machine code identical per function to f45f80c's and 528963f's) on the perf cases whose
# issue-5 goals are not met, timed in every launch mode: cold (the goals' sample), graph,
# chain (8 launches back to back) and chain-pdl (each over the previous one). Ceilings measured
# in the same run.
tar xJf .device-carry/s18-c2.tar.xz -C .device-carry || exit 1
O=/tmp/s18c2; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
timeout 420 .device-carry/E0/run.sh run scenarios/perf.yaml --time --modes cold,graph,chain,chain-pdl \
  --budget-s 0.2 --max-samples 100 --out-dir $O/modes \
  --case 'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8' --case 'kimi_k2_tp8_mtp/tree.nodes=3,batch.size=8' \
  --case 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' --case kimi_k2_tp8_mixed_lengths \
  --case 'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' --case 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  --case 'kimi_k2_tp8_single_request/batch.prefix_lens=[32768]' --case 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  --case 'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' \
  --case 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[4096]' --case 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[16384]' \
  --case 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' --case 'kimi_k2_tp8_dflash16/batch.size=1' \
  --case 'deepseek_v3_dp128_decode/batch.size=1' --case 'deepseek_v3_dp128_decode/batch.size=8' \
  --case 'deepseek_v3_dp128_single_request/batch.prefix_lens=[16384]' > $O/modes.log 2>&1
echo "modes rc=$?"
gzip -q $O/modes.log
tar czf $OUT/s18c2.tgz -C /tmp s18c2
grep -A 40 -i 'back-to-back' $O/modes/summary.md | head -n 60
