#!/usr/bin/env bash
# The Python package's GPU validation in one device call (tests/python/gpu_check.py says what
# each check shows), from a carry folder made by scripts/python_gpu_carry.sh:
#   1. which of torch, triton, numpy, sglang, flash_mla, flashinfer import there;
#   2. `verifybench export` of every case of scenarios/correctness.yaml and of
#      scenarios/correctness_fp8.yaml (CPU reference and every GPU executor's output), several
#      at a time, into one folder; then correctness_fp8.yaml again with `--math fp8` (the
#      executors run fp8 tensor math, case.json says so and holds its derived tolerance) into
#      another;
#   3. gpu_check.py over both folders: graph capture and replays with new lengths / tables /
#      masks over bf16 and fp8 e4m3 pools, bf16 and fp8 math (the torch op in both forms,
#      SGLang's call through route_target_verify), torch.compile, then the torch op bit for bit
#      against the C++ executors on every exported case, with the case's math; its PASS/FAIL
#      table;
#   4. python -m verifybench.peers on four bf16 cases and one fp8 case (every importable peer,
#      timed by the harness's timer), then `verifybench run --time --peers` of the bf16 ones.
# Usage: scripts/python_gpu_check.sh CARRY_DIR OUT_DIR   (on the GPU machine)
# Each step has a time limit of its own, so a slow one cannot take the later ones' time.
set -u
carry=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
work=$(mktemp -d)
export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$carry/python${PYTHONPATH:+:$PYTHONPATH}"
export VERIFYBENCH_OPS_LIBRARY="$carry/lib/libverifybench_ops.so"
export VERIFYBENCH_TIMING_LIBRARY="$carry/lib/libverifybench_timing.so"
export PYTHONDONTWRITEBYTECODE=1
vb="$carry/bin/verifybench"
scenario="$carry/scenarios/correctness.yaml"
fp8_scenario="$carry/scenarios/correctness_fp8.yaml"
peer_cases=(long_prefix_page1 deep_chain64 chain16_dflash unequal_prefixes)
fp8_peer_case=fp8_long_prefix_page1
step() { echo "== $1 ($(date -u +%H:%M:%S))"; }

step environment
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1
  python3 - <<'PY'
import importlib, sys
print("python", sys.version.split()[0])
for name in ("numpy", "torch", "triton", "sglang", "flash_mla", "flashinfer"):
    try:
        module = importlib.import_module(name)
        print(f"{name}: importable {getattr(module, '__version__', '')}")
    except Exception as e:
        print(f"{name}: not importable ({type(e).__name__}: {e})")
PY
  cat "$carry/BUILD_INFO.txt"
} 2>&1 | tee "$out/environment.txt"

export_one() {  # ROOT SCENARIO CASE [EXPORT OPTION...]: exports into ROOT/<case with / and = as _>
  local root=$1 file=$2 name=$3
  shift 3
  timeout 60 "$vb" export "$file" --case "$name" "$@" "$root/$(echo "$name" | tr '/=' '__')" > /dev/null \
    2>> "$work/export.log" || echo "export failed: $name $*" >> "$work/export.log"
}
export -f export_one
export vb work
export_all() {  # ROOT SCENARIO [EXPORT OPTION...]: every case of SCENARIO, 12 at a time, within 50 s
  local root=$1 file=$2
  shift 2
  step "export $(basename "$file")${*:+ $*}"
  mkdir -p "$root"
  "$vb" list "$file" | awk 'NR > 2 && NF > 5 && $1 != "(KV" {print $1}' > "$work/cases.txt"
  timeout 50 xargs -P 12 -I{} bash -c 'export_one "$@"' _ "$root" "$file" {} "$@" < "$work/cases.txt"
  echo "$(basename "$file")${*:+ $*}: $(wc -l < "$work/cases.txt") cases; $(ls "$root"/*/case.json 2>/dev/null | wc -l)" \
    "exported in $(basename "$root")"
}
export_all "$work/cases" "$scenario"
export_all "$work/cases" "$fp8_scenario"
export_all "$work/cases-fp8-math" "$fp8_scenario" --math fp8
grep -c "export failed" "$work/export.log" 2>/dev/null
cp "$work/export.log" "$out/" 2>/dev/null

step "gpu_check.py"
timeout 220 python3 "$carry/tests/python/gpu_check.py" "$work/cases" "$work/cases-fp8-math" "$out/python" \
  > "$out/gpu_check.log" 2>&1
echo "gpu_check.py exit $?"
grep -E "^gpu_check: [0-9]+ PASS|^\| .* \| FAIL \||^\| graph|^\| compile" "$out/gpu_check.log"

step "python -m verifybench.peers"
mkdir -p "$out/peers"
dirs=(); for c in "${peer_cases[@]}" "$fp8_peer_case"; do dirs+=("$work/cases/$c"); done
timeout 25 python3 -m verifybench.peers "${dirs[@]}" --out "$out/peers/peers.json" --modes cold,hot \
  --min-samples 10 --max-samples 300 --budget-s 0.3 2>&1 | tee "$out/peers/peers.log"
echo "peers exit ${PIPESTATUS[0]}"

step "verifybench run --time --peers"
case_args=(); for c in "${peer_cases[@]}"; do case_args+=(--case "$c"); done
timeout 30 "$vb" run "$scenario" "${case_args[@]}" --time --modes cold,hot --min-samples 10 --max-samples 300 \
  --budget-s 0.3 --peers "$out/peers/peers.json" --out-dir "$out/run-peers" > "$out/run-peers.log" 2>&1
echo "run exit $?"
grep -E "peer/|python/verifybench|^merged|production " "$out/run-peers.log" | head -40
rm -rf "$work"
step done
