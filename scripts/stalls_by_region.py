#!/usr/bin/env python3
"""Warp stall samples of a warp-specialised kernel by warpgroup: reads the ncu SASS source
export (stalls-source-sass.csv[.gz], from `scripts/lab_run.sh ... stalls`) and cuts the first
kernel's code at its USETMAXREG instructions, which open the warpgroups' branches. Prints, per
region in code order, its share of the samples, its top stall reasons and its N busiest SASS
lines. A stall is charged to the instruction a warp waits to issue: samples of a barrier show
on the instruction after it.

Usage: scripts/stalls_by_region.py stalls-source-sass.csv[.gz] [N]   (N lines, default 12)
"""
import collections
import csv
import gzip
import sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
path = sys.argv[1]
top_n = int(sys.argv[2]) if len(sys.argv) > 2 else 12
with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
    rows = list(csv.reader(f))
header = rows[1]
data = []
for row in rows[2:]:
    if row and row[0] == "Kernel Name":  # the next kernel's table
        break
    if len(row) == len(header):
        data.append(row)
samples = header.index("Warp Stall Sampling (All Samples)")
reasons = [(j, h[len('stall_'):]) for j, h in enumerate(header) if h.startswith('stall_') and 'Not Issued' not in h]
marks = [k for k, row in enumerate(data) if 'SETMAXREG' in row[1]]


def region(k):
    return 'prologue' if not marks or k < marks[0] else f'region {sum(1 for m in marks if k >= m)}'


total = collections.Counter()
by_reason = collections.defaultdict(collections.Counter)
lines = collections.defaultdict(list)
for k, row in enumerate(data):
    name, n = region(k), int(row[samples] or 0)
    total[name] += n
    for j, reason in reasons:
        by_reason[name][reason] += int(row[j] or 0)
    lines[name].append((n, k, row[1].strip()[:72]))
grand = sum(total.values()) or 1
print(f"{path}: {grand} samples; USETMAXREG at SASS lines {marks} (regions in code order)")
for name in ['prologue'] + [f'region {i + 1}' for i in range(len(marks))]:
    n = total[name] or 1
    print(f"{name}: {total[name]} samples ({100 * total[name] / grand:.1f} %): " +
          ", ".join(f"{r} {100 * v / n:.1f} %" for r, v in by_reason[name].most_common(6)))
    for count, k, text in sorted(lines[name], reverse=True)[:top_n]:
        print(f"   {100 * count / n:5.1f} %  line {k:5d}  {text}")
