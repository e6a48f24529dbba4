#!/usr/bin/env bash
# Session 14, call 2: P and M as in call 1, with the delayed-writer test loading its kernels
# first (call 1: a lazily loaded kernel's first launch did not overlap). P's GPU tests; M's two
# overlap tests (expected to FAIL); A/B of the ordinary (cold) launch, F = d265552 (machine
# code of 7f23405, the commit before) against P, 2 rounds, 12 cases; chain and chain-pdl of the
# large memory-bound cases with P (call 1: MTP T4 B64's chain-pdl was bimodal, 308 / 333 µs).
tar xJf .device-carry/s14-c2.tar.xz -C .device-carry || exit 1
O=/tmp/s14c2; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/P && timeout 150 ./run_gpu_tests.sh ) > $O/gpu-tests-P.log 2>&1; echo "P tests rc=$? $(tail -n 1 $O/gpu-tests-P.log)"
for t in 'launched over a kernel still writing its Q*' 'two launches back to back*'; do
  ( cd .device-carry/M && timeout 60 ./run_gpu_tests.sh "$t" ) >> $O/gpu-tests-M-mutation.log 2>&1; echo "M (mutation) '$t' rc=$?"
done
grep -E "FAILED:|REQUIRE|CHECK\(" $O/gpu-tests-M-mutation.log | sort | uniq -c | head -n 8
tar czf $OUT/s14c2.tgz -C /tmp s14c2
timeout 120 .device-carry/P/run.sh run scenarios/perf.yaml --case 'kimi_k2_tp8_mtp/tree.nodes=2,batch.size=64' \
  --case 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=32' --case 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' \
  --case kimi_k2_tp8_128k_batch8 --case 'layout_b64_h8_t4_p16k/pages.placement=shuffled' --case 'kimi_k2_tp8_eagle/batch.size=32' \
  --time --modes cold,chain,chain-pdl --budget-s 0.5 --max-samples 100 --out-dir $O/chain > $O/chain.txt 2>&1; echo "chain run rc=$?"
sed -n '/back-to-back launches/,$p' $O/chain.txt | grep -E "production |pdl/chain" | cut -c1-150
tar czf $OUT/s14c2.tgz -C /tmp s14c2
AB_SKIP_TESTS=1 AB_ROUNDS=2 timeout 330 scripts/ab_bundles.sh $O/ab .device-carry/F .device-carry/P -- \
  'kimi_k2_tp8_decode/batch.size=1,pages.size=64' 'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' \
  'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' 'kimi_k2_tp8_single_request/batch.prefix_lens=[65536]' \
  'kimi_k2_tp8_single_request_t16/batch.prefix_lens=[65536]' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' kimi_k2_tp8_dflash16/batch.size=1 deepseek_v3_dp128_decode/batch.size=8 \
  kimi_k2_tp8_mixed_lengths kimi_k2_tp8_skewed_lengths kimi_k2_tp8_128k_batch8 > $O/ab.txt 2>&1
tail -n 15 $O/ab.txt | cut -c1-200
tar czf $OUT/s14c2.tgz -C /tmp s14c2
