#!/usr/bin/env bash
# Session 15, call 11: where the over-writer mma.sync instance's tile loop loses 3-5 % (call 7:
# ptxas scheduled it differently). ncu warp-stall sampling (scripts/lab_run.sh ... stalls) of
# N4 (over-writer instances on every adapter launch) on MTP T4 B64 (page 1, mma.sync, 257
# tiles per block): the production executor (native instance) and the SGLang adapter
# (over-writer instance).
tar xJf .device-carry/s15-c11.tar.xz -C .device-carry || exit 1
O=/tmp/s15c11; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
c='kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64'
for e in production sglang-adapter; do
  VB_PROFILE_EXECUTOR=$e VB_STALLS_CASE="$c" timeout 200 scripts/lab_run.sh .device-carry/N4 $O/stalls-$e stalls > $O/stalls-$e.log 2>&1
  echo "$e rc=$?"
  rm -f $O/stalls-$e/*.ncu-rep $O/stalls-$e/sass-sm_90a.txt $O/stalls-$e/sass-sm_120.txt $O/stalls-$e/sass-sm_90.txt
  head -n 2 $O/stalls-$e/stalls-top.txt
  gzip -q $O/stalls-$e/*.csv 2>/dev/null
  tar czf $OUT/s15c11.tgz -C /tmp s15c11
done
