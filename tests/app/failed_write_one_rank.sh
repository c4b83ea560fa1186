#!/usr/bin/env bash
# failed_write_one_rank.sh MPIEXEC PREFLAGS PATCHWORK DECK DIR: a dump whose collective
# write fails on one rank of two (a file-size limit on rank 1 only, which the room rank 0
# reserves does not cover) stops the run with exit code 2 and one message, and no hang:
# HDF5 cannot close the file after that, so the run reports and aborts. The dumps an
# earlier run left in DIR stay as they were, and no temporary file is left behind.
set -u
mpiexec=$1 preflags=$2 exe=$3 deck=$4 dir=$5
rm -rf "$dir"
args=("$deck" time.max_step=2 output.interval=1 "output.dir=\"$dir\"")
"$exe" "${args[@]}" >/dev/null || { echo "the first run failed"; exit 1; }
before=$(cd "$dir" && sha256sum plt_0000*.h5 plt_0000*.xmf) || exit 1
[ "$(wc -l <<<"$before")" -eq 6 ] || { echo "expected 6 files, got: $before"; exit 1; }
errfile=$(mktemp)
# The limit also stops Open MPI's shared-memory transport from making its segment:
# the ranks talk over TCP on the loopback here.
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo
# shellcheck disable=SC2086 # PREFLAGS are words
timeout 120 "$mpiexec" $preflags -np 1 "$exe" "${args[@]}" : $preflags -np 1 \
  bash -c 'trap "" XFSZ; ulimit -f 40 && exec "$@"' limited "$exe" "${args[@]}" \
  >/dev/null 2>"$errfile"
code=$?
err=$(cat "$errfile")
rm -f "$errfile"
echo "exit code $code; stderr: $err"
[ "$code" -ne 124 ] || { echo "the run hung"; exit 1; }
[ "$code" -eq 2 ] || { echo "expected exit code 2"; exit 1; }
[ "$(grep -c '^patchwork: error: cannot write the dump ' <<<"$err")" -eq 1 ] ||
  { echo "expected one 'patchwork: error: cannot write the dump' line"; exit 1; }
after=$(cd "$dir" && sha256sum plt_0000*.h5 plt_0000*.xmf)
[ "$before" = "$after" ] || { echo "dumps changed:"; diff <(echo "$before") <(echo "$after"); exit 1; }
leftover=$(find "$dir" -name '*.tmp*')
[ -z "$leftover" ] || { echo "left behind: $leftover"; exit 1; }
grep -q '"status": "error"' "$dir/plt_summary.json" || { echo "no error summary"; exit 1; }
echo "a clean error, the earlier dumps unchanged"
