#!/usr/bin/env bash
# expect_restart_error.sh CORRUPT GOOD OUT CASE EXPECTED COMMAND...: make OUT from the good
# dump GOOD with `CORRUPT GOOD OUT CASE`, run COMMAND restart=OUT, and pass when it exits
# with code 2, prints nothing on stdout, and prints on stderr exactly one error, which names
# OUT ("restart: OUT: ") and contains EXPECTED (a fixed string).
set -u
corrupt=$1 good=$2 out=$3 case=$4 expected=$5
shift 5
"$corrupt" "$good" "$out" "$case" || { echo "could not make case $case"; exit 1; }
errfile=$(mktemp)
stdout=$("$@" "restart=\"$out\"" 2>"$errfile")
code=$?
err=$(cat "$errfile")
rm -f "$errfile" "$out"
echo "exit code $code; stderr: $err"
[ "$code" -eq 2 ] || { echo "expected exit code 2"; exit 1; }
[ "$(grep -c "patchwork: error:" <<<"$err")" -eq 1 ] || { echo "expected one error"; exit 1; }
grep -qF -- "patchwork: error: restart: $out: " <<<"$err" || { echo "does not name $out"; exit 1; }
grep -qF -- "$expected" <<<"$err" || { echo "expected: $expected"; exit 1; }
[ -z "$stdout" ] || { echo "unexpected output: $stdout"; exit 1; }
