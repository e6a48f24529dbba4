#!/usr/bin/env bash
# Packs what scripts/python_gpu_check.sh needs on the GPU machine into one folder (for a
# device call's carry): bin/verifybench, lib/ (libverifybench_ops.so, libverifybench_timing.so
# and every shared library they and verifybench link but the C runtime and the driver, as
# scripts/bundle.sh picks them), python/verifybench, tests/python/gpu_check.py,
# scenarios/correctness.yaml and correctness_fp8.yaml, docs/python.md (gpu_check.py runs its
# fp8 example), scripts/python_gpu_check.sh, BUILD_INFO.txt. Builds only the
# targets it packs.
# Usage: scripts/python_gpu_carry.sh OUT_DIR
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=$1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90;120" > /dev/null
cmake --build build --target verifybench verifybench_ops verifybench_timing
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/python" "$out/tests/python" "$out/scenarios" "$out/scripts" "$out/docs"
cp build/verifybench "$out/bin/"
cp build/ops/libverifybench_ops.so build/ops/libverifybench_timing.so "$out/lib/"
while read -r name path; do
  case "$name" in
    linux-vdso.so*|ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libstdc++.so*|libgcc_s.so*) continue ;;
    libcuda.so*|libnvidia-*|libverifybench_*) continue ;;
  esac
  cp -L "$path" "$out/lib/$name"
done < <(ldd "$out"/bin/verifybench "$out"/lib/*.so | awk '/=>/ {print $1, $3}' | sort -u)
strip --strip-unneeded "$out"/bin/* "$out"/lib/* 2>/dev/null || true
cp -r python/verifybench "$out/python/"
find "$out/python" -name __pycache__ -prune -exec rm -rf {} +
cp tests/python/gpu_check.py "$out/tests/python/"
cp scenarios/correctness.yaml scenarios/correctness_fp8.yaml "$out/scenarios/"
cp scripts/python_gpu_check.sh "$out/scripts/"
cp docs/python.md "$out/docs/"
commit=$(git rev-parse HEAD)
state=clean; [ -z "$(git status --porcelain --untracked-files=no)" ] || state=dirty
printf 'commit: %s (%s)\nbuilt: %s\ncuda: %s\n' "$commit" "$state" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  "$(/usr/local/cuda/bin/nvcc --version | tail -1)" > "$out/BUILD_INFO.txt"
du -sh "$out"
