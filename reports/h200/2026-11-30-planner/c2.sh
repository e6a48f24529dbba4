#!/usr/bin/env bash
# Session 9, call 2. C = 2255c8c (length-aware plans number their blocks busy-first:
# compact_split), CT = C with the phase timeline; P and F as in call 1. C's GPU tests; a
# P / F / C A/B, 2 rounds, on the cases with fixed-size split plans (mixed lengths, Kimi
# EAGLE B8 / B32, DeepSeek shared prefix: F's plan is fixed-size there, P's even) and two
# controls (skewed: tile-balanced; 128k x 8: even); the mixed-lengths timeline (CT); then
# C's full validation: correctness, perf (in-run ceilings), memcheck/initcheck/synccheck,
# and the nightly gate.
for t in s9-c1 s9-c2; do tar xJf .device-carry/$t.tar.xz -C .device-carry || exit 1; done
O=/tmp/s9c2; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
(cd .device-carry/C && timeout 120 ./run_gpu_tests.sh) > $O/gpu-tests-C.log 2>&1; echo "C tests rc=$? $(tail -n 2 $O/gpu-tests-C.log | tr '\n' ' ')"
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 200 scripts/ab_bundles.sh $O/ab .device-carry/P .device-carry/F .device-carry/C -- \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_eagle/batch.size=8 kimi_k2_tp8_eagle/batch.size=32 \
  deepseek_v3_tp8_shared_prefix kimi_k2_tp8_skewed_lengths kimi_k2_tp8_128k_batch8 > $O/ab.txt 2>&1
tail -n 8 $O/ab.txt
tar czf $OUT/s9c2.tgz -C /tmp s9c2
timeout 60 .device-carry/CT/run.sh profile scenarios/perf.yaml --case kimi_k2_tp8_mixed_lengths --launches 5 --timeline $O/timeline-mixed.csv > $O/timeline-mixed.txt 2>&1; echo "timeline rc=$?"
gzip -q $O/*.csv; grep -E "host events around|dispatch|per tile|block lifetime|first entry -> last block end|last main end -> last combine" $O/timeline-mixed.txt
tar czf $OUT/s9c2.tgz -C /tmp s9c2
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 300 scripts/lab_run.sh .device-carry/C $O/final tests correctness perf sanitize-fast 2>&1 | tail -n 8
tar czf $OUT/s9c2.tgz -C /tmp s9c2
VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4" VB_NIGHTLY_OUT=$O/nightly VERIFYBENCH=$PWD/.device-carry/C/run.sh timeout 90 scripts/nightly.sh > $O/nightly.log 2>&1; echo "nightly rc=$?"; tail -n 3 $O/nightly.log
tar czf $OUT/s9c2.tgz -C /tmp s9c2
