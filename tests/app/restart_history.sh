#!/usr/bin/env bash
# restart_history.sh DIR COMMAND...: COMMAND (a patchwork run writing into DIR, a dump every
# 2 steps to step 2) leaves DIR/plt_load.csv; a partial last row is appended to it, as a
# crash in the middle of a write leaves it; COMMAND restart=DIR/plt_00002.h5 time.max_step=4
# then passes when it exits with code 0, says so in one warning naming the history, says
# in one more that it dropped the rows of step 2 on (the restarted run takes those
# balancing steps again), and leaves the rows of earlier steps as they were, no trace of
# the partial row, and its own whole rows appended (16 columns each, the file ends in
# "\n").
set -u
dir=$1
shift
rm -rf "$dir"
"$@" time.max_step=2 >/dev/null || { echo "the first run failed"; exit 1; }
csv=$dir/plt_load.csv
[ -s "$csv" ] || { echo "no load history $csv"; exit 1; }
before=$(awk -F, 'NR == 1 || $2 < 2' "$csv")  # the rows a restart from step 2 keeps
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
grep -qE "patchwork: warning: load history $csv: dropped [0-9]+ rows of step 2 on" <<<"$err" ||
  { echo "expected the warning on the rows of step 2"; exit 1; }
after=$(cat "$csv")
[ "${after:0:${#before}}" = "$before" ] || { echo "the rows before the cut changed"; exit 1; }
[ "$(tail -c 1 "$csv" | od -An -c | tr -d ' ')" = '\n' ] || { echo "ends in a partial row"; exit 1; }
grep -q '^9,9,0.5' "$csv" && { echo "the partial row is still there"; exit 1; }
[ "$(wc -l <"$csv")" -gt "$(wc -l <<<"$before")" ] || { echo "no row appended"; exit 1; }
awk -F, 'NF != 16 { print "row " NR " has " NF " columns"; bad = 1 } END { exit bad }' "$csv" ||
  exit 1
echo "repaired: $(wc -l <<<"$before") lines kept, $(($(wc -l <"$csv") - $(wc -l <<<"$before"))) appended"
