#!/usr/bin/env python3
"""One line per case from the `verifybench profile --timeline` outputs in a folder.

Usage: scripts/timeline_table.py DIR  (DIR holds the N.txt files a lab call wrote, as in
reports/h200/2026-11-30-timeline/call4-cacbf48-validation-timeline/timeline/ in git history
at 93371d3).
Columns (µs, medians over the launches): host events, device span, main blocks, tiles of the
longest block, entry -> first copies issued, entry -> first tile landed, per tile, epilogue,
imbalance, last main end -> last combine end, launch (host - span), fixed (host - tiles x
per tile; meaningful for one-wave plans only), and the median main block's SM clock over its
lifetime (MHz, its cycle counter over the global timer; '-' for outputs without it).
"""
import re,glob,os,sys
rows=[]
d=sys.argv[1]
for f in sorted(glob.glob(d+'/*.txt'), key=lambda p:(len(p),p)):
    if f.endswith('cases.txt') or f.endswith('not-run.txt'): continue
    t=open(f).read()
    m=re.search(r'timeline of (\S+) \(',t)
    if not m: continue
    g=lambda pat: (lambda mm: float(mm.group(1)) if mm else None)(re.search(pat,t))
    r=dict(case=m.group(1),
      host=g(r'host events around the launch\s+([\d.]+)'),
      span=g(r'device span .*?\s+([\d.]+) us'),
      blocks=g(r'main kernel: (\d+) blocks'),
      tiles=g(r'tiles per block median \d+ max (\d+)'),
      first=g(r'entry -> first KV tile landed\s+median\s+([\d.]+)'),
      issue=g(r'entry -> first KV copies issued.*?median\s+([\d.]+)'),
      pertile=g(r'per tile .*?median\s+([\d.]+)'),
      epi=g(r'epilogue\)\s+median\s+([\d.]+)'),
      imb=g(r'\(imbalance\)\s+([\d.]+)'),
      comb=g(r'last main end -> last combine end\s+([\d.]+)'),
      life=g(r'block lifetime .*?median\s+([\d.]+)'),
      lifemax=g(r'block lifetime .*?max\s+([\d.]+)'),
      mhz=g(r"SM clock over a block's lifetime .*?median\s+([\d.]+)"))
    rows.append(r)
f=lambda v,w=6,p=1: ('-' if v is None else f'{v:.{p}f}').rjust(w)
print(f"{'case':58s} {'host':>6} {'span':>6} {'blk':>4} {'tiles':>5} {'issue':>6} {'1st':>6} {'/tile':>6} {'epi':>6} {'imb':>6} {'comb':>6} {'launch':>6} {'fixed':>6} {'MHz':>5}")
for r in rows:
    launch = r['host']-r['span'] if r['host'] and r['span'] else None
    fixed = r['host']-r['tiles']*r['pertile'] if r['host'] and r['tiles'] and r['pertile'] else None
    print(f"{r['case'][:58]:58s} {f(r['host'])} {f(r['span'])} {f(r['blocks'],4,0)} {f(r['tiles'],5,0)} {f(r['issue'],6,2)} {f(r['first'],6,2)} {f(r['pertile'],6,2)} {f(r['epi'],6,2)} {f(r['imb'],6,2)} {f(r['comb'],6,2)} {f(launch,6,2)} {f(fixed)} {f(r['mhz'],5,0)}")
