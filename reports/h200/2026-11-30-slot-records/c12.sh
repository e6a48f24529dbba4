#!/usr/bin/env bash
# Session 13, call 12: what holds the combine's first loads after its grid wait. Nsight Compute
# on the combine kernel (instance 16, no warm pass) of one production launch of one 64k request
# with T = 4, with V = 9ebf893 and caches flushed before each pass (--cache-control all: its code
# is cold, as it is for the first block to run it after the wait). ncu runs it apart from the
# main kernel, so the wait returns at once. Stall samples per SASS line, in program order too.
tar xJf .device-carry/s13-c12.tar.xz -C .device-carry || exit 1
O=/tmp/s13c12; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
VERIFYBENCH=$PWD/.device-carry/V/run.sh timeout 200 scripts/profile.sh scenarios/perf.yaml 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  --kernel-name regex:combine --cache-control all --section SourceCounters --section WarpStateStats \
  --section SpeedOfLight --section LaunchStats > $O/ncu.log 2>&1
echo "ncu rc=$?"; tail -n 3 $O/ncu.log
rep=$(ls -t reports/local/ncu-*.ncu-rep | head -n 1)
ncu --import "$rep" --page details --print-details all > $O/combine-details.txt 2>&1
ncu --import "$rep" --page source --print-source sass --csv --kernel-name regex:combine > $O/combine-source-sass.csv 2>&1
python3 scripts/stalls_top.py $O/combine-source-sass.csv 30 > $O/combine-stalls-top.txt 2>&1
head -n 16 $O/combine-stalls-top.txt | cut -c1-160
grep -E "Duration|Stall No Instruction|Stall IMC|Stall Long Scoreboard|Stall LG Throttle|Stall Wait" $O/combine-details.txt | head -10
gzip -q $O/combine-source-sass.csv
tar czf $OUT/s13c12.tgz -C /tmp s13c12
