#!/usr/bin/env bash
# Runs verifybench's GPU phases on the lab machine from a bundle (scripts/bundle.sh), writing
# every log and report under OUT. Each phase prints one summary line; full logs stay in OUT.
#
# Usage: scripts/lab_run.sh BUNDLE OUT PHASE...
#   tests        GPU Catch2 tests (bin/vb_test_kernels)
#   correctness  scenarios/correctness.yaml and correctness_fp8.yaml, every row checked against the CPU reference
#   perf         scenarios/perf.yaml timed (cold L2 + graph replay) with in-run ceilings
#                (VB_PERF_ARGS: timing arguments, default "--budget-s 0.3 --max-samples 200";
#                VB_PERF_MODES: --modes, default "cold,graph"; add chain,chain-pdl for the
#                back-to-back table)
#   sanitize     compute-sanitizer memcheck/racecheck/initcheck/synccheck on the correctness set
#   racecheck-subset  racecheck on 12 representative correctness cases (the full set is too
#                slow for one call)
#   sanitize-fast  the same without racecheck
#   racecheck-each  racecheck on every correctness case, one process per case with its own
#                time limit (VB_RACECHECK_CASE_LIMIT, default 60 s; VB_RACECHECK_TOTAL_S caps the
#                phase; VB_SANITIZE_KERNELS=SUBSTRING checks only matching kernels); verdicts in
#                racecheck-each.txt
#   racecheck-handoff  racecheck of the wgmma kernel on one case (VB_RACECHECK_CASE, default
#                ddtree64) with the bundle's default build and with bin/verifybench-handoff-sync
#                (scripts/bundle.sh with VB_BUNDLE_HANDOFF_SYNC=1): do the P hand-over reports go
#                away when both sides use bar.sync?
#   racecheck-stages  racecheck of the mma.sync kernel on VB_RACECHECK_CASES (default three
#                cases that reported bulk-copy vs ldmatrix hazards at v3) with the bundle's default
#                build and each stage-protocol debug build in it (scripts/bundle.sh with
#                VB_BUNDLE_STAGE_DEBUG=1: plain copies; every lane arriving; both): which of them
#                does racecheck accept?
#   single       the single-request and small-batch perf cases, timed (split-count checks)
#   nightly      the nightly gate twice: the real build, then the same build deliberately slowed
#                (--planner split_divisor=2: half the planned splits) against the baseline the
#                real build just made
#   profile      ncu through the NVTX range of one case (scripts/profile.sh)
#   stalls       ncu source counters of one case (VB_STALLS_CASE, executor VB_PROFILE_EXECUTOR): stall samples per SASS
#                instruction, stall-reason totals, and the cuobjdump SASS for sm_90/sm_120
# Never touches clocks, power or modes (ncu runs with --clock-control none).
set -uo pipefail
bundle=$(cd "$1" && pwd); out=$2; shift 2
mkdir -p "$out"
vb() { "$bundle/run.sh" "$@"; }
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv > "$out/nvidia-smi.txt" 2>&1
summary() { printf '%-12s rc=%-3s %s\n' "$1" "$2" "$3" | tee -a "$out/phases.txt"; }
# racecheck_builds PHASE KERNEL BUNDLE_SWITCH "CASE..." LIMIT_S BIN...: racecheck of the kernels
# whose names contain KERNEL, one process per debug build BIN of the bundle and case, each
# with its own time limit; BUNDLE_SWITCH names the scripts/bundle.sh switch that adds the builds.
racecheck_builds() {
  local phase=$1 kernel=$2 switch=$3 limit=$5 bin c log rc
  local -a cases
  read -r -a cases <<< "$4"
  shift 5
  for bin in "$@"; do
    [[ -x "$bundle/bin/$bin" ]] || { summary "$bin" 2 "not in the bundle ($switch=1 scripts/bundle.sh)"; continue; }
    for c in "${cases[@]}"; do
      log="$out/$phase-$bin-$c.log"
      timeout "$limit" compute-sanitizer --tool racecheck --kernel-name "kns=$kernel" "$bundle/bin/$bin" run \
        scenarios/correctness.yaml --case "$c" --out-dir "$out/$phase-$bin-$c" > "$log" 2>&1
      rc=$?
      summary "$bin $c" $rc "$(grep -E 'RACECHECK SUMMARY|^summary' "$log" | tr '\n' ' ')"
    done
  done
}

for phase in "$@"; do
  start=$SECONDS
  case "$phase" in
    tests)
      "$bundle/bin/vb_test_kernels" > "$out/gpu-tests.log" 2>&1; rc=$?
      summary tests $rc "$(tail -n 2 "$out/gpu-tests.log" | tr '\n' ' ')" ;;
    correctness)
      vb run scenarios/correctness.yaml scenarios/correctness_fp8.yaml --out-dir "$out/correctness" > "$out/correctness.log" 2>&1; rc=$?
      summary correctness $rc "$(grep '^summary' "$out/correctness.log")" ;;
    perf)
      # shellcheck disable=SC2086  # VB_PERF_ARGS is a list of arguments
      vb run scenarios/perf.yaml --time --modes "${VB_PERF_MODES:-cold,graph}" ${VB_PERF_ARGS:---budget-s 0.3 --max-samples 200} \
        --out-dir "$out/perf" > "$out/perf.log" 2>&1; rc=$?
      summary perf $rc "$(grep '^summary' "$out/perf.log")" ;;
    racecheck-subset)
      # racecheck over the whole correctness set outlasts a 10-minute lab call (it timed out
      # at 110 s); this subset covers every tree kind, page size, split path and head count.
      cases=()
      for c in prefix0_only page16_boundaries unequal_prefixes long_prefix_page1 star8 deep_chain64 \
               wide_kary4x3 ddtree64 'mask_word_edges/tree.nodes=65' \
               'placements/pages.size=64,pages.placement=fragmented' shared_prefix_page16 \
               'heads/heads=128'; do cases+=(--case "$c"); done
      compute-sanitizer --tool racecheck --error-exitcode 99 "$bundle/bin/verifybench" run \
        scenarios/correctness.yaml "${cases[@]}" --out-dir "$out/sanitize-racecheck" \
        > "$out/sanitize-racecheck.log" 2>&1
      rc=$?
      summary racecheck $rc "$(grep -E 'ERROR SUMMARY|^summary' "$out/sanitize-racecheck.log" | tr '\n' ' ')" ;;
    racecheck-each)
      # racecheck one correctness case per process (VB_RACECHECK_CASE_LIMIT seconds each,
      # default 60): a time limit then costs one case's verdict, not the whole set's.
      # VB_SANITIZE_KERNELS=SUBSTRING checks only kernels whose name contains it (e.g.
      # flash_verify: the production kernels, not the naive baseline); VB_RACECHECK_TOTAL_S
      # stops starting new cases after that many seconds (the rest are listed "not run").
      mkdir -p "$out/racecheck-each"
      : > "$out/racecheck-each.txt"
      filter=()
      [[ -n ${VB_SANITIZE_KERNELS:-} ]] && filter=(--kernel-name "kns=$VB_SANITIZE_KERNELS")
      each_start=$SECONDS
      "$bundle/bin/verifybench" list scenarios/correctness.yaml | awk 'NR > 2 && /scenarios\/correctness.yaml:/ {print $1}' |
        while read -r c; do
          if (( SECONDS - each_start >= ${VB_RACECHECK_TOTAL_S:-100000} )); then
            printf '%s not run (VB_RACECHECK_TOTAL_S)\n' "$c" >> "$out/racecheck-each.txt"; continue
          fi
          safe=$(printf '%s' "$c" | tr -c 'A-Za-z0-9_.=-' '_')
          timeout "${VB_RACECHECK_CASE_LIMIT:-60}" compute-sanitizer --tool racecheck "${filter[@]}" --error-exitcode 99 \
            "$bundle/bin/verifybench" run scenarios/correctness.yaml --case "$c" --out-dir "$out/racecheck-each/$safe" \
            > "$out/racecheck-each/$safe.log" 2>&1
          printf '%s rc=%s %s\n' "$c" $? "$(grep -E 'RACECHECK SUMMARY' "$out/racecheck-each/$safe.log" | tr '\n' ' ')" >> "$out/racecheck-each.txt"
        done
      rc=0; grep -qv ' rc=0 ' "$out/racecheck-each.txt" && rc=1
      summary racecheck-each $rc "$(grep -c ' rc=0 ' "$out/racecheck-each.txt") of $(wc -l < "$out/racecheck-each.txt") cases clean" ;;
    sanitize|sanitize-fast)
      # sanitize-fast: all but racecheck, which alone outlasts a lab call over the whole set
      # (racecheck-each runs it case by case).
      tools=(memcheck racecheck initcheck synccheck)
      [[ $phase == sanitize-fast ]] && tools=(memcheck initcheck synccheck)
      for tool in "${tools[@]}"; do
        compute-sanitizer --tool "$tool" --error-exitcode 99 "$bundle/bin/verifybench" run \
          scenarios/correctness.yaml --out-dir "$out/sanitize-$tool" > "$out/sanitize-$tool.log" 2>&1
        rc=$?
        summary "$tool" $rc "$(grep -E 'ERROR SUMMARY|^summary' "$out/sanitize-$tool.log" | tr '\n' ' ')"
      done ;;
    nightly)
      export VB_NIGHTLY_SKIP_SETUP=1 VB_NIGHTLY_RUN_ARGS="--budget-s 0.4"
      VERIFYBENCH="$bundle/run.sh" VB_NIGHTLY_OUT="$out/nightly-real" \
        VB_NIGHTLY_BASELINE="$out/baseline.json" scripts/nightly.sh > "$out/nightly-first.log" 2>&1
      cp "$out/nightly-real/result.json" "$out/baseline.json" 2>/dev/null
      VERIFYBENCH="$bundle/run.sh" VB_NIGHTLY_OUT="$out/nightly-real2" \
        VB_NIGHTLY_BASELINE="$out/baseline.json" scripts/nightly.sh > "$out/nightly-real.log" 2>&1
      rc=$?; summary nightly-real $rc "$(tail -n 1 "$out/nightly-real.log")"
      slow_runner="$out/run-slow.sh"
      printf '#!/bin/sh\nif [ "$1" = run ]; then shift; exec "%s/run.sh" run "$@" --planner split_divisor=2; fi\nexec "%s/run.sh" "$@"\n' \
        "$bundle" "$bundle" > "$slow_runner"
      chmod +x "$slow_runner"
      VERIFYBENCH="$slow_runner" BASELINE_BIN="$bundle/run.sh" VB_NIGHTLY_OUT="$out/nightly-slow" \
        VB_NIGHTLY_BASELINE="$out/baseline.json" scripts/nightly.sh > "$out/nightly-slow.log" 2>&1
      rc=$?; summary nightly-slow $rc "$(tail -n 1 "$out/nightly-slow.log")" ;;
    racecheck-handoff)
      racecheck_builds racecheck-handoff flash_verify_wgmma_kernel VB_BUNDLE_HANDOFF_SYNC \
        "${VB_RACECHECK_CASE:-ddtree64}" "${VB_RACECHECK_CASE_LIMIT:-120}" verifybench verifybench-handoff-sync ;;
    racecheck-stages)
      racecheck_builds racecheck-stages flash_verify_mma_kernel VB_BUNDLE_STAGE_DEBUG \
        "${VB_RACECHECK_CASES:-page1_odd_sizes unequal_prefixes long_prefix_page1}" "${VB_RACECHECK_CASE_LIMIT:-60}" \
        verifybench verifybench-sync-copy verifybench-lane-arrivals verifybench-sync-copy-lane-arrivals ;;
    single)
      vb run scenarios/perf.yaml --time --modes cold,graph --budget-s 0.3 \
        --case 'kimi_k2_tp8_decode/batch.size=1,pages.size=1' \
        --case 'kimi_k2_tp8_single_request/batch.prefix_lens=[4096]' \
        --case 'kimi_k2_tp8_single_request/batch.prefix_lens=[131072]' \
        --case 'kimi_k2_tp8_decode/batch.size=64,pages.size=1' \
        --case 'sglang_peer_b1_h16_t4_p4k' --case 'sglang_peer_b32_h16_t4_p8k' \
        --out-dir "$out/single" > "$out/single.log" 2>&1; rc=$?
      summary single $rc "$(grep '^summary' "$out/single.log")" ;;
    profile)
      VERIFYBENCH="$bundle/run.sh" scripts/profile.sh scenarios/perf.yaml \
        'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64' --section SpeedOfLight --section WarpStateStats \
        --section Occupancy --section LaunchStats > "$out/ncu.log" 2>&1
      rc=$?; summary profile $rc "$(grep -cE 'flash_verify_mma_kernel' "$out/ncu.log") kernel lines" ;;
    stalls)
      # Where the production kernel's warps wait: per-SASS-instruction stall samples and the
      # stall-reason totals of one launch (ncu source counters), plus the SASS itself.
      case_name=${VB_STALLS_CASE:-'kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64'}
      VERIFYBENCH="$bundle/run.sh" scripts/profile.sh scenarios/perf.yaml "$case_name" \
        --section SourceCounters --section WarpStateStats --section SpeedOfLight \
        > "$out/stalls-ncu.log" 2>&1
      rc=$?
      rep=$(ls -t reports/local/ncu-*.ncu-rep | head -n 1)
      cp "$rep" "$out/" 2>/dev/null
      ncu --import "$rep" --page raw --csv > "$out/stalls-raw.csv" 2>&1
      ncu --import "$rep" --page details --print-details all > "$out/stalls-details.txt" 2>&1
      ncu --import "$rep" --page source --print-source sass --csv \
        --kernel-name regex:'flash_verify_(mma|wgmma)_kernel' > "$out/stalls-source-sass.csv" 2>&1
      cuobjdump -sass -arch sm_90 "$bundle/bin/verifybench" > "$out/sass-sm_90.txt" 2>&1
      cuobjdump -sass -arch sm_90a "$bundle/bin/verifybench" > "$out/sass-sm_90a.txt" 2>&1
      cuobjdump -sass -arch sm_120 "$bundle/bin/verifybench" > "$out/sass-sm_120.txt" 2>&1
      python3 scripts/stalls_top.py "$out/stalls-source-sass.csv" 40 > "$out/stalls-top.txt" 2>&1
      summary stalls $rc "$(wc -l < "$out/stalls-source-sass.csv") source lines; $(sed -n 2p "$out/stalls-top.txt")" ;;
    *) echo "unknown phase $phase" >&2; exit 2 ;;
  esac
  echo "  ($phase: $((SECONDS - start)) s)" | tee -a "$out/phases.txt"
done
