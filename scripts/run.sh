#!/usr/bin/env bash
# Builds verifybench into build/ and runs the default scenario set (smoke + correctness).
# Without a GPU the CPU reference still runs and the summary says the GPU executors were
# skipped. Arguments replace the default command: scripts/run.sh run scenarios/perf.yaml
# Idempotent; uses ccache when installed. Exit code: verifybench's (see README.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$SECONDS
trap 'echo "run.sh: total $((SECONDS - start)) s"' EXIT

scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90;120"
cmake --build build -j "$(nproc)" --target verifybench
echo "run.sh: build done after $((SECONDS - start)) s"

if [ $# -gt 0 ]; then
  build/verifybench "$@"
else
  build/verifybench run scenarios/smoke.yaml scenarios/correctness.yaml scenarios/correctness_fp8.yaml
fi
