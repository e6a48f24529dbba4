#!/usr/bin/env bash
# Builds the libFuzzer targets under tests/fuzz/ with clang (ASan + UBSan) and runs each for
# a bounded time on a copy of its seed corpus (tests/fuzz/corpus/<target>/). Fails on any
# crash, leak, sanitizer report, timeout (-timeout per input) or memory above -rss_limit_mb.
# Usage: scripts/fuzz.sh [seconds per target, default 60] [build dir, default build-fuzz]
# Needs clang++ and libclang-rt (scripts/setup.sh installs them); yaml-cpp, fmt and
# nlohmann-json come from the same Debian packages as the main build (not instrumented:
# the sanitizers and coverage cover verifybench's own code).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out="${2:-build-fuzz}"
CXX="${FUZZ_CXX:-clang++}"
command -v "$CXX" >/dev/null || { echo "fuzz: $CXX not found (scripts/setup.sh installs clang)" >&2; exit 1; }
mkdir -p "$out/generated"
# provenance.cpp records build provenance from this generated header.
cat > "$out/generated/vb_build_info.h" <<'H'
#pragma once
#define VB_BUILD_TYPE "fuzz"
#define VB_CUDA_ARCHITECTURES ""
#define VB_CUDA_FLAGS ""
#define VB_CUDA_COMPILER_VERSION ""
H
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -ffunction-sections -fdata-sections -Wl,--gc-sections
       -I. -Ikernels/include -Ikernels -Ireference/include -I/usr/include/eigen3 -I/usr/local/cuda/include -I"$out/generated"
       -DVB_SOURCE_DIR="\"$PWD\"")
report_sources="harness/io/files.cpp harness/measure/statistics.cpp harness/report/report_table.cpp harness/report/report_json.cpp harness/record/provenance.cpp harness/measure/timing_json.cpp harness/record/result.cpp harness/plan/device_models.cpp harness/plan/executor_plans.cpp harness/measure/traffic_model.cpp harness/problem/problem.cpp harness/problem/page_layout.cpp harness/problem/problem_sglang.cpp harness/scenario/scenario_yaml.cpp harness/scenario/spec_rules.cpp harness/problem/problem_data.cpp harness/problem/tree.cpp kernels/planner/planner.cpp tests/fuzz/link_stubs.cpp"
declare -A sources=(
  [scenario_loader]="harness/scenario/scenario_yaml.cpp harness/scenario/spec_rules.cpp harness/problem/problem_data.cpp harness/problem/tree.cpp kernels/planner/planner.cpp tests/fuzz/link_stubs.cpp"
  [result_json]="harness/compare/compare.cpp $report_sources"
  [peers_file]="harness/report/peers_merge.cpp $report_sources"
  [safetensors_roundtrip]="harness/io/files.cpp harness/export/export_safetensors.cpp harness/record/executor_registry.cpp harness/run/case_session.cpp harness/measure/nvtx.cpp harness/scenario/scenario_yaml.cpp harness/scenario/spec_rules.cpp harness/problem/problem_data.cpp harness/problem/tree.cpp kernels/planner/planner.cpp tests/fuzz/link_stubs.cpp harness/problem/problem.cpp harness/problem/page_layout.cpp harness/problem/problem_sglang.cpp harness/problem/fp8_math_error.cpp reference/reference.cpp"
)
# cudart: kernels/planner/planner.cpp's device queries (never called by the targets).
cuda_libs="-L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread"
declare -A libs=([scenario_loader]="-lyaml-cpp -lfmt $cuda_libs" [result_json]="-lyaml-cpp -lfmt $cuda_libs"
                 [peers_file]="-lyaml-cpp -lfmt $cuda_libs"
                 [safetensors_roundtrip]="-lyaml-cpp -lfmt $cuda_libs")
status=0
for target in scenario_loader result_json peers_file safetensors_roundtrip; do
  bin="$out/fuzz_$target"
  echo "fuzz: building $target"
  # shellcheck disable=SC2086
  "$CXX" "${flags[@]}" "tests/fuzz/fuzz_$target.cpp" ${sources[$target]} ${libs[$target]} -o "$bin"
  work="$out/corpus_$target"
  rm -rf "$work" "$out/artifacts_$target"
  mkdir -p "$work" "$out/artifacts_$target"
  cp tests/fuzz/corpus/"$target"/* "$work"/
  echo "fuzz: running $target for ${seconds}s"
  if ! "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
       -max_len=65536 -print_final_stats=1 -artifact_prefix="$out/artifacts_$target/" \
       "$work" > "$out/fuzz_$target.log" 2>&1; then
    echo "fuzz: $target FAILED (artifacts in $out/artifacts_$target, log $out/fuzz_$target.log)" >&2
    tail -40 "$out/fuzz_$target.log" >&2
    status=1
  fi
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+ +DONE" "$out/fuzz_$target.log" | sed "s/^/fuzz: $target: /"
done
exit $status
