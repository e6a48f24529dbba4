#!/usr/bin/env python3
"""Where a kernel's warps wait: reads the `ncu --page source --print-source sass --csv` export
that `scripts/lab_run.sh ... stalls` writes (stalls-source-sass.csv) and prints the stall-reason
totals of the first kernel in it and its SASS lines with the most warp stall samples.

Usage: scripts/stalls_top.py stalls-source-sass.csv [N]   (N lines, default 25)
"""
import csv, sys
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; data=[]
for r in rows[2:]:
    if r and r[0]=="Kernel Name": break
    if len(r)==len(hdr): data.append(r)
i_s=hdr.index("Warp Stall Sampling (All Samples)")
rc=[(j,h) for j,h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
tot=sum(int(r[i_s] or 0) for r in data)
print("total samples",tot)
agg={h:sum(int(r[j] or 0) for r in data) for j,h in rc}
print("reasons:", ", ".join(f"{h[6:]} {100*v/tot:.1f}%" for h,v in sorted(agg.items(),key=lambda x:-x[1])[:9]))
top=sorted(range(len(data)),key=lambda k:-int(data[k][i_s] or 0))[:int(sys.argv[2]) if len(sys.argv)>2 else 25]
for k in top:
    r=data[k]; n=int(r[i_s] or 0)
    rs=sorted(((int(r[j] or 0),h[6:]) for j,h in rc),reverse=True)[:2]
    print(f"{100*n/tot:5.1f}% idx{k:5d} {r[1].strip()[:60]:60s} {rs}")
