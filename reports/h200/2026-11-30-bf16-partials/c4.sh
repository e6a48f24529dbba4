#!/usr/bin/env bash
# Session 12, call 4: validation of G = b28e6eb (bf16 split partials on both paths' fixed-size
# and even plans): GPU tests, an A/B of F (82d144e: bf16 on the wgmma path only) and G over
# four cases, 4 rounds (call 3 saw one 64k T16 request 1.4 % slower with the mma.sync change);
# then correctness, perf (67 cases, ceilings in the same run), memcheck / initcheck / synccheck.
tar xJf .device-carry/s12-c4.tar.xz -C .device-carry || exit 1
O=/tmp/s12c4; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/G && timeout 120 ./run_gpu_tests.sh ) > $O/gpu-tests-G.log 2>&1; echo "G tests rc=$? $(tail -n 1 $O/gpu-tests-G.log)"
AB_SKIP_TESTS=1 AB_ROUNDS=4 timeout 150 scripts/ab_bundles.sh $O/ab .device-carry/F .device-carry/G -- \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[16384]' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=32' 'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' > $O/ab.txt 2>&1
tail -n 6 $O/ab.txt | cut -c1-250
tar czf $OUT/s12c4.tgz -C /tmp s12c4
VB_PERF_ARGS="--budget-s 0.2 --max-samples 100" timeout 380 scripts/lab_run.sh .device-carry/G $O/final correctness perf sanitize-fast 2>&1 | tail -n 6
tar czf $OUT/s12c4.tgz -C /tmp s12c4
