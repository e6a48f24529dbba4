#!/usr/bin/env bash
# Session 9, call 4. W0 = the tile-balanced wgmma instance (commit after 062ebd4's NOTES:
# see BUILD_INFO), planner taking it when modelled cheaper (gain 1.0, boundary 2 units);
# W100 = W0 with -DVB_WGMMA_BALANCE_MIN_GAIN=100 (the wgmma path never balanced: call 3's F
# plans); WB4 = W0 with 4 boundary units; W0T = W0 with the phase timeline. W0's GPU tests
# (new: wgmma tile-balanced plans of 2-128 blocks, 72 and 8 rows, and a graph replay);
# W100 / W0 / WB4 A/B, 2 rounds; mixed-lengths timeline (W0T); W0's correctness file;
# memcheck and synccheck of the tile-balanced correctness case.
tar xJf .device-carry/s9-c4.tar.xz -C .device-carry || exit 1
O=/tmp/s9c4; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
(cd .device-carry/W0 && timeout 150 ./run_gpu_tests.sh) > $O/gpu-tests-W0.log 2>&1; echo "W0 tests rc=$? $(tail -n 2 $O/gpu-tests-W0.log | tr '\n' ' ')"
grep -E "FAILED|REQUIRE|CHECK\(|with expansion|planned:" $O/gpu-tests-W0.log | head -n 12
tar czf $OUT/s9c4.tgz -C /tmp s9c4
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 220 scripts/ab_bundles.sh $O/ab .device-carry/W100 .device-carry/W0 .device-carry/WB4 -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_eagle/batch.size=8 kimi_k2_tp8_eagle/batch.size=32 \
  deepseek_v3_tp8_shared_prefix kimi_k2_tp8_skewed_lengths > $O/ab.txt 2>&1
tail -n 6 $O/ab.txt
for f in $O/ab/perf-*/results.csv; do echo "$(basename $(dirname $f)) $(grep cold-l2 $f | grep -E 'skewed_lengths,.*,production/wgmma,' | cut -d, -f12,16)"; done
tar czf $OUT/s9c4.tgz -C /tmp s9c4
timeout 60 .device-carry/W0T/run.sh profile scenarios/perf.yaml --case kimi_k2_tp8_mixed_lengths --launches 5 --timeline $O/timeline-mixed.csv > $O/timeline-mixed.txt 2>&1; echo "timeline rc=$?"
gzip -q $O/*.csv; grep -E "host events around|tiles per block|per tile|block lifetime|first entry -> last block end|last main end -> last combine" $O/timeline-mixed.txt
timeout 60 .device-carry/W0/run.sh run scenarios/correctness.yaml --out-dir $O/correctness > $O/correctness.log 2>&1; echo "correctness rc=$? $(grep '^summary' $O/correctness.log)"
for tool in memcheck synccheck; do
  LD_LIBRARY_PATH=$PWD/.device-carry/W0/lib timeout 90 compute-sanitizer --tool $tool --error-exitcode 99 .device-carry/W0/bin/verifybench run \
    scenarios/correctness.yaml --case tile_balanced_skewed --out-dir $O/$tool > $O/$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|^summary' $O/$tool.log | tr '\n' ' ')"
done
tar czf $OUT/s9c4.tgz -C /tmp s9c4
