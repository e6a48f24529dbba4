#!/usr/bin/env bash
# The harness's stages stack in data-flow order (docs/design.md, "The harness stages"): a file
# in one stage folder includes from its own folder and the folders below it, never from a
# folder above. Prints one line per include that runs back up ("<file>:<line>: stage <from>
# includes <header> of stage <to>, above it") and exits 1 if there is one.
# Usage: scripts/check_stage_includes.sh [ROOT]     (ROOT: a source tree, default .)
set -euo pipefail
root=$(cd "${1:-.}" && pwd)
# Lowest first. A stage folder not listed here is an error: a new folder takes its place in
# the order before its first include is checked.
stages=(io scenario problem plan record measure run report compare export cli)
declare -A rank
for i in "${!stages[@]}"; do rank[${stages[$i]}]=$i; done

status=0
cd "$root"
for dir in harness/*/; do
  stage=$(basename "$dir")
  if [[ -z ${rank[$stage]+x} ]]; then
    echo "harness/$stage/: a stage folder missing from the order in scripts/check_stage_includes.sh"
    status=1
  fi
done
while IFS=: read -r file line text; do
  from=$(cut -d/ -f2 <<<"$file")
  header=$(sed -E 's/.*#include[[:space:]]*"([^"]+)".*/\1/' <<<"$text")
  to=$(cut -d/ -f2 <<<"$header")
  [[ $from == "$to" ]] && continue
  if [[ -z ${rank[$to]+x} ]]; then
    echo "$file:$line: includes $header from harness/$to/, a folder missing from the stage order"
    status=1
  elif (( rank[$to] > rank[$from] )); then
    echo "$file:$line: stage $from includes $header of stage $to, above it (order: ${stages[*]})"
    status=1
  fi
done < <(grep -rnE --include='*.h' --include='*.cuh' --include='*.cpp' --include='*.cu' \
           '^[[:space:]]*#[[:space:]]*include[[:space:]]*"harness/' harness/ || true)
[[ $status == 0 ]] && echo "harness stage includes: every include runs down the order (${stages[*]})"
exit $status
