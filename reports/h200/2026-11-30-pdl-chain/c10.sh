#!/usr/bin/env bash
# Session 14, call 10: R3 = 6299733 times the chain modes after every executor's cold samples
# and takes chain / chain-pdl samples in turn. Three large cases (call 9's) and three small
# ones, modes cold, chain, chain-pdl: are the executors' cold samples clean again, and what is
# chain-pdl against chain when both see the same device states?
tar xJf .device-carry/s14-c10.tar.xz -C .device-carry || exit 1
O=/tmp/s14c10; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,temperature.memory --format=csv > $O/gpu.txt
timeout 300 .device-carry/R3/run.sh run scenarios/perf.yaml --case 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' \
  --case 'layout_b64_h8_t4_p16k/pages.placement=interleaved' --case kimi_k2_tp8_128k_batch8 \
  --case 'kimi_k2_tp8_decode/batch.size=1,pages.size=64' --case 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]' \
  --case 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' \
  --time --modes cold,chain,chain-pdl --budget-s 0.3 --max-samples 100 --json $O/run.json > $O/run.txt 2>&1
echo "run rc=$?"
python3 - $O <<'PY'
import json, sys
for c in json.load(open(sys.argv[1] + '/run.json'))['cases']:
    print(c['case'])
    for e in c['executors']:
        t = {x['mode']: x for x in e.get('timings', []) if x.get('median_ms')}
        if not t or e['executor'] == 'naive': continue
        f = lambda m: f"{t[m]['median_ms']*1e3:7.1f}" if m in t else "      -"
        r = f"{t['chain-pdl']['median_ms']/t['chain']['median_ms']:.3f}" if 'chain' in t and 'chain-pdl' in t else "-"
        print(f"  {e['executor']:24s} cold {f('cold-l2')} chain {f('chain')} chain-pdl {f('chain-pdl')} ratio {r}")
PY
tar czf $OUT/s14c10.tgz -C /tmp s14c10
