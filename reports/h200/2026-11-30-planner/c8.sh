#!/usr/bin/env bash
# Session 9, call 8: Nsight Compute on the mixed-lengths case, to see why each tile takes
# longer when every block streams to the end. N = the final tree (tile-balanced wgmma plan,
# 128 blocks of 56 units), NG = N with -DVB_WGMMA_BALANCE_MIN_GAIN=100 (fixed-size splits of
# 61 tiles, 131 busy blocks). One production launch each (scripts/profile.sh, --set full).
tar xJf .device-carry/s9-c8.tar.xz -C .device-carry || exit 1
O=/tmp/s9c8; mkdir -p $O
for b in N NG; do
  VERIFYBENCH=$PWD/.device-carry/$b/run.sh timeout 150 scripts/profile.sh scenarios/perf.yaml kimi_k2_tp8_mixed_lengths > $O/ncu-$b.txt 2>&1
  echo "$b rc=$?"
  mv reports/local/ncu-perf-kimi_k2_tp8_mixed_lengths.ncu-rep /tmp/ncu-$b.ncu-rep 2>/dev/null  # reports stay on the machine (size)
  /usr/local/cuda/bin/ncu --import /tmp/ncu-$b.ncu-rep --page details --print-units base > $O/ncu-$b-details.txt 2>&1
  grep -A40 "flash_verify_wgmma_kernel" $O/ncu-$b-details.txt | grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Hit Rate|Mem Busy|Max Bandwidth|L2 Compression|Warp Cycles Per Issued|Achieved Occupancy" | head -n 12 | sed "s/^/$b /"
  tar czf $OUT/s9c8.tgz -C /tmp s9c8
done
