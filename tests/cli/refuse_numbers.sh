#!/bin/sh
# Every numeric option of every verifybench command refuses values that are not finite
# decimal numbers in its range (issue 48, item 8): exit 2, one line naming the option and
# what is allowed, and nothing run. CLI11's own range checks let NaN through (every
# comparison with NaN is false), so `--max-reference-flop nan` once switched a limit off.
# Usage: refuse_numbers.sh VERIFYBENCH SCENARIO_FILE RESULT_JSON
set -u
vb=$1 scenario=$2 result=$3
failures=0

expect_refused() {  # expect_refused OPTION VALUE COMMAND...
  option=$1 value=$2
  shift 2
  err=$("$@" "$option" "$value" 2>&1 >/dev/null)
  rc=$?
  case $err in
    *"$option"*"allowed: a "*) message_ok=1 ;;
    *) message_ok=0 ;;
  esac
  lines=$(printf '%s\n' "$err" | wc -l)
  if [ "$rc" -ne 2 ] || [ "$message_ok" -ne 1 ] || [ "$lines" -ne 1 ]; then
    echo "FAIL: $* $option $value: exit $rc, message: $err"
    failures=$((failures + 1))
  fi
}

for value in nan NaN inf -inf 1e999 0x10 ''; do
  for option in --max-reference-flop --noise --budget-s; do
    expect_refused "$option" "$value" "$vb" run "$scenario"
  done
  for option in --max-file-bytes --max-cases --max-host-bytes --max-reference-bytes --threads --min-samples \
                --max-samples; do
    expect_refused "$option" "$value" "$vb" run "$scenario"
  done
  for option in --max-reference-flop --max-cases; do
    expect_refused "$option" "$value" "$vb" list "$scenario"
    expect_refused "$option" "$value" "$vb" plan "$scenario"
  done
  expect_refused --threads "$value" "$vb" export "$scenario" --case smoke_chain4_page1 /nonexistent/export
  expect_refused --launches "$value" "$vb" profile "$scenario" --case smoke_chain4_page1 --timeline t.csv
  expect_refused --tolerance "$value" "$vb" compare "$result" "$result"
  expect_refused --resamples "$value" "$vb" compare "$result" "$result"
done
# Integers are plain decimal, as in scenario files: no exponent, fraction or octal.
for value in 2e0 1e2 2. 010 -1; do
  expect_refused --threads "$value" "$vb" run "$scenario"
  expect_refused --max-cases "$value" "$vb" list "$scenario"
done
# Ranges hold at their ends.
expect_refused --noise 1.5 "$vb" run "$scenario"
expect_refused --max-reference-flop 0 "$vb" run "$scenario"
expect_refused --tolerance 1 "$vb" compare "$result" "$result"

if [ "$failures" -ne 0 ]; then
  echo "$failures refusals missing"
  exit 1
fi
echo "every numeric option refused every non-finite or malformed value (exit 2)"
