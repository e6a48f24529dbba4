#!/usr/bin/env bash
# Fails when ptxas serialises the wgmma path's tensor-core instructions. ptxas reports that
# only as an info line ("(C7520) Potential Performance Loss: wgmma.mma_async instructions
# are serialized ..."), which the build's -Werror does not catch; the tile-balanced wgmma
# instance ran 1.5x slower per tile with it (H200, 2026-11-30: reports/h200/2026-11-30-planner
# call 4, in git history at 93371d3).
# Usage: scripts/check_wgmma_serialisation.sh NVCC SOURCE_DIR (checks kernels/wgmma/wgmma_*_sm90a.cu)
set -uo pipefail
nvcc=${1:?nvcc}
src=${2:?source dir}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The instance files (wgmma/wgmma_instances.h), each compiled as the build compiles it.
sources=("$src"/kernels/wgmma/wgmma_*_sm90a.cu)
entries=0
files=0
for source in "${sources[@]}"; do
  [[ $source == *wgmma/wgmma_launch_sm90a.cu ]] && continue  # host code only
  files=$((files + 1))
  "$nvcc" -std=c++17 -O3 -DNDEBUG -gencode arch=compute_90a,code=sm_90a -I"$src/kernels/include" -I"$src/kernels" \
    --expt-relaxed-constexpr -Xptxas=-v -cubin -o /dev/null "$source" > "$log" 2>&1
  rc=$?
  if [[ $rc -ne 0 ]]; then
    cat "$log"
    echo "check_wgmma_serialisation: nvcc failed on $source (exit $rc)" >&2
    exit 1
  fi
  found=$(grep -c "Compiling entry function '.*flash_verify_wgmma_kernel" "$log")
  if [[ $found -lt 2 ]]; then  # the instance for ordinary launches and the one over a mask writer
    cat "$log"
    echo "check_wgmma_serialisation: expected 2 wgmma kernel instances in the ptxas log of $source, found $found" >&2
    exit 1
  fi
  if grep -q "C7520" "$log"; then
    grep -E "C7520|Compiling entry" "$log"
    echo "check_wgmma_serialisation: ptxas serialised wgmma instructions (C7520) in the kernel(s) above ($source)" >&2
    exit 1
  fi
  entries=$((entries + found))
done
if [[ $files -lt 4 ]]; then  # gather, run boxes, page boxes, tile-balanced
  echo "check_wgmma_serialisation: expected 4 wgmma instance files, found $files" >&2
  exit 1
fi
echo "check_wgmma_serialisation: $entries wgmma kernel instances in $files files, no C7520"
