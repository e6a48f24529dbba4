#!/usr/bin/env python3
"""Per case, the production executor's time and % of attainable in every timing mode of a run.

Usage: scripts/mode_goals.py RESULT.json[.gz]
A run's result.json gives "% of attainable" for the cold sample only (the issue-5 goals use
it). This prints, for each case, the roof time (the case's attainable time at the run's
ceilings, from the cold sample's percentage; the goal's budget is roof / goal) and that
percentage for every mode the run timed (cold, graph, chain, chain-pdl), so a reader sees
whether a goal missed in the cold sample is met when the launch is amortised. Which goal a case
falls under (85 % memory-bound batches, 60 % one request or compute-bound) is the issue's call,
not this script's.
"""
import gzip, json, sys

if len(sys.argv) != 2:
    sys.exit(__doc__)
path = sys.argv[1]
with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
    d = json.load(f)
c = d['ceilings']
print('ceilings: rows %.0f GB/s in order, %.0f GB/s shuffled; mma.sync %.0f TFLOP/s; launch floor %.2f us'
      % (c['row_read_contiguous_gbps'], c['row_read_shuffled_gbps'], c['mma_bf16_tflops'], c['launch_floor_us']))
modes = ('cold-l2', 'graph', 'chain', 'chain-pdl')
labels = ('cold', 'graph', 'chain', 'c-pdl')
print(f"{'case':58s} {'bound':7s} {'roof us':>7s} | " + ' '.join(f'{m:>7s}' for m in labels) + ' (us) | ' +
      ' '.join(f'{m:>6s}' for m in labels) + ' (% of attainable)')
for case in d['cases']:
    for e in case['executors']:
        if e['executor'] != 'production' or not e.get('achieved'):
            continue
        a = e['achieved']
        t = {x['mode']: x['median_ms'] * 1000 for x in e['timings']}
        roof = a['pct_of_attainable'] / 100 * t['cold-l2']
        times = [t.get(m) for m in modes]
        print(f"{case['case'][:58]:58s} {a['bound']:7s} {roof:7.1f} | " +
              ' '.join('      -' if x is None else f'{x:7.1f}' for x in times) + '      | ' +
              ' '.join('     -' if x is None else f'{roof / x * 100:6.1f}' for x in times))
