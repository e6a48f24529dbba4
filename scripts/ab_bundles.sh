#!/usr/bin/env bash
# A/B (or A/B/C...) of kernel builds on the lab GPU in one device call: every bundle's GPU
# tests, then the same perf cases timed with each bundle in turn (cold L2), and one table of
# production medians side by side. Bundles come from scripts/bundle.sh, one per variant.
#
# Usage: scripts/ab_bundles.sh OUT BUNDLE... -- CASE...
#   AB_ROUNDS  rounds over the bundles (default 1; 2 shows run-to-run drift)
#   AB_BUDGET  --budget-s per measurement (default 0.15)
#   AB_FILE    scenario file (default scenarios/perf.yaml)
#   AB_SKIP_TESTS=1  skip the bundles' GPU tests (the call ran them already)
#   AB_EXECUTORS  executors to time, space-separated (default: all); the table shows the first
#                 (default: production). Every executor still runs and is checked.
# Every run still checks each executor against the reference: a faster but wrong variant
# shows "incorrect" in its column.
set -u
if [[ $# -lt 3 ]]; then
  echo "usage: $0 OUT BUNDLE... -- CASE..." >&2
  exit 2
fi
out=$1; shift
bundles=()
while [[ $# -gt 0 && $1 != -- ]]; do bundles+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
[[ ${#bundles[@]} -gt 0 && $# -gt 0 ]] || { echo "$0: need at least one bundle and one case" >&2; exit 2; }
mkdir -p "$out"
cases=()
for c in "$@"; do cases+=(--case "$c"); done
timed=()
for e in ${AB_EXECUTORS:-}; do timed+=(--time-executor "$e"); done
read -r table_executor _ <<< "${AB_EXECUTORS:-production}"
for bun in "${bundles[@]}"; do
  [[ ${AB_SKIP_TESTS:-0} == 1 ]] && break
  name=$(basename "$bun")
  ( cd "$bun" && ./run_gpu_tests.sh ) > "$out/gpu-tests-$name.log" 2>&1
  echo "$name tests rc=$? $(tail -n 1 "$out/gpu-tests-$name.log")"
done
for round in $(seq 1 "${AB_ROUNDS:-1}"); do
  for bun in "${bundles[@]}"; do
    name=$(basename "$bun")
    "$bun/run.sh" run "${AB_FILE:-scenarios/perf.yaml}" --time --modes cold --budget-s "${AB_BUDGET:-0.15}" \
      --max-samples 100 "${cases[@]}" "${timed[@]}" --out-dir "$out/perf-$name-$round" > "$out/perf-$name-$round.log" 2>&1
    echo "$name round $round rc=$? $(grep '^summary' "$out/perf-$name-$round.log")"
  done
done
python3 - "$out" "$table_executor" <<'PY'
import csv, glob, os, sys
out, executor = sys.argv[1], sys.argv[2]
rows = {}
for f in sorted(glob.glob(out + "/perf-*/results.csv")):
    tag = os.path.basename(os.path.dirname(f))[len("perf-"):]
    for r in csv.DictReader(open(f)):
        if r["executor"] != executor or r["mode"] != "cold-l2" or not r["median_ms"]:
            continue
        rows.setdefault(r["case"], {})[tag] = (float(r["median_ms"]) * 1000, float(r["pct_of_attainable"]), r["outcome"])
tags = sorted({t for v in rows.values() for t in v})
print(f"{executor}, cold-L2 median us (% of attainable, outcome)")
print("case".ljust(50) + " | " + " | ".join(t.ljust(24) for t in tags))
for c, v in rows.items():
    cells = [f"{v[t][0]:9.1f} ({v[t][1]:5.1f} %) {v[t][2][:4]}" if t in v else "-" for t in tags]
    print(c[:50].ljust(50) + " | " + " | ".join(x.ljust(24) for x in cells))
PY
