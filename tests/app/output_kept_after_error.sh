#!/usr/bin/env bash
# output_kept_after_error.sh PATCHWORK DECK DIR: a run with dumps and a load history in
# DIR, then a run into DIR whose fixed time step is above the CFL limit (bad input, found
# at its first step): it must exit with code 2 and leave every file of the first run as
# it was (the history was replaced by a header-only one, the dump of step 0 by its own),
# with no temporary file behind; then the same for a restart from the first run's dump
# (it dropped the history's later rows before it stopped); then a restart with nothing
# to run, which must write nothing, not even a run summary.
set -u
exe=$1 deck=$2 dir=$3
rm -rf "$dir"
"$exe" "$deck" time.max_step=2 output.interval=1 "output.dir=\"$dir\"" >/dev/null ||
  { echo "the first run failed"; exit 1; }
before=$(cd "$dir" && sha256sum plt_load.csv plt_0000*.h5 plt_0000*.xmf) ||
  { echo "the first run did not write its history and dumps"; exit 1; }
[ "$(wc -l <<<"$before")" -eq 7 ] || { echo "expected 7 files, got: $before"; exit 1; }
"$exe" "$deck" time.fixed_dt=0.5 "output.dir=\"$dir\"" >/dev/null 2>&1
code=$?
[ "$code" -eq 2 ] || { echo "expected exit code 2, got $code"; exit 1; }
after=$(cd "$dir" && sha256sum plt_load.csv plt_0000*.h5 plt_0000*.xmf)
[ "$before" = "$after" ] || { echo "files changed:"; diff <(echo "$before") <(echo "$after"); exit 1; }
# A restart stopped the same way: its repair of the history waits for its first row.
"$exe" "$deck" time.fixed_dt=0.5 "output.dir=\"$dir\"" "restart=\"$dir/plt_00001.h5\"" \
  >/dev/null 2>&1
code=$?
[ "$code" -eq 2 ] || { echo "restart: expected exit code 2, got $code"; exit 1; }
after=$(cd "$dir" && sha256sum plt_load.csv plt_0000*.h5 plt_0000*.xmf)
[ "$before" = "$after" ] || { echo "restart: files changed:"; diff <(echo "$before") <(echo "$after"); exit 1; }
leftover=$(find "$dir" -name '*.tmp*')
[ -z "$leftover" ] || { echo "left behind: $leftover"; exit 1; }
# A restart with nothing to run writes nothing at all: not even a run summary (it
# replaced the last run's with one of a run of no steps), nor a folder for it.
before=$(cd "$dir" && sha256sum *)
for out in "$dir" "$dir-none"; do
  rm -rf "$dir-none"
  "$exe" "$deck" time.max_step=2 "output.dir=\"$out\"" "restart=\"$dir/plt_00002.h5\"" \
    >/dev/null 2>&1
  code=$?
  [ "$code" -eq 0 ] || { echo "nothing to run: expected exit code 0, got $code"; exit 1; }
  after=$(cd "$dir" && sha256sum *)
  [ "$before" = "$after" ] || { echo "nothing to run: files changed:"; diff <(echo "$before") <(echo "$after"); exit 1; }
  [ ! -e "$dir-none" ] || { echo "nothing to run: created $dir-none"; exit 1; }
done
echo "the first run's files are unchanged"
