#!/usr/bin/env bash
# restart_history.sh CASE DIR COMMAND...: COMMAND (a patchwork run writing into DIR, a dump
# every 2 steps) runs to step 4 and leaves DIR/plt_load.csv; then, by CASE:
# partial_row: a partial last row is appended to it, as a crash in the middle of a write
# leaves it; COMMAND restart=DIR/plt_00002.h5 time.max_step=4 then passes when it exits
# with code 0, says so in one warning naming the history, says in one more that it
# dropped the rows of the balancing steps after the dump (the restarted run takes those
# again), and leaves the rows of the K balancing steps the dump records (its
# checkpoint/balance_steps) as they were, no trace of the partial row, and its own whole
# rows appended, numbered on from K + 1 (16 columns each, the file ends in "\n").
# bad_row: a whole row the run did not write is appended; the restart passes when it
# exits with code 2 before any work, naming the history and the line, and leaves the
# history as it was.
set -u
case=$1 dir=$2
shift 2
rm -rf "$dir"
"$@" time.max_step=4 >/dev/null || { echo "the first run failed"; exit 1; }
csv=$dir/plt_load.csv
[ -s "$csv" ] || { echo "no load history $csv"; exit 1; }
if [ "$case" = bad_row ]; then
  echo "1,2,3,not,a,number" >>"$csv"
  line=$(wc -l <"$csv")
  before=$(cat "$csv")
  err=$("$@" time.max_step=6 "restart=\"$dir/plt_00002.h5\"" 2>&1 >/dev/null)
  code=$?
  echo "exit code $code; stderr: $err"
  [ "$code" -eq 2 ] || { echo "expected exit code 2"; exit 1; }
  grep -qF "patchwork: error: cannot write the load history $csv: line $line: expected a row of 16 comma-separated values" <<<"$err" ||
    { echo "expected the history and line $line named"; exit 1; }
  [ "$(cat "$csv")" = "$before" ] || { echo "the history changed"; exit 1; }
  exit 0
fi
k=$(h5dump -a /checkpoint/balance_steps "$dir/plt_00002.h5" | awk '/\(0\)/ { print $2 }')
[ -n "$k" ] && [ "$k" -ge 1 ] || { echo "dump 2 records no balance_steps"; exit 1; }
before=$(awk -F, -v k="$k" 'NR == 1 || $1 <= k' "$csv")  # the rows the restart keeps
[ "$(wc -l <"$csv")" -gt "$(wc -l <<<"$before")" ] || { echo "no balancing after dump 2"; exit 1; }
printf '9,9,0.5,0,12' >>"$csv"  # a row cut short: no newline, 5 of 16 columns
errfile=$(mktemp)
"$@" time.max_step=4 "restart=\"$dir/plt_00002.h5\"" >/dev/null 2>"$errfile"
code=$?
err=$(cat "$errfile")
rm -f "$errfile"
echo "exit code $code; stderr: $err"
[ "$code" -eq 0 ] || { echo "expected exit code 0"; exit 1; }
[ "$(wc -l <<<"$err")" -eq 2 ] || { echo "expected two lines on stderr"; exit 1; }
grep -qF "patchwork: warning: load history $csv: dropped a partial last row" <<<"$err" ||
  { echo "expected the warning naming $csv"; exit 1; }
grep -qE "patchwork: warning: load history $csv: dropped [0-9]+ rows of the balancing steps after the dump of step 2" <<<"$err" ||
  { echo "expected the warning on the rows after the dump"; exit 1; }
after=$(cat "$csv")
[ "${after:0:${#before}}" = "$before" ] || { echo "the rows before the cut changed"; exit 1; }
[ "$(tail -c 1 "$csv" | od -An -c | tr -d ' ')" = '\n' ] || { echo "ends in a partial row"; exit 1; }
grep -q '^9,9,0.5' "$csv" && { echo "the partial row is still there"; exit 1; }
[ "$(wc -l <"$csv")" -gt "$(wc -l <<<"$before")" ] || { echo "no row appended"; exit 1; }
awk -F, 'NF != 16 { print "row " NR " has " NF " columns"; bad = 1 } END { exit bad }' "$csv" ||
  exit 1
first=$(sed -n "$(($(wc -l <<<"$before") + 1))p" "$csv" | cut -d, -f1)
[ "$first" -eq $((k + 1)) ] || { echo "the appended rows start at balance_step $first, not $((k + 1))"; exit 1; }
echo "repaired: $(wc -l <<<"$before") lines kept, $(($(wc -l <"$csv") - $(wc -l <<<"$before"))) appended"
