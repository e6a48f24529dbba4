#!/usr/bin/env bash
# Profiles exactly one launch of one GPU executor (default: production) on one case with Nsight Compute, selected by its
# NVTX range in the "verifybench" domain (harness/measure/nvtx.h):
#   scripts/profile.sh SCENARIO_FILE CASE_NAME [extra ncu args...]
#   VB_PROFILE_EXECUTOR=production/block-table scripts/profile.sh ...   (default: production)
# Writes reports/local/ncu-<file stem>-<case>.ncu-rep and prints the summary.
# `verifybench profile` warms the kernel up outside the range and runs it once inside.
# --clock-control none: on the lab machine ncu cannot lock clocks (and we measure at the
# clocks the timing engine sees).
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 SCENARIO_FILE CASE_NAME [ncu args...]" >&2
  exit 2
fi
file=$1
case_name=$2
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${VERIFYBENCH:-}
if [[ -z "$bin" ]]; then
  for candidate in "$here/build/verifybench" "$here/bin/verifybench" "$(command -v verifybench || true)"; do
    if [[ -n "$candidate" && -x "$candidate" ]]; then bin=$candidate; break; fi
  done
fi
[[ -n "$bin" ]] || { echo "$0: verifybench not found (set VERIFYBENCH=path)" >&2; exit 2; }
ncu=${NCU:-$(command -v ncu || true)}
[[ -n "$ncu" ]] || ncu=/usr/local/cuda/bin/ncu
[[ -x "$ncu" ]] || { echo "$0: ncu not found (set NCU=path)" >&2; exit 2; }

stem=$(basename "${file%.*}")
# Range name "<file stem>/<case>", pushed as nested push/pop ranges; ncu's push/pop filter
# uses '/' as the nesting delimiter and a trailing '/' for push/pop ranges.
# The same name as nvtx_case_range_name (harness/measure/nvtx.cpp): characters other than letters,
# digits and "_.,=-/" become '_' (ncu matched no range for a case name with '[').
range_case=$(printf '%s' "$case_name" | tr -c 'A-Za-z0-9_.,=/-' '_')
filter="verifybench@${stem}/${range_case}/"
safe=$(printf '%s' "$case_name" | tr -c 'A-Za-z0-9_.=-' '_')
out_dir="$here/reports/local"
mkdir -p "$out_dir"
report="$out_dir/ncu-${stem}-${safe}"
set -x
"$ncu" --clock-control none --nvtx --nvtx-include "$filter" --set full -f -o "$report" "$@" \
  "$bin" profile "$file" --case "$case_name" --executor "${VB_PROFILE_EXECUTOR:-production}"
"$ncu" --import "$report.ncu-rep" --print-summary per-kernel
