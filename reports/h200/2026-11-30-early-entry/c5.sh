#!/usr/bin/env bash
# Session 18, call 5: the full perf set (every case timed, every executor checked against the
# reference, ceilings in the same run) with Q = f8145c3, the session's last change to kernels/
# (GPU tests, correctness set and sanitizers passed in call 4). Then ncu stall sampling of the
# same boxes with two producers on kimi_k2_tp8_128k_batch8 (one row tile, pages of 64): Q's
# block table (page boxes, one table word per warp and tile) and QT1's token table (runs
# checked per tile), which call 4 measured 1.044x slower than the gather.
tar xJf .device-carry/s18-c5.tar.xz -C .device-carry || exit 1
O=/tmp/s18c5; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 280 scripts/lab_run.sh .device-carry/Q $O/final perf 2>&1 | tail -n 3
tar czf $OUT/s18c5.tgz -C /tmp s18c5
for run in Q:production/block-table QT1:production; do
  b=${run%%:*}; e=${run#*:}; d=$O/stalls-$b-${e//\//-}
  VB_PROFILE_EXECUTOR=$e VB_STALLS_CASE=kimi_k2_tp8_128k_batch8 timeout 130 scripts/lab_run.sh .device-carry/$b $d stalls > $d.log 2>&1
  echo "stalls $b $e rc=$?"
  rm -f $d/*.ncu-rep $d/sass-sm_120.txt $d/sass-sm_90.txt
  grep -E 'Duration|Compute \(SM\) Throughput|Memory Throughput' $d/stalls-details.txt | head -n 3
  gzip -q $d/*.csv $d/sass-sm_90a.txt 2>/dev/null
  tar czf $OUT/s18c5.tgz -C /tmp s18c5
done
