#!/usr/bin/env python3
"""Ratios of an A/B run (scripts/ab_bundles.sh OUT ...): for each executor and each bundle
other than BASE, the cold-L2 median of every case over BASE's (each the mean over rounds),
and their geometric mean. Below 1: faster than BASE.

Usage: scripts/ab_ratios.py OUT BASE [EXECUTOR...]   (default: every executor but naive)
"""
import collections
import csv
import glob
import math
import os
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
out, base = sys.argv[1], sys.argv[2]
wanted = set(sys.argv[3:])
# (bundle, executor) -> case -> [median ms per round]
medians = collections.defaultdict(lambda: collections.defaultdict(list))
for path in glob.glob(os.path.join(out, 'perf-*-*', 'results.csv')):
    bundle = os.path.basename(os.path.dirname(path))[len('perf-'):].rsplit('-', 1)[0]
    with open(path) as f:
        for row in csv.DictReader(f):
            if row['mode'] != 'cold-l2' or not row['median_ms'] or row['executor'] == 'naive':
                continue
            if wanted and row['executor'] not in wanted:
                continue
            medians[(bundle, row['executor'])][row['case']].append(float(row['median_ms']))
if not medians:
    sys.exit(f"ab_ratios: no cold-l2 results under {out}/perf-*-*/results.csv")
bundles = sorted({b for b, _ in medians})
if base not in bundles:
    sys.exit(f"ab_ratios: no bundle named {base} (found: {', '.join(bundles)})")
for executor in sorted({e for _, e in medians}):
    for other in bundles:
        if other == base:
            continue
        logs = []
        print(f"== {executor}: {other} / {base}")
        for case, base_ms in sorted(medians[(base, executor)].items()):
            other_ms = medians[(other, executor)].get(case)
            if not other_ms:
                continue
            b = sum(base_ms) / len(base_ms)
            o = sum(other_ms) / len(other_ms)
            logs.append(math.log(o / b))
            rounds = ' '.join(f'{x * 1000:.1f}' for x in other_ms)
            base_rounds = ' '.join(f'{x * 1000:.1f}' for x in base_ms)
            print(f"  {case[:60]:60s} {b * 1000:9.1f} {o * 1000:9.1f} us  {o / b:.3f}  (rounds {rounds} vs {base_rounds})")
        if logs:
            print(f"  geomean {math.exp(sum(logs) / len(logs)):.3f} over {len(logs)} cases")
