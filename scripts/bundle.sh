#!/usr/bin/env bash
# Builds (Release, sm_90 + sm_120) and packs a self-contained folder for the lab GPU machine
# (Ubuntu 24.04, no internet, none of our Debian packages, CUDA 13 driver present):
#   bin/      verifybench, the test binaries (vb_test_*), vb_bench_reference when built, and the
#             sm_120 emulation's calibration (vb_sm120_emulation_calibration)
#   lib/      every shared library they link that the target cannot be assumed to have
#             (yaml-cpp, fmt, benchmark, ...): all but glibc, libstdc++, libgcc_s, libcuda
#   scenarios/, run.sh (LD_LIBRARY_PATH=lib, execs bin/verifybench), run_gpu_tests.sh,
#   BUILD_INFO.txt (commit, date, compiler, CUDA)
# Usage: scripts/bundle.sh [OUTPUT_DIR]   (default: bundle/, which git ignores)
# Copy the folder over and run: ./run.sh run scenarios/smoke.yaml ; ./run_gpu_tests.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
out=${1:-bundle}
start=$SECONDS
max_mb=50

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90;120"
cmake --build build -j "$(nproc)"

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
cp build/verifybench "$out/bin/"
for t in build/tests/vb_test_*; do
  [ -f "$t" ] && [ -x "$t" ] && cp "$t" "$out/bin/"
done
[ -x build/vb_bench_reference ] && cp build/vb_bench_reference "$out/bin/"
[ -x build/verifybench_bench ] && cp build/verifybench_bench "$out/bin/"
[ -x build/vb_sm120_emulation_calibration ] && cp build/vb_sm120_emulation_calibration "$out/bin/"
# Racecheck debug builds of verifybench, each in a build folder of its own.
debug_build() {  # NAME CMAKE_OPTIONS: build-NAME/verifybench -> $out/bin/verifybench-NAME
  cmake -S . -B "build-$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90;120" \
    -DVB_BUILD_TESTS=OFF $2
  cmake --build "build-$1" -j "$(nproc)" --target verifybench
  cp "build-$1/verifybench" "$out/bin/verifybench-$1"
}
# VB_BUNDLE_HANDOFF_SYNC=1: also bin/verifybench-handoff-sync, the wgmma path with bar.sync on
# both sides of its P hand-over (lab_run.sh racecheck-handoff).
if [ "${VB_BUNDLE_HANDOFF_SYNC:-0}" = 1 ]; then
  debug_build handoff-sync "-DVB_WGMMA_HANDOFF_SYNC=ON"
fi
# VB_BUNDLE_STAGE_DEBUG=1: also the mma.sync path's stage-protocol builds (lab_run.sh
# racecheck-stages; kernels/mma_sync/mma_kernel.cuh says what each changes):
#   bin/verifybench-sync-copy                 producers copy with plain loads/stores
#   bin/verifybench-lane-arrivals             every consumer lane arrives on "empty"
#   bin/verifybench-sync-copy-lane-arrivals   both, and every producer lane arrives on "full"
if [ "${VB_BUNDLE_STAGE_DEBUG:-0}" = 1 ]; then
  debug_build sync-copy "-DVB_DEBUG_SYNC_COPY=ON"
  debug_build lane-arrivals "-DVB_DEBUG_LANE_ARRIVALS=ON"
  debug_build sync-copy-lane-arrivals "-DVB_DEBUG_SYNC_COPY=ON -DVB_DEBUG_LANE_ARRIVALS=ON"
fi
cp -r scenarios "$out/scenarios"

# Shared libraries: keep only what the target machine provides itself (the C runtime and the
# GPU driver). The CUDA runtime is linked statically; if a build links it dynamically,
# libcudart is copied like any other library.
is_system_lib() {
  case "$1" in
    linux-vdso.so*|ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*) return 0 ;;
    libstdc++.so*|libgcc_s.so*) return 0 ;;
    libcuda.so*|libnvidia-*) return 0 ;;  # the driver: must come from the machine itself
  esac
  return 1
}
missing=0
while read -r name path; do
  if is_system_lib "$name"; then continue; fi
  if [ "$path" = "not" ] || [ ! -e "$path" ]; then
    echo "bundle.sh: ERROR: $name is not found on this machine (ldd)" >&2
    missing=1
    continue
  fi
  cp -L "$path" "$out/lib/$name"
  echo "bundle.sh: lib/$name  <- $path"
done < <(for b in "$out"/bin/*; do ldd "$b"; done | awk '/=>/ {print $1, $3}' | sort -u)
[ "$missing" -eq 0 ] || exit 1
if ls "$out"/lib/libcudart* >/dev/null 2>&1; then
  echo "bundle.sh: note: CUDA runtime is linked dynamically; copied libcudart"
else
  echo "bundle.sh: CUDA runtime linked statically (no libcudart in ldd)"
fi

if command -v strip >/dev/null 2>&1; then
  strip --strip-unneeded "$out"/bin/* "$out"/lib/* 2>/dev/null || true
fi

commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
state=unknown
if [ "$commit" != unknown ]; then
  if [ -z "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then state=clean; else state=dirty; fi
fi
{
  echo "commit: $commit ($state)"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "compiler: $(c++ --version | head -1)"
  echo "cuda: $(/usr/local/cuda/bin/nvcc --version 2>/dev/null | tail -1 || echo unknown)"
  echo "cuda architectures: 90;120"
} > "$out/BUILD_INFO.txt"

cat > "$out/run.sh" <<RUN
#!/usr/bin/env bash
# verifybench from this bundle: the bundled shared libraries first, then the system's.
here=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
export LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export VB_GIT_COMMIT="\${VB_GIT_COMMIT:-$commit}"
export VB_GIT_STATE="\${VB_GIT_STATE:-$state}"
exec "\$here/bin/verifybench" "\$@"
RUN

cat > "$out/run_gpu_tests.sh" <<'RUN'
#!/usr/bin/env bash
# The GPU test binary of this bundle (what ctest runs under the label "gpu"). Arguments go to
# Catch2, e.g. ./run_gpu_tests.sh "[graph]" or --list-tests. Exit: 0 passed, 77 skipped
# (no CUDA device), anything else failed. (bin/vb_test_harness and bin/vb_test_reference
# read test data from the source tree they were built in; run those with ctest there.)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
start=$SECONDS
"$here/bin/vb_test_kernels" "$@"
rc=$?
case $rc in
  0) verdict=PASSED ;;
  77) verdict="SKIPPED (no CUDA device)" ;;
  *) verdict="FAILED (exit $rc)" ;;
esac
echo "run_gpu_tests.sh: vb_test_kernels $verdict in $((SECONDS - start)) s"
exit $rc
RUN
chmod +x "$out/run.sh" "$out/run_gpu_tests.sh"

size_mb=$(du -sm "$out" | cut -f1)
echo "bundle.sh: $out is ${size_mb} MB ($(find "$out" -type f | wc -l) files), built in $((SECONDS - start)) s"
if [ "$size_mb" -ge "$max_mb" ]; then
  echo "bundle.sh: WARNING: bundle is ${size_mb} MB, over the ${max_mb} MB budget" >&2
fi
