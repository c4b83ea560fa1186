#!/usr/bin/env bash
# expect_error.sh EXPECTED_TEXT COMMAND...: passes when COMMAND exits with code 2 and prints
# EXPECTED_TEXT (a fixed string) on stderr exactly once, and nothing else on stdout.
set -u
expected=$1
shift
errfile=$(mktemp)
out=$("$@" 2>"$errfile")
code=$?
err=$(cat "$errfile")
rm -f "$errfile"
echo "exit code $code; stderr: $err"
[ "$code" -eq 2 ] || { echo "expected exit code 2"; exit 1; }
[ "$(grep -cF -- "$expected" <<<"$err")" -eq 1 ] || { echo "expected: $expected"; exit 1; }
[ -z "$out" ] || { echo "unexpected output: $out"; exit 1; }
