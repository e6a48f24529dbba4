#!/usr/bin/env bash
# Session 11, call 8: the review's refactor (R = HEAD: one walk-advance helper, one "holds its
# request whole" test). Its machine code differs from b6c80f5's (O) only in the mma.sync
# path's two tile-balanced instances. R's GPU tests (they run those instances over 2-200
# blocks and every depth) and the correctness file; then production/mma.sync (the forced
# mma.sync executor, tile-balanced on these batches) timed with R and O, 2 rounds.
tar xJf .device-carry/s11-c8.tar.xz -C .device-carry || exit 1
O=/tmp/s11c8; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
( cd .device-carry/R && timeout 90 ./run_gpu_tests.sh ) > $O/gpu-tests-R.log 2>&1; echo "R tests rc=$? $(tail -n 1 $O/gpu-tests-R.log)"
timeout 120 scripts/lab_run.sh .device-carry/R $O/final correctness 2>&1 | tail -n 2
for round in 1 2; do
  for b in R O; do
    timeout 60 .device-carry/$b/run.sh run scenarios/perf.yaml --time --modes cold --budget-s 0.15 --max-samples 100 \
      --case kimi_k2_tp8_skewed_lengths --case kimi_k2_tp8_mixed_lengths --case deepseek_v3_tp8_shared_prefix \
      --case kimi_k2_tp8_eagle/batch.size=32 --out-dir $O/perf-$b-$round > $O/perf-$b-$round.log 2>&1
  done
done
python3 - $O <<'PY'
import json,sys,glob
o=sys.argv[1]
for ex in ("production/mma.sync","production"):
    print(ex, "cold-L2 medians, us (R-1 R-2 | O-1 O-2), plan")
    rows={}
    for b in ("R","O"):
        for r in (1,2):
            js=json.load(open(f"{o}/perf-{b}-{r}/result.json"))
            for c in js["cases"]:
                for e in c["executors"]:
                    if e.get("executor")==ex:
                        t=[x for x in (e.get("timings") or []) if x.get("mode")=="cold-l2"]
                        rows.setdefault(c["case"],[]).append("%7.1f"%(t[0]["median_ms"]*1000) if t else "   -   ")
    for k,v in rows.items(): print(f"  {k[:40]:40s}", " ".join(v[:2]), "|", " ".join(v[2:]))
PY
tar czf $OUT/s11c8.tgz -C /tmp s11c8
