#!/usr/bin/env bash
# Session 14, call 8: does the memory's temperature go with the slow regime of large chains?
# R2 = d96a761, which records each measurement's HBM temperature range (NVML field 82).
# Three large memory-bound cases, cold / chain / chain-pdl, two runs back to back; per
# measurement: median, min, p90 and the temperatures.
tar xJf .device-carry/s14-c8.tar.xz -C .device-carry || exit 1
O=/tmp/s14c8; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,temperature.memory --format=csv > $O/gpu.txt
cat $O/gpu.txt
for r in 1 2; do
  timeout 150 .device-carry/R2/run.sh run scenarios/perf.yaml --case 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' \
    --case 'layout_b64_h8_t4_p16k/pages.placement=interleaved' --case 'layout_b64_h8_t4_p16k/pages.placement=shuffled' \
    --time --modes cold,chain,chain-pdl --budget-s 0.4 --max-samples 120 --json $O/run-$r.json > $O/run-$r.txt 2>&1
  echo "run $r rc=$?"
done
nvidia-smi --query-gpu=temperature.gpu,temperature.memory --format=csv >> $O/gpu.txt
python3 - $O <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + '/run-*.json')):
    for c in json.load(open(f))['cases']:
        for e in c['executors']:
            if e['executor'] == 'naive' or e['executor'].startswith('reference'): continue
            for t in e.get('timings', []):
                if not t.get('median_ms'): continue
                print(f"{f[-6:-5]} {c['case'][-28:]:28s} {e['executor']:22s} {t['mode']:9s} med {t['median_ms']*1e3:6.1f} min {t['min_ms']*1e3:6.1f} "
                      f"p90 {t['p90_ms']*1e3:6.1f} n {len(t['samples_ms']):3d} gpu {t.get('temperature_c_max')} mem {t.get('memory_temperature_c_min')}-{t.get('memory_temperature_c_max')}")
PY
tar czf $OUT/s14c8.tgz -C /tmp s14c8
