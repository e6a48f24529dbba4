#!/usr/bin/env bash
# Session 14, call 4: why chain-pdl was slower on some large launches (call 3: the layout
# cases 1.03-1.07, bimodal across samples at full clocks). PT = P with the phase timeline:
# timelines of the last launch of chain and chain-pdl samples. Then chain / chain-pdl samples
# of 9 cases with P (combine triggers the next launch at entry), T2 (after its grid wait) and
# T0 (no trigger: as its blocks exit), 2 interleaved rounds.
tar xJf .device-carry/s14-c4.tar.xz -C .device-carry || exit 1
O=/tmp/s14c4; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $O/gpu.txt
i=0
for c in 'layout_b64_h8_t4_p16k/pages.placement=interleaved' 'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8'; do
  for m in chain chain-pdl; do
    i=$((i+1))
    timeout 60 .device-carry/PT/run.sh profile scenarios/perf.yaml --case "$c" --launches 8 --timeline $O/timeline-$i.csv \
      --timeline-mode $m > $O/timeline-$i.txt 2>&1; echo "timeline $i $m $c rc=$?"
    grep -E "host event times|first -> last block entry|entry -> first KV tile|imbalance|last main end -> last" $O/timeline-$i.txt | cut -c1-130
  done
done
gzip -q $O/*.csv
tar czf $OUT/s14c4.tgz -C /tmp s14c4
cases=('kimi_k2_tp8_decode/batch.size=1,pages.size=64' 'kimi_k2_tp8_single_request/batch.prefix_lens=[16384]'
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=8' deepseek_v3_dp128_decode/batch.size=8 sglang_peer_b8_h16_t4_p4k
  'layout_b64_h8_t4_p16k/pages.placement=interleaved' 'layout_b64_h8_t4_p16k/pages.placement=shuffled'
  'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' kimi_k2_tp8_mixed_lengths)
args=(); for c in "${cases[@]}"; do args+=(--case "$c"); done
for r in 1 2; do
  for b in P T2 T0; do
    timeout 100 .device-carry/$b/run.sh run scenarios/perf.yaml "${args[@]}" --time --modes chain,chain-pdl \
      --budget-s 0.2 --max-samples 60 --json $O/chain-$b-$r.json > $O/chain-$b-$r.txt 2>&1; echo "$b round $r rc=$?"
  done
  tar czf $OUT/s14c4.tgz -C /tmp s14c4
done
python3 - $O <<'PY'
import json, sys, glob, os, statistics
o = sys.argv[1]; rows = {}
for f in sorted(glob.glob(o + '/chain-*.json')):
    b = os.path.basename(f).split('-')[1]
    for c in json.load(open(f))['cases']:
        for e in c['executors']:
            if e['executor'] != 'production': continue
            for t in e.get('timings', []):
                if t.get('median_ms'): rows.setdefault(c['case'], {}).setdefault((b, t['mode']), []).append(t['median_ms'] * 1e3)
print(f"{'case':50s} " + " ".join(f"{b+' '+m:>13s}" for b in ('P', 'T2', 'T0') for m in ('chain', 'chain-pdl')))
for case, d in rows.items():
    print(f"{case[:50]:50s} " + " ".join(f"{statistics.mean(d.get((b, m), [float('nan')])):13.1f}" for b in ('P', 'T2', 'T0') for m in ('chain', 'chain-pdl')))
PY
tar czf $OUT/s14c4.tgz -C /tmp s14c4
