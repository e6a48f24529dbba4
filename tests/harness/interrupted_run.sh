#!/bin/sh
# `verifybench run` stopped by a signal after its first case (VB_TEST_SIGNAL_AFTER_CASES raises
# it in the process, through the real handler): exit 128 + the signal, the one completed case
# in every report, and summary.md and result.json marked partial with the counts.
# Usage: interrupted_run.sh VERIFYBENCH SCENARIO_WITH_3_CASES OUT_DIR INT|TERM EXPECTED_EXIT
set -u
bin=$1 scenario=$2 out=$3 signal=$4 expected=$5
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"
VB_TEST_SIGNAL_AFTER_CASES="1:$signal" "$bin" run "$scenario" --out-dir "$out" > "$out.log" 2>&1
status=$?
cat "$out.log"
[ "$status" -eq "$expected" ] || fail "exit $status, expected $expected"
grep -q "^verifybench: stopped by SIG$signal after 1 of 3 cases: the reports hold those, marked partial$" "$out.log" ||
  fail "no stop message"
grep -q "^\*\*Partial run\*\*: stopped by SIG$signal after 1 of 3 selected cases" "$out/summary.md" ||
  fail "summary.md not marked partial"
tr -d ' \n' < "$out/result.json" |
  grep -q "\"partial\":{\"interrupted_by\":\"SIG$signal\",\"cases_completed\":1,\"cases_selected\":3}" ||
  fail "result.json not marked partial"
[ "$(grep -c '"case":' "$out/result.json")" -eq 1 ] || fail "result.json does not hold exactly one case"
[ "$(wc -l < "$out/results.csv")" -gt 1 ] || fail "results.csv holds no row"
echo "PASS"
