#!/usr/bin/env bash
# CI entry point: install the build dependencies, build EVERY target (the CUDA kernels for
# sm_90 and sm_120 included) into build/, run every test. GPU tests show as "Skipped" on a
# machine without a CUDA device. Idempotent; uses ccache when installed (CMakeLists.txt
# picks it up). Extra arguments go to ctest (e.g. scripts/test.sh -L cpu).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$SECONDS
phase_start=$SECONDS
phase() {  # prints how long the previous phase took, then names the next one
  local now=$SECONDS
  [ -n "${current_phase:-}" ] && echo "test.sh: ${current_phase} took $((now - phase_start)) s"
  current_phase=$1
  phase_start=$now
  echo "test.sh: == $1"
}
finish() {
  local rc=$?
  [ -n "${current_phase:-}" ] && echo "test.sh: ${current_phase} took $((SECONDS - phase_start)) s"
  echo "test.sh: total $((SECONDS - start)) s, exit code ${rc}"
}
trap finish EXIT

phase setup
scripts/setup.sh

phase configure
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90;120"

phase build
cmake --build build -j "$(nproc)"
if command -v ccache >/dev/null 2>&1; then ccache --show-stats 2>/dev/null | grep -iE "hit|miss" | head -4 || true; fi

phase test
rc=0
ctest --test-dir build -j2 --output-on-failure "$@" || rc=$?
# Skipped tests (the [gpu] ones without a device) print their reason into the CTest log
# only; show it here so a skip is never silent.
log=build/Testing/Temporary/LastTest.log
if [ -r "$log" ] && grep -q "^SKIPPED:" "$log"; then
  echo "test.sh: skipped tests, with the reason each gave:"
  grep "^SKIPPED:" "$log" | sort | uniq -c | sed 's/^/  /'
fi
[ "$rc" -eq 0 ] || exit "$rc"

# libFuzzer targets (tests/fuzz/), ASan + UBSan, a bounded time each (VB_FUZZ_SECONDS, default
# 60; 0 skips the phase: libFuzzer itself would read 0 as "no limit").
phase fuzz
if [ "${VB_FUZZ_SECONDS:-60}" = 0 ]; then
  echo "test.sh: fuzz skipped (VB_FUZZ_SECONDS=0)"
else
  scripts/fuzz.sh "${VB_FUZZ_SECONDS:-60}"
fi
