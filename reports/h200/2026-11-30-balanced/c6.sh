#!/usr/bin/env bash
# Session 8, call 6: racecheck of the tile-balanced correctness case (both perf-relevant paths
# run it) restricted to the mma.sync main kernel and to the combine, in the every-lane-arrives
# build BL (call 5's unrestricted run hit racecheck's hazard limit on the wgmma kernel's known
# bar.arrive reports, reports/h200/2026-11-29-combine/README.md).
[[ -x .device-carry/BL/bin/verifybench ]] || tar xJf .device-carry/s8-c5.tar.xz -C .device-carry || exit 1
O=/tmp/s8c6; mkdir -p $O
for k in flash_verify_kernel flash_verify_combine_kernel; do
  LD_LIBRARY_PATH=$PWD/.device-carry/BL/lib timeout 200 compute-sanitizer --tool racecheck --kernel-name kns=$k --error-exitcode 99 \
    .device-carry/BL/bin/verifybench run scenarios/correctness.yaml --case tile_balanced_skewed --out-dir $O/racecheck-$k > $O/racecheck-$k.log 2>&1
  echo "racecheck $k rc=$? $(grep -E 'RACECHECK SUMMARY|^summary' $O/racecheck-$k.log | tr '\n' ' ')"
done
tar czf $OUT/s8c6.tgz -C /tmp s8c6
