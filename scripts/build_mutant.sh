#!/usr/bin/env bash
# Builds a patched kernel as a bundle: a deliberately wrong one (patches/mutant-*.patch), to
# show that correctness.yaml catches it, a variant kept for an A/B (patches/variant-*.patch), or
# a timing-only probe whose results are wrong (patches/probe-*.patch; its header says what it
# leaves out).
# The committed tree (HEAD) is exported to a scratch folder, the patch is applied there (the
# working tree is never touched), and scripts/bundle.sh packs the result.
# Usage: scripts/build_mutant.sh PATCH OUT_BUNDLE
#   e.g. scripts/build_mutant.sh patches/mutant-frozen-max-wgmma.patch bundle-mutant-wgmma
# Then on the GPU: a mutant's OUT_BUNDLE/run.sh run scenarios/correctness.yaml --case '<name>'
# ... must exit 1 (some executor incorrect); a variant goes to scripts/ab_bundles.sh beside
# the plain bundle. The patches are not part of any default build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ $# -eq 2 ]] || { echo "usage: $0 PATCH OUT_BUNDLE" >&2; exit 2; }
patch_file=$(realpath "$1")
out=$(realpath -m "$2")
[[ -e "$out" ]] && { echo "$0: $out exists; remove it first" >&2; exit 2; }
scratch="${VB_MUTANT_SCRATCH:-$(pwd)/build-mutant-$(basename "$patch_file" .patch)}"
rm -rf "$scratch"
mkdir -p "$scratch"
git archive HEAD | tar -x -C "$scratch"
(cd "$scratch" && patch -p1 --forward < "$patch_file")
(cd "$scratch" && scripts/bundle.sh "$out")
echo "MUTANT: $(basename "$patch_file") applied to $(git rev-parse --short HEAD)" >> "$out/BUILD_INFO.txt"
echo "build_mutant: $out (scratch build in $scratch)"
