#!/usr/bin/env bash
# Session 16, call 2: where the wgmma kernel's tile time goes on a compute-bound case (call 1:
# issuing S before the softmax warpgroup's PV did not help). ncu warp-stall sampling
# (scripts/lab_run.sh ... stalls) of B (6299733, the kernels of HEAD) on DDTree-64 B8
# (production = the wgmma path, 8 row tiles x 16 splits), with the sm_90a SASS.
tar xJf .device-carry/s16-c2.tar.xz -C .device-carry || exit 1
O=/tmp/s16c2; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
c='kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8'
VB_PROFILE_EXECUTOR=production VB_STALLS_CASE="$c" timeout 300 scripts/lab_run.sh .device-carry/B $O/stalls stalls > $O/stalls.log 2>&1
echo "rc=$?"
rm -f $O/stalls/*.ncu-rep $O/stalls/sass-sm_120.txt $O/stalls/sass-sm_90.txt
head -n 2 $O/stalls/stalls-top.txt
grep -E 'Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput' $O/stalls/stalls-details.txt | head -n 8
gzip -q $O/stalls/*.csv $O/stalls/sass-sm_90a.txt 2>/dev/null
tar czf $OUT/s16c2.tgz -C /tmp s16c2
