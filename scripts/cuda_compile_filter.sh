#!/bin/sh
# The CUDA compiler launcher (CMakeLists.txt): runs one compile command and passes its output
# through, less two kinds of line a user has nothing to do about:
#
# - ptxas's `(C7519) warpgroup.arrive is injected ... to allow use of registers in GMMA`, an
#   info line on every wgmma kernel: ptxas says where it orders register reads against an
#   in-flight wgmma. It is not a fault and changes nothing; the kernels' schedules are checked
#   in their SASS (scripts/lab_sass_check.sh).
# - with `--expected-spills SOURCE_REGEX MAX_BYTES MAX_FUNCTIONS` (a check build compiled with
#   spills as warnings): in a source whose path matches SOURCE_REGEX, ptxas's spill and
#   local-memory warnings of at most MAX_BYTES in at most MAX_FUNCTIONS kernels, the build's
#   known spill. Any other spill or local-memory warning (another source, more bytes, more
#   kernels) is printed and fails the compile, as -Werror does in the strict builds.
#
# Usage: cuda_compile_filter.sh [--expected-spills SOURCE_REGEX MAX_BYTES MAX_FUNCTIONS] COMMAND...
set -u
checking=0 allowed=0 max_bytes=0 max_functions=0
if [ "${1:-}" = "--expected-spills" ]; then
  checking=1 source_regex=$2 max_bytes=$3 max_functions=$4
  shift 4
  for arg in "$@"; do
    if printf '%s\n' "$arg" | grep -Eq -- "$source_regex"; then allowed=1; fi
  done
fi

stderr_file=$(mktemp)
trap 'rm -f "$stderr_file"' EXIT
"$@" 2>"$stderr_file"
status=$?

awk -v checking="$checking" -v allowed="$allowed" -v max_bytes="$max_bytes" -v max_functions="$max_functions" '
  /^ptxas info +: \(C7519\) warpgroup\.arrive is injected/ { next }
  allowed && /^ptxas warning : (Registers are spilled to local memory|Local memory used) / {
    split($0, quoted, "\047")
    bytes = 0
    rest = $0
    while (match(rest, /[0-9]+ bytes/)) {
      n = substr(rest, RSTART, RLENGTH) + 0
      if (n > bytes) bytes = n
      rest = substr(rest, RSTART + RLENGTH)
    }
    if (bytes <= max_bytes) {
      if (!(quoted[2] in seen)) { seen[quoted[2]] = 1; functions++ }
      next
    }
    unexpected = 1
  }
  /^ptxas warning : (Registers are spilled to local memory|Local memory used) / { unexpected = 1 }
  { print > "/dev/stderr" }
  END {
    if (functions > max_functions) {
      printf "cuda_compile_filter: %d kernels spill; this check build expects at most %d (CMakeLists.txt)\n",
             functions, max_functions > "/dev/stderr"
      exit 1
    }
    exit checking && unexpected
  }' "$stderr_file" || { [ "$status" -ne 0 ] || status=1; }
exit "$status"
