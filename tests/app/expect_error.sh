#!/usr/bin/env bash
# expect_error.sh EXPECTED_TEXT COMMAND...: passes when COMMAND exits with code 2 and prints
# EXPECTED_TEXT (a fixed string) on stderr exactly once, and nothing else on stdout.
# PW_EXPECT_CODE: another exit code; PW_ALLOW_STDOUT=1: for an error found once the run
# has started (its log is on stdout).
set -u
expected=$1
shift
errfile=$(mktemp)
out=$("$@" 2>"$errfile")
code=$?
err=$(cat "$errfile")
rm -f "$errfile"
echo "exit code $code; stderr: $err"
want=${PW_EXPECT_CODE:-2}
[ "$code" -eq "$want" ] || { echo "expected exit code $want"; exit 1; }
[ "$(grep -cF -- "$expected" <<<"$err")" -eq 1 ] || { echo "expected: $expected"; exit 1; }
[ -n "${PW_ALLOW_STDOUT:-}" ] || [ -z "$out" ] || { echo "unexpected output: $out"; exit 1; }
