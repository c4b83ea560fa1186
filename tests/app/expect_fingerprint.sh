#!/usr/bin/env bash
# expect_fingerprint.sh HEX COMMAND...: passes when COMMAND exits with code 0 and its run
# summary prints "fingerprint: HEX".
set -u
expected=$1
shift
out=$("$@" 2>&1)
code=$?
got=$(grep -o 'fingerprint: [0-9a-f]*' <<<"$out" | tail -n 1)
echo "exit code $code; $got (expected $expected)"
[ "$code" -eq 0 ] || { echo "$out" | tail -n 20; exit 1; }
[ "$got" = "fingerprint: $expected" ] || exit 1
