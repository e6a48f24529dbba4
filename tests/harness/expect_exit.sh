#!/bin/sh
# Runs COMMAND and passes when it exits with EXPECTED_EXIT and its output (stdout and stderr
# together) has a line matching the extended regex PATTERN. (CTest's PASS_REGULAR_EXPRESSION
# alone ignores the exit code.)
# Usage: expect_exit.sh EXPECTED_EXIT PATTERN COMMAND...
set -u
expected=$1 pattern=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$expected" ]; then echo "FAIL: exit $status, expected $expected"; exit 1; fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then echo "FAIL: no line matches: $pattern"; exit 1; fi
echo "PASS"
