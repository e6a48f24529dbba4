#!/usr/bin/env bash
# Session 12, call 8: where the tile-balanced combine's long-request blocks spend their time
# (mixed lengths' tail). G = b28e6eb. Nsight Compute on the combine kernel of one production
# launch of kimi_k2_tp8_mixed_lengths (caches not flushed between passes: the partials are
# where the main kernel left them): stall samples per SASS line, warp states, memory.
tar xJf .device-carry/s12-c8.tar.xz -C .device-carry || exit 1
O=/tmp/s12c8; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
VERIFYBENCH=$PWD/.device-carry/G/run.sh timeout 240 scripts/profile.sh scenarios/perf.yaml kimi_k2_tp8_mixed_lengths \
  --kernel-name regex:combine --cache-control none --section SourceCounters --section WarpStateStats \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats > $O/ncu.log 2>&1
echo "ncu rc=$?"; tail -n 5 $O/ncu.log
rep=$(ls -t reports/local/ncu-*.ncu-rep | head -n 1)
ncu --import "$rep" --page details --print-details all > $O/combine-details.txt 2>&1
ncu --import "$rep" --page source --print-source sass --csv --kernel-name regex:combine > $O/combine-source-sass.csv 2>&1
python3 scripts/stalls_top.py $O/combine-source-sass.csv 30 > $O/combine-stalls-top.txt 2>&1
head -n 14 $O/combine-stalls-top.txt | cut -c1-200
grep -E "Duration|Achieved Occupancy|Memory Throughput|L2 Hit|DRAM Throughput|Registers Per|Waves Per SM|Block Limit" $O/combine-details.txt | head -14
gzip -q $O/combine-source-sass.csv
tar czf $OUT/s12c8.tgz -C /tmp s12c8
