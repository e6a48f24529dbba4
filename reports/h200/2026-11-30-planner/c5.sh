#!/usr/bin/env bash
# Session 9, call 5. W1 = the tile-balanced wgmma instance without the C7520 serialisation (see
# see BUILD_INFO), planner taking it when modelled cheaper (gain 1.0, boundary 2 units);
# W1G = W1 with -DVB_WGMMA_BALANCE_MIN_GAIN=100 (the wgmma path never balanced: call 3's F
# plans); W1B4 = W1 with 4 boundary units; W1T = W1 with the phase timeline. W1's GPU tests
# (new: wgmma tile-balanced plans of 2-128 blocks, 72 and 8 rows, and a graph replay);
# W1G / W1 / W1B4 A/B, 2 rounds; mixed-lengths timeline (W1T); W1's correctness file;
# memcheck and synccheck of the tile-balanced correctness case.
tar xJf .device-carry/s9-c5.tar.xz -C .device-carry || exit 1
O=/tmp/s9c5; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
(cd .device-carry/W1 && timeout 150 ./run_gpu_tests.sh) > $O/gpu-tests-W1.log 2>&1; echo "W1 tests rc=$? $(tail -n 2 $O/gpu-tests-W1.log | tr '\n' ' ')"
grep -E "FAILED|REQUIRE|CHECK\(|with expansion|planned:" $O/gpu-tests-W1.log | head -n 12
tar czf $OUT/s9c5.tgz -C /tmp s9c5
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 220 scripts/ab_bundles.sh $O/ab .device-carry/W1G .device-carry/W1 .device-carry/W1B4 -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_eagle/batch.size=8 kimi_k2_tp8_eagle/batch.size=32 \
  deepseek_v3_tp8_shared_prefix kimi_k2_tp8_skewed_lengths > $O/ab.txt 2>&1
tail -n 6 $O/ab.txt
for f in $O/ab/perf-*/results.csv; do echo "$(basename $(dirname $f)) $(grep cold-l2 $f | grep -E 'skewed_lengths,.*,production/wgmma,' | cut -d, -f12,16)"; done
tar czf $OUT/s9c5.tgz -C /tmp s9c5
timeout 60 .device-carry/W1T/run.sh profile scenarios/perf.yaml --case kimi_k2_tp8_mixed_lengths --launches 5 --timeline $O/timeline-mixed.csv > $O/timeline-mixed.txt 2>&1; echo "timeline rc=$?"
gzip -q $O/*.csv; grep -E "host events around|tiles per block|per tile|block lifetime|first entry -> last block end|last main end -> last combine" $O/timeline-mixed.txt
timeout 60 .device-carry/W1/run.sh run scenarios/correctness.yaml --out-dir $O/correctness > $O/correctness.log 2>&1; echo "correctness rc=$? $(grep '^summary' $O/correctness.log)"
for tool in memcheck synccheck; do
  LD_LIBRARY_PATH=$PWD/.device-carry/W1/lib timeout 90 compute-sanitizer --tool $tool --error-exitcode 99 .device-carry/W1/bin/verifybench run \
    scenarios/correctness.yaml --case tile_balanced_skewed --out-dir $O/$tool > $O/$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|^summary' $O/$tool.log | tr '\n' ' ')"
done
tar czf $OUT/s9c5.tgz -C /tmp s9c5
