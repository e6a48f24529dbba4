#!/bin/sh
# The CUDA compiler launcher (CMakeLists.txt): runs one compile command and passes its output
# through, less ptxas's `(C7519) warpgroup.arrive is injected ... to allow use of registers in
# GMMA`, an info line on every wgmma kernel: ptxas says where it orders register reads against
# an in-flight wgmma. It is not a fault and changes nothing; the kernels' schedules are checked
# in their SASS (scripts/lab_sass_check.sh). The command's exit status is the launcher's.
#
# Usage: cuda_compile_filter.sh COMMAND...
set -u
stderr_file=$(mktemp)
trap 'rm -f "$stderr_file"' EXIT
"$@" 2>"$stderr_file"
status=$?
grep -v '^ptxas info *: (C7519) warpgroup\.arrive is injected' "$stderr_file" >&2
exit "$status"
