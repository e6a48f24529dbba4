#!/usr/bin/env bash
# The GPU check of issue 29, for one device call: in DIR, the bundles good/ (scripts/bundle.sh)
# and mut-wgmma/, mut-mma/ (scripts/build_mutant.sh with patches/mutant-frozen-max-*.patch).
#   good:      correctness.yaml in full, plus perf.yaml's rising and large sampled checks;
#              must exit 0 (every executor passes).
#   mutants:   correctness.yaml's rising cases (one per plan form); each must exit 1 (some
#              executor incorrect): a running max that stops after a split's first tile.
# Logs and report folders are packed into OUT/hostile-check.tgz (a device call returns at most
# 8 files); the table of exit codes is printed last and kept as OUT/hostile-check.txt.
# Usage: scripts/hostile_device_check.sh DIR [OUT]
set -uo pipefail
dir=$(realpath "$1")
dest=$(realpath -m "${2:-${OUT:?set OUT or pass it}}")
out="$dest/hostile-check"
mkdir -p "$out"
rising=(data_wgmma_single_split data_mma_single_split data_mma_split data_wgmma_split
        data_mma_tile_balanced data_wgmma_tile_balanced data_wgmma_two_row_tiles_single_split
        data_wgmma_two_row_tiles_split)
declare -A rc
run() {  # NAME BUNDLE ARGS...
  local name=$1 bundle=$2; shift 2
  (cd "$dir/$bundle" && ./run.sh "$@" --out-dir "$out/$name") > "$out/$name.log" 2>&1
  rc[$name]=$?
  grep -E "^(cases|summary|[0-9]+ cases)|incorrect|passed" "$out/$name.log" | tail -3 | sed "s/^/$name: /"
}
run good-correctness good run scenarios/correctness.yaml
run good-perf-data good run scenarios/perf.yaml \
  --case 'kimi_k2_tp8_mtp4_data/data.dist=rising' --case 'kimi_k2_tp8_mtp4_data/data.dist=large'
cases=()
for c in "${rising[@]}"; do cases+=(--case "$c/data.dist=rising"); done
for m in mut-wgmma mut-mma; do
  [[ -d $dir/$m ]] && run "$m-rising" "$m" run scenarios/correctness.yaml "${cases[@]}"
done
{
printf '%-20s %-6s %s\n' run exit expected
printf '%-20s %-6s %s\n' good-correctness "${rc[good-correctness]}" 0
printf '%-20s %-6s %s\n' good-perf-data "${rc[good-perf-data]}" 0
for m in mut-wgmma mut-mma; do
  [[ -n ${rc[$m-rising]:-} ]] && printf '%-20s %-6s %s\n' "$m-rising" "${rc[$m-rising]}" 1
done
} | tee "$dest/hostile-check.txt"
tar czf "$dest/hostile-check.tgz" -C "$dest" hostile-check && rm -rf "$out"
