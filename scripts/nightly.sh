#!/usr/bin/env bash
# Nightly performance gate: build (Release), time scenarios/nightly.yaml, compare with the
# committed baseline reports/baselines/<device-slug>.json (`verifybench compare`), re-measure
# any "slower" case before believing it, write the reports, and fail only on a confirmed
# regression or a correctness failure. Details: reports/baselines/README.md.
#
# Usage:
#   scripts/nightly.sh                 build, run, compare, confirm
#   scripts/nightly.sh --bless [FILE]  make FILE (default: the newest
#                                      reports/nightly/*/result.json) the baseline of its
#                                      device: reports/baselines/<device-slug>.json
#   scripts/nightly.sh --help
#
# Environment (all optional):
#   VERIFYBENCH              a prebuilt verifybench (or the bundle's run.sh): skip the build
#   VB_NIGHTLY_CMAKE_ARGS    extra cmake arguments (a build mode, e.g. "-DVB_DEBUG_TIMELINE=1"); they get their
#                            own build folder, so a later plain night is not built with them
#   VB_NIGHTLY_BUILD_DIR     build folder (default build-nightly[-<hash of the cmake args>])
#   VB_NIGHTLY_SCENARIOS     scenario file (default scenarios/nightly.yaml)
#   VB_NIGHTLY_OUT           report folder (default reports/nightly/<UTC date>)
#   VB_NIGHTLY_BASELINE      baseline file (default reports/baselines/<device-slug>.json)
#   BASELINE_BIN             verifybench of the baseline build: confirmation runs interleave it
#                            with the candidate (else the candidate is re-run alone and
#                            compared with the baseline file again)
#   VB_NIGHTLY_CONFIRM_RUNS  re-measurements per binary for "slower" cases (default 3)
#   VB_NIGHTLY_TOLERANCE     compare's default tolerance (default 0.05; YAML gate wins)
#   VB_NIGHTLY_NORMALIZE     none | ceilings | auto (default auto: by ceilings when both
#                            result files carry them)
#   VB_NIGHTLY_ALLOW_CROSS_DEVICE=1   compare despite device/driver/build differences
#                            (verdicts are marked cross-device) instead of refusing
#   VB_NIGHTLY_SKIP_SETUP=1  do not run scripts/setup.sh (packages) before building
#   VB_NIGHTLY_RUN_ARGS      extra `verifybench run` timing arguments, e.g. "--budget-s 0.3"
#                            (the same for every run of the night, baseline binary included)
#
# Exit codes:
#   0  no confirmed regression and no correctness failure (also: a "slower" verdict that the
#      re-measurement did not confirm; and a first night with no baseline yet, with a warning)
#   1  confirmed regression
#   2  bad input: usage, scenario file, unreadable baseline
#   3  build failure, or the run wrote no result file
#   4  correctness failure (an executor incorrect or its launch failed); wins over 1
#   5  comparison refused: device, driver or build differ from the baseline's (re-bless, or
#      VB_NIGHTLY_ALLOW_CROSS_DEVICE=1)
#   6  comparison incomplete: the run shares no case with the baseline, nothing was timed on
#      both sides, or the run lacks cases the baseline has (a gate never passes on nothing)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 3

log() { echo "nightly: $*"; }
die() { echo "nightly: error: $2" >&2; exit "$1"; }

# ---------------------------------------------------------------- arguments
bless=0
bless_file=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bless)
      bless=1
      if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then bless_file=$2; shift; fi
      ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die 2 "unknown argument '$1' (see --help)" ;;
  esac
  shift
done

scenarios=${VB_NIGHTLY_SCENARIOS:-scenarios/nightly.yaml}
confirm_runs=${VB_NIGHTLY_CONFIRM_RUNS:-3}
tolerance=${VB_NIGHTLY_TOLERANCE:-0.05}
normalize=${VB_NIGHTLY_NORMALIZE:-auto}
cmake_args=${VB_NIGHTLY_CMAKE_ARGS:-}
case "$confirm_runs" in ''|*[!0-9]*) die 2 "VB_NIGHTLY_CONFIRM_RUNS must be a count, got '$confirm_runs'" ;; esac
[ "$confirm_runs" -ge 1 ] || die 2 "VB_NIGHTLY_CONFIRM_RUNS must be at least 1"

# ---------------------------------------------------------------- build
build() {
  if [ -n "${VERIFYBENCH:-}" ]; then
    bin=$VERIFYBENCH
    [ -x "$bin" ] || die 3 "VERIFYBENCH=$bin is not executable"
    log "using prebuilt $bin"
    return
  fi
  local dir=${VB_NIGHTLY_BUILD_DIR:-build-nightly}
  if [ -z "${VB_NIGHTLY_BUILD_DIR:-}" ] && [ -n "$cmake_args" ]; then
    dir=build-nightly-$(printf '%s' "$cmake_args" | sha256sum | cut -c1-8)
  fi
  [ "${VB_NIGHTLY_SKIP_SETUP:-0}" = 1 ] || scripts/setup.sh || die 3 "scripts/setup.sh failed"
  log "building $dir (Release${cmake_args:+, $cmake_args})"
  # shellcheck disable=SC2086  # the extra arguments are meant to split
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVB_BUILD_TESTS=OFF $cmake_args \
    >/dev/null || die 3 "cmake configure failed"
  cmake --build "$dir" -j "$(nproc)" --target verifybench || die 3 "build failed"
  bin=$dir/verifybench
}

# "NVIDIA H200" -> nvidia-h200, from provenance.device.name of a result file (pretty-printed
# JSON: the "device": { ... "name": "..." } block). Empty when the run had no device.
device_slug() {
  awk '/"device": *\{/ { in_dev = 1; next }
       in_dev && /"name":/ { sub(/^[^:]*: *"/, ""); sub(/",? *$/, ""); print; exit }
       in_dev && /^ *\}/ { exit }' "$1" |
    tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/^-//' -e 's/-$//'
}

# ---------------------------------------------------------------- bless
if [ "$bless" = 1 ]; then
  if [ -z "$bless_file" ]; then
    bless_file=$(find reports/nightly -mindepth 2 -maxdepth 2 -name result.json 2>/dev/null | sort | tail -n 1)
    [ -n "$bless_file" ] || die 2 "no reports/nightly/*/result.json to bless; run scripts/nightly.sh first or name a file"
  fi
  [ -r "$bless_file" ] || die 2 "cannot read $bless_file"
  slug=$(device_slug "$bless_file")
  [ -n "$slug" ] || die 2 "$bless_file has no device (run without a GPU): nothing to bless"
  build
  # The file compared with itself: exit 4 when it holds a correctness failure, 2 when it is
  # not a timed result, 6 when nothing in it is timed. A baseline must be none of them.
  "$bin" compare "$bless_file" "$bless_file" >/dev/null
  rc=$?
  [ $rc -eq 0 ] || die "$rc" "$bless_file cannot be a baseline (verifybench compare exit $rc: 2 not a timed result/2 or /3 file, 4 correctness failure, 6 nothing timed)"
  mkdir -p reports/baselines
  cp "$bless_file" "reports/baselines/$slug.json"
  log "blessed $bless_file as reports/baselines/$slug.json"
  log "commit it: git add reports/baselines/$slug.json && git commit -m 'baseline: $slug from $bless_file'"
  exit 0
fi

# ---------------------------------------------------------------- run
build
out=${VB_NIGHTLY_OUT:-reports/nightly/$(date -u +%Y-%m-%d)}
[ -z "${VB_NIGHTLY_OUT:-}" ] && [ -e "$out" ] && out=reports/nightly/$(date -u +%Y-%m-%dT%H%M%SZ)
mkdir -p "$out" || die 3 "cannot create $out"
exec > >(tee -a "$out/nightly.log") 2>&1
# A bundle's run.sh names the commit its binaries were built from; the checkout here may be
# a stale copy (on the lab machine it named an older commit than the bundle's).
built_from=$(sed -n 's/^export VB_GIT_COMMIT="\${VB_GIT_COMMIT:-\([0-9a-f]*\)}"$/\1/p' "$bin" 2>/dev/null | cut -c1-7)
log "reports in $out; commit ${built_from:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}${built_from:+ (the bundle build)}"

run_help=$("$bin" run --help 2>&1)
case "$run_help" in *--time*) ;; *) die 3 "$bin run has no --time option: this build cannot measure" ;; esac
# --out-dir (report folder: result.json, summary.md, ...) when this build has it; --json names
# the result file either way, so the gate does not depend on the folder's layout.
out_dir_arg=()
case "$run_help" in *--out-dir*) out_dir_arg=(--out-dir "$out") ;; esac

result=$out/result.json
log "running $scenarios (timed)"
read -r -a run_args <<< "${VB_NIGHTLY_RUN_ARGS:-}"
"$bin" run "$scenarios" --time "${run_args[@]}" "${out_dir_arg[@]}" --json "$result"
run_rc=$?
[ -r "$result" ] || die $(( run_rc == 2 ? 2 : 3 )) "the run wrote no $result (verifybench run exit $run_rc)"
# run: 1 incorrect, 3 CUDA/launch failure (with a result written): both correctness failures.
run_failed=0
case $run_rc in
  0) ;;
  1|3) run_failed=1; log "CORRECTNESS FAILURE in the run (verifybench run exit $run_rc)" ;;
  *) die "$run_rc" "verifybench run failed (exit $run_rc)" ;;
esac

slug=$(device_slug "$result")
if [ -z "$slug" ]; then
  log "the run had no GPU: nothing timed, nothing to gate"
  [ $run_failed = 1 ] && exit 4
  exit 0
fi
baseline=${VB_NIGHTLY_BASELINE:-reports/baselines/$slug.json}
if [ ! -e "$baseline" ]; then
  log "WARNING: NO BASELINE at $baseline: this night is not gated."
  log "make this run the baseline: scripts/nightly.sh --bless $result"
  [ $run_failed = 1 ] && exit 4
  exit 0
fi

compare_args=(--tolerance "$tolerance" --normalize "$normalize")
[ "${VB_NIGHTLY_ALLOW_CROSS_DEVICE:-0}" = 1 ] && compare_args+=(--allow-cross-device)

log "comparing with $baseline"
"$bin" compare "$baseline" "$result" "${compare_args[@]}" \
  --markdown "$out/compare.md" --json "$out/compare.json" --slower-list "$out/slower.txt"
cmp_rc=$?
case $cmp_rc in
  0) log "PASS: no regression"; [ $run_failed = 1 ] && exit 4; exit 0 ;;
  1) ;;  # slower: confirm below
  4) log "FAIL: correctness failure"; exit 4 ;;
  5) log "REFUSED: the run's device, driver or build differ from the baseline's (see above)"; exit 5 ;;
  6) log "INCOMPLETE: the run does not cover the baseline's cases (see above): nothing gated"; exit 6 ;;
  *) die "$cmp_rc" "verifybench compare failed (exit $cmp_rc)" ;;
esac

# ---------------------------------------------------------------- confirmation
# One night's "slower" is re-measured before it fails the night: the slower cases only, K
# times, alternating the baseline binary (when given) and the candidate so that drift during
# the confirmation hits both, then compared again on the pooled samples.
mapfile -t slower < "$out/slower.txt"
case_args=()
for name in "${slower[@]}"; do [ -n "$name" ] && case_args+=(--case "$name"); done
log "slower: ${slower[*]}; re-measuring ${confirm_runs}x${BASELINE_BIN:+ interleaved with $BASELINE_BIN}"
confirm=$out/confirm
mkdir -p "$confirm"
for k in $(seq 1 "$confirm_runs"); do
  if [ -n "${BASELINE_BIN:-}" ]; then
    base_help=$("$BASELINE_BIN" run --help 2>&1)
    base_dir_arg=()
    case "$base_help" in *--out-dir*) base_dir_arg=(--out-dir "$confirm/baseline-$k") ;; esac
    "$BASELINE_BIN" run "$scenarios" "${case_args[@]}" --time "${run_args[@]}" "${base_dir_arg[@]}" \
      --json "$confirm/baseline-$k.json" >/dev/null
    rc=$?
    [ -r "$confirm/baseline-$k.json" ] || die 3 "baseline binary wrote no result (exit $rc)"
  fi
  cur_dir_arg=()
  [ ${#out_dir_arg[@]} -gt 0 ] && cur_dir_arg=(--out-dir "$confirm/current-$k")
  "$bin" run "$scenarios" "${case_args[@]}" --time "${run_args[@]}" "${cur_dir_arg[@]}" \
    --json "$confirm/current-$k.json" >/dev/null
  rc=$?
  [ -r "$confirm/current-$k.json" ] || die 3 "confirmation run wrote no result (exit $rc)"
done

pooled=()
for k in $(seq 2 "$confirm_runs"); do
  pooled+=(--pool-current "$confirm/current-$k.json")
  [ -n "${BASELINE_BIN:-}" ] && pooled+=(--pool-baseline "$confirm/baseline-$k.json")
done
confirm_base=$baseline
[ -n "${BASELINE_BIN:-}" ] && confirm_base=$confirm/baseline-1.json
log "comparing the re-measurements: $confirm_base vs $confirm/current-*.json"
# The re-measurements hold the slower cases only: the baseline's other cases are missing on
# purpose (--allow-missing); sharing no case at all still fails (exit 6).
"$bin" compare "$confirm_base" "$confirm/current-1.json" "${pooled[@]}" "${compare_args[@]}" --allow-missing \
  --markdown "$confirm/compare.md" --json "$confirm/compare.json" --slower-list "$confirm/slower.txt"
confirm_rc=$?
case $confirm_rc in
  0) log "PASS: the slowdown was not confirmed by $confirm_runs re-measurement(s) (noise)"
     [ $run_failed = 1 ] && exit 4; exit 0 ;;
  1) log "FAIL: confirmed regression: $(tr '\n' ' ' < "$confirm/slower.txt")"
     [ $run_failed = 1 ] && exit 4; exit 1 ;;
  4) log "FAIL: correctness failure in the re-measurement"; exit 4 ;;
  5) log "REFUSED: the baseline binary's run differs in device, driver or build (VB_NIGHTLY_ALLOW_CROSS_DEVICE=1 to compare anyway)"; exit 5 ;;
  6) log "INCOMPLETE: the re-measurements share no timed case with $confirm_base"; exit 6 ;;
  *) die "$confirm_rc" "verifybench compare of the re-measurements failed (exit $confirm_rc)" ;;
esac
