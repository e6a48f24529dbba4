#!/usr/bin/env bash
# Packs a kernel variant for an A/B run on the lab GPU: a copy of an existing bundle
# (scripts/bundle.sh) whose bin/verifybench and bin/vb_test_kernels are rebuilt with extra
# CUDA compile definitions: a build mode such as -DVB_DEBUG_TIMELINE=1 (the CMake options in
# CMakeLists.txt list them). Planner numbers need no variant: they are run-time settings
# (--planner key=value). The variant has its own build folder, so the plain build is never
# rebuilt with the flags.
#
# Usage: scripts/bundle_variant.sh BASE_BUNDLE OUT_BUNDLE FLAG...
#   then on the lab machine: scripts/ab_bundles.sh OUT BASE_BUNDLE OUT_BUNDLE -- CASE...
# BUILD_INFO.txt of the copy names the flags under the base bundle's commit line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ $# -lt 3 ]]; then
  echo "usage: $0 BASE_BUNDLE OUT_BUNDLE FLAG..." >&2
  exit 2
fi
base=$1; out=$2; shift 2
flags="$*"
[[ -x "$base/bin/verifybench" && -f "$base/BUILD_INFO.txt" ]] || { echo "$0: $base is not a bundle (scripts/bundle.sh)" >&2; exit 2; }
[[ -e "$out" ]] && { echo "$0: $out exists; remove it first" >&2; exit 2; }
for f in $flags; do
  [[ $f == -D* ]] || { echo "$0: '$f' is not a -DNAME[=VALUE] compile definition" >&2; exit 2; }
done
base_commit=$(sed -n 's/^commit: \([0-9a-f]*\).*/\1/p' "$base/BUILD_INFO.txt")
head_commit=$(git rev-parse HEAD)
if [[ -n $base_commit && $base_commit != "$head_commit" ]]; then
  echo "$0: warning: $base was built at $base_commit, the tree is at $head_commit" >&2
fi
build_dir=build-variant-$(printf '%s' "$flags" | sha256sum | cut -c1-10)
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90;120" \
  -DCMAKE_CUDA_FLAGS="$flags" > /dev/null
cmake --build "$build_dir" -j "$(nproc)" --target verifybench vb_test_kernels
cp -r "$base" "$out"
cp "$build_dir/verifybench" "$out/bin/verifybench"
cp "$build_dir/tests/vb_test_kernels" "$out/bin/vb_test_kernels"
dirty=$([[ -n $(git status --porcelain --untracked-files=no) ]] && echo yes || true)
printf 'variant of the commit above: CUDA flags %s (%s, tree %s%s)\n' "$flags" "$build_dir" "$head_commit" \
  "${dirty:+, dirty}" >> "$out/BUILD_INFO.txt"
# run.sh names the commit and state its binaries were built from (provenance.cpp): the base
# bundle's, unless this build had uncommitted changes (a patched source, not only flags).
if [[ -n $dirty ]]; then
  sed -i 's/^export VB_GIT_STATE="\${VB_GIT_STATE:-[a-z]*}"$/export VB_GIT_STATE="${VB_GIT_STATE:-dirty}"/' "$out/run.sh"
  grep -q 'VB_GIT_STATE:-dirty' "$out/run.sh" || { echo "$0: could not mark $out/run.sh dirty" >&2; exit 1; }
fi
echo "bundle_variant.sh: $out = $base with $flags"
