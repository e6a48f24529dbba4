#!/usr/bin/env bash
# wgmma-schedule A/B (helper session, issue 27 item 2): base (f8ae668) vs rope3 / poly2 kernels,
# and base with the planner's run boxes on 2-row-tile plans. Stops starting work at a deadline.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?}
w=/tmp/wab; mkdir -p $w
t0=$SECONDS; deadline=${AB_DEADLINE:-270}
left() { echo $((deadline - (SECONDS - t0))); }
tar xJf "$here/ab.tar.xz" -C $w
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit --format=csv > $out/nvidia-smi.txt 2>&1
cases=(--case 'kimi_k2_tp8_dflash16/batch.size=32' --case 'deepseek_v3_dp128_decode/batch.size=64'
       --case 'kimi_k2_tp8_dflash16/batch.size=8' --case 'kimi_k2_tp8_ddtree/tree.budget=64,batch.size=8'
       --case 'kimi_k2_tp8_128k_batch8')
perf() {  # TAG BUNDLE ROUND [planner args]
  local tag=$1 bun=$2 r=$3; shift 3
  [[ $(left) -lt 25 ]] && { echo "skip $tag $r (deadline)"; return; }
  local s=$SECONDS
  timeout $(( $(left) > 90 ? 90 : $(left) )) $w/$bun/run.sh run scenarios/perf.yaml --time --modes cold --budget-s 0.12 \
    --max-samples 60 "${cases[@]}" "$@" --out-dir $w/perf-$tag-$r > $w/perf-$tag-$r.log 2>&1
  echo "$tag round $r rc=$? $((SECONDS - s)) s $(grep '^summary' $w/perf-$tag-$r.log)"
}
perf base base 1
perf rope3 rope3 1
perf poly2 poly2 1
perf runbox base 1 --planner wgmma_run_boxes_min_row_tiles=2
for b in rope3 poly2; do
  [[ $(left) -lt 40 ]] && { echo "skip tests $b"; continue; }
  s=$SECONDS
  (cd $w/$b && timeout 60 ./run_gpu_tests.sh) > $w/tests-$b.log 2>&1
  echo "$b tests rc=$? $((SECONDS - s)) s $(grep -E 'test cases|assertions' $w/tests-$b.log | tail -1)"
done
perf poly2 poly2 2
perf rope3 rope3 2
perf runbox base 2 --planner wgmma_run_boxes_min_row_tiles=2
perf base base 2
python3 - $w > $out/ab-table.txt <<'PY'
import csv, glob, os, sys
w = sys.argv[1]
rows = {}
for f in sorted(glob.glob(w + "/perf-*/results.csv")):
    tag = os.path.basename(os.path.dirname(f))[len("perf-"):]
    for r in csv.DictReader(open(f)):
        if r["executor"] not in ("production", "production/block-table") or r["mode"] != "cold-l2" or not r["median_ms"]:
            continue
        rows.setdefault((r["case"], r["executor"]), {})[tag] = (float(r["median_ms"]) * 1000, r["outcome"], r["sm_clock_mhz_median"], r["tflops"])
tags = sorted({t for v in rows.values() for t in v})
print("case,executor," + ",".join(tags))
for (c, e), v in rows.items():
    print(f"{c},{e}," + ",".join(f"{v[t][0]:.1f}/{v[t][1][:4]}/{v[t][2]}MHz/{v[t][3]}" if t in v else "-" for t in tags))
PY
cat $out/ab-table.txt
cd $w && tar czf $out/ab-raw.tgz perf-*/results.csv perf-*/summary.md perf-*.log tests-*.log 2>/dev/null
echo "total $((SECONDS - t0)) s"
