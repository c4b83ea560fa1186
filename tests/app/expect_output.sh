#!/usr/bin/env bash
# expect_output.sh PATTERN... -- COMMAND...: passes when COMMAND exits with code 0 and
# each PATTERN (an extended regular expression) matches a line of its stdout. (CTest's
# PASS_REGULAR_EXPRESSION alone ignores the exit code.)
set -u
patterns=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  patterns+=("$1")
  shift
done
[ $# -gt 1 ] || { echo "usage: expect_output.sh PATTERN... -- COMMAND..."; exit 1; }
shift
out=$("$@")
code=$?
echo "$out"
[ "$code" -eq 0 ] || { echo "exit code $code, expected 0"; exit 1; }
for p in "${patterns[@]}"; do
  grep -qE -- "$p" <<<"$out" || { echo "no line matches: $p"; exit 1; }
done
