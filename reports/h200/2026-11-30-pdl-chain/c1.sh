#!/usr/bin/env bash
# Session 14, call 1: programmatic dependent launch over the previous kernel. P = the build
# with FlashVerifyLaunchOptions (main kernels wait with griddepcontrol.wait first; the combine
# lets the next kernel launch at entry); M = P with -DVB_DEBUG_NO_PREREQUISITE_WAIT=1 (the
# mutation the two overlap tests must catch). P's GPU tests; M's overlap tests (expected to
# FAIL); memcheck of P's back-to-back test (the sanitizer may serialise launches, which the
# delayed-writer test REQUIREs do not happen); cold, chain and chain-pdl samples of 12 cases with P.
tar xJf .device-carry/s14-c1.tar.xz -C .device-carry || exit 1
O=/tmp/s14c1; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/P && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-P.log 2>&1; echo "P tests rc=$? $(tail -n 1 $O/gpu-tests-P.log)"
for t in 'launched over a kernel still writing its Q*' 'two launches back to back*'; do
  ( cd .device-carry/M && timeout 60 ./run_gpu_tests.sh "$t" ) >> $O/gpu-tests-M-mutation.log 2>&1; echo "M (mutation) '$t' rc=$?"
done
grep -E "FAILED|passed|failed" $O/gpu-tests-M-mutation.log | head -n 6
( cd .device-carry/P && LD_LIBRARY_PATH=lib timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 \
    bin/vb_test_kernels 'two launches back to back*' ) > $O/memcheck-overlap.log 2>&1
echo "memcheck overlap tests rc=$? $(grep -E 'ERROR SUMMARY' $O/memcheck-overlap.log | tail -n 1)"
tar czf $OUT/s14c1.tgz -C /tmp s14c1
cases=('kimi_k2_tp8_decode/batch.size=1,pages.size=64' 'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]'
  'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]'
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[16384]' 'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=8'
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' 'kimi_k2_tp8_dflash16/batch.size=1' deepseek_v3_dp128_decode/batch.size=8
  sglang_peer_b8_h16_t4_p4k kimi_k2_tp8_mixed_lengths 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64')
args=(); for c in "${cases[@]}"; do args+=(--case "$c"); done
timeout 300 .device-carry/P/run.sh run scenarios/perf.yaml "${args[@]}" --time --modes cold,chain,chain-pdl \
  --budget-s 0.3 --max-samples 200 --out-dir $O/chain > $O/chain.txt 2>&1; echo "chain run rc=$?"
sed -n '/back-to-back launches/,$p' $O/chain.txt | cut -c1-150
tar czf $OUT/s14c1.tgz -C /tmp s14c1
