#!/usr/bin/env bash
# restart_same_answer.sh DIR STEPS K COMMAND...: COMMAND (patchwork and its deck, with
# any overrides) runs STEPS coarse steps writing a dump after each into DIR/full, then
# again restarted from the dump of step K; both must end with the same fingerprint.
set -u
dir=$1 steps=$2 k=$3
shift 3
rm -rf "$dir"
fingerprint() { "$@" | sed -n 's/^fingerprint: //p'; }
full=$(fingerprint "$@" time.max_step="$steps" output.interval=1 "output.dir=\"$dir/full\"")
[ -n "$full" ] || { echo "the full run failed"; exit 1; }
from=$(printf '%s/full/plt_%05d.h5' "$dir" "$k")
again=$(fingerprint "$@" time.max_step="$steps" "restart=\"$from\"" "output.dir=\"$dir/again\"")
echo "full run $full, restarted from step $k $again"
[ "$full" = "$again" ] || { echo "the restart ended on another answer"; exit 1; }
