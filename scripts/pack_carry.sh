#!/usr/bin/env bash
# Packs bundles (scripts/bundle.sh, scripts/bundle_variant.sh) into one xz tarball for a call
# on the lab GPU machine, and checks that the tarball and the working tree together fit what
# a device call carries (64 MiB: the tracked files, the untracked files git does not ignore,
# and the carried paths). The bundles are trimmed in place first:
#   - every binary is stripped;
#   - a bundle named with --tests keeps bin/vb_test_kernels (its GPU tests);
#   - every bundle drops bin/vb_test_harness, bin/vb_test_reference, bin/vb_bench_reference
#     and bin/verifybench_bench (they read the source tree they were built in; the lab runs
#     verifybench and vb_test_kernels only), and the others drop bin/vb_test_kernels too.
# Usage: scripts/pack_carry.sh OUT.tar.xz [--tests BUNDLE]... BUNDLE...
#   e.g. scripts/pack_carry.sh .device-carry/s11-c1.tar.xz --tests .device-carry/B .device-carry/V
# On the lab machine: tar xJf OUT.tar.xz -C "$(dirname OUT.tar.xz)" (the bundles' folder names
# are kept, relative to the tarball's folder).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
usage() { echo "usage: $0 OUT.tar.xz [--tests BUNDLE]... BUNDLE..." >&2; exit 2; }
[[ $# -ge 2 ]] || usage
out=$1; shift
[[ $out == *.tar.xz ]] || { echo "$0: $out: the tarball's name must end in .tar.xz" >&2; exit 2; }
bundles=(); with_tests=()
while [[ $# -gt 0 ]]; do
  if [[ $1 == --tests ]]; then
    [[ $# -ge 2 ]] || usage
    with_tests+=("$2"); bundles+=("$2"); shift 2
  else
    bundles+=("$1"); shift
  fi
done
[[ ${#bundles[@]} -gt 0 ]] || usage
dir=$(dirname "$out")
for b in "${bundles[@]}"; do
  [[ -x $b/bin/verifybench && -f $b/BUILD_INFO.txt ]] || { echo "$0: $b is not a bundle (scripts/bundle.sh)" >&2; exit 2; }
  [[ $(cd "$(dirname "$b")" && pwd) == $(cd "$dir" && pwd) ]] ||
    { echo "$0: $b must sit in $dir, beside the tarball (the call unpacks it there)" >&2; exit 2; }
done
for b in "${bundles[@]}"; do
  rm -f "$b"/bin/vb_test_harness "$b"/bin/vb_test_reference "$b"/bin/vb_bench_reference "$b"/bin/verifybench_bench
  keep_tests=0
  for t in "${with_tests[@]+"${with_tests[@]}"}"; do [[ $t == "$b" ]] && keep_tests=1; done
  [[ $keep_tests == 1 ]] || rm -f "$b"/bin/vb_test_kernels
  strip "$b"/bin/* 2>/dev/null || true
done
rm -f "$out"
names=(); for b in "${bundles[@]}"; do names+=("$(basename "$b")"); done
tar cf - -C "$dir" "${names[@]}" | xz -9e -T"$(nproc)" > "$out"
limit=$((64 * 1024 * 1024))
tree=$( (git ls-files -z; git ls-files -z --others --exclude-standard) | xargs -0 du -cb 2>/dev/null | awk 'END {print $1}')
size=$(stat -c %s "$out")
total=$((tree + size))
printf 'pack_carry.sh: %s: %.1f MB (%s); tree %.1f MB; together %.1f of %.1f MB\n' "$out" "$(echo "$size / 1000000" | bc -l)" \
  "${names[*]}" "$(echo "$tree / 1000000" | bc -l)" "$(echo "$total / 1000000" | bc -l)" "$(echo "$limit / 1000000" | bc -l)"
if [[ $total -gt $limit ]]; then
  echo "pack_carry.sh: too large for a device call by $(( (total - limit) / 1000 )) kB: carry fewer bundles" >&2
  exit 1
fi
