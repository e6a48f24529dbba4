#!/usr/bin/env bash
# Session 14, call 9: does a chain of launches over the previous one leave the device slower
# for the launches after it? In call 3 (and 8), executors timed after production's chain-pdl
# samples read 5-9 % slower in their *cold* samples than production did, where session 13's
# cold-only run had them within 1-2 %. R2 (d96a761), 3 large cases, four runs in a row:
# cold only; cold + chain; cold + chain + chain-pdl; cold only again.
tar xJf .device-carry/s14-c8.tar.xz -C .device-carry || exit 1
O=/tmp/s14c9; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,temperature.memory --format=csv > $O/gpu.txt
i=0
for modes in cold cold,chain cold,chain,chain-pdl cold; do
  i=$((i+1))
  timeout 120 .device-carry/R2/run.sh run scenarios/perf.yaml --case 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' \
    --case 'layout_b64_h8_t4_p16k/pages.placement=interleaved' --case kimi_k2_tp8_128k_batch8 \
    --time --modes $modes --budget-s 0.3 --max-samples 100 --json $O/run-$i.json > $O/run-$i.txt 2>&1
  echo "run $i ($modes) rc=$?"
done
python3 - $O <<'PY'
import json, sys
o = sys.argv[1]
names = {1: 'cold', 2: 'cold,chain', 3: 'cold,chain,chain-pdl', 4: 'cold (again)'}
for i in range(1, 5):
    print(f"run {i}: {names[i]}  (cold-l2 medians, us; executors in the order timed)")
    for c in json.load(open(f"{o}/run-{i}.json"))['cases']:
        cells = []
        for e in c['executors']:
            for t in e.get('timings', []):
                if t['mode'] == 'cold-l2' and t.get('median_ms') and e['executor'] != 'naive':
                    cells.append(f"{e['executor'].replace('production', 'prod')} {t['median_ms']*1e3:.1f}")
        print(f"  {c['case'][-30:]:30s} " + " | ".join(cells))
PY
tar czf $OUT/s14c9.tgz -C /tmp s14c9
