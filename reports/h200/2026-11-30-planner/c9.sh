#!/usr/bin/env bash
# Session 9, call 9: Nsight Compute on the row-ceiling kernel (the in-order 1152-byte row
# read that % of attainable divides by), the same sections as call 8's kernel reports, to
# compare its L2 throughput at ~4.45 TB/s with the verify kernel's 85 % at 3.68 TB/s.
tar xJf .device-carry/s9-c8.tar.xz -C .device-carry || exit 1
O=/tmp/s9c9; mkdir -p $O
case_name=smoke_chain4_page1
echo "case: $case_name"
timeout 200 /usr/local/cuda/bin/ncu --clock-control none -k regex:row_read_kernel -c 2 --section SpeedOfLight \
  --section MemoryWorkloadAnalysis --print-units base .device-carry/N/run.sh run scenarios/smoke.yaml --time \
  --modes cold --budget-s 0.05 --case "$case_name" --out-dir $O/run > $O/ncu-row-read.txt 2>&1
echo "ncu rc=$?"
grep -E "row_read_kernel|Duration|DRAM Throughput|L2 Cache Throughput|Memory Throughput|L2 Hit Rate|Mem Busy" $O/ncu-row-read.txt | head -n 20
tar czf $OUT/s9c9.tgz -C /tmp s9c9
