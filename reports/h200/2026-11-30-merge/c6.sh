#!/usr/bin/env bash
# Session 11, call 6: is the instruction cache what the in-kernel merge's dead code cost?
# ncu warp-stall sampling (scripts/lab_run.sh ... stalls) of O = b6c80f5 and N = 57563ff with
# the merge switched off (-DVB_WGMMA_FUSED_MERGE=0; its kernels ran 1.050x O's time in call 2),
# on one 64k request (fixed splits: N/O 1.145) and mixed lengths (tile-balanced: 1.027).
tar xJf .device-carry/s11-c6.tar.xz -C .device-carry || exit 1
O=/tmp/s11c6; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
for c in 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' kimi_k2_tp8_mixed_lengths; do
  n=$(echo "$c" | tr -c 'a-zA-Z0-9_\n' '_')
  for b in O N; do
    VB_STALLS_CASE="$c" timeout 110 scripts/lab_run.sh .device-carry/$b $O/stalls-$b-$n stalls > $O/stalls-$b-$n.log 2>&1
    echo "$b $c rc=$?"
    rm -f $O/stalls-$b-$n/*.ncu-rep $O/stalls-$b-$n/sass-sm_90.txt
    python3 scripts/stalls_top.py $O/stalls-$b-$n/stalls-source-sass.csv 3 2>&1 | head -n 2
    gzip -q $O/stalls-$b-$n/*.csv $O/stalls-$b-$n/*.txt 2>/dev/null
  done
  tar czf $OUT/s11c6.tgz -C /tmp s11c6
done
