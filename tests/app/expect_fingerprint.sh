#!/usr/bin/env bash
# expect_fingerprint.sh HEX THREADS SUMMARY COMMAND...: passes when COMMAND exits with code 0,
# prints "fingerprint: HEX", and its run summary SUMMARY (JSON) shows that each rank ran
# THREADS threads of the Kokkos host space ("SPACE:N", e.g. OpenMP:2; "-" skips this check
# on a device build) — so that a case named 1x2 cannot silently run 1 thread. With
# PW_GPU_AWARE_MPI set (0 or 1), the summary must also show that the exchanges handed MPI
# device buffers (1) or host mirrors (0), as the build was configured.
set -u
expected=$1 threads=$2 summary=$3
shift 3
rm -f "$summary"
out=$("$@" 2>&1)
code=$?
got=$(grep -o 'fingerprint: [0-9a-f]*' <<<"$out" | tail -n 1)
echo "exit code $code; $got (expected $expected)"
[ "$code" -eq 0 ] || { echo "$out" | tail -n 20; exit 1; }
[ "$got" = "fingerprint: $expected" ] || exit 1
if [ -n "${PW_GPU_AWARE_MPI:-}" ]; then
  device=$(python3 -c 'import json, sys
print(int(json.load(open(sys.argv[1]))["kokkos"]["gpu_aware_mpi"]))' "$summary") || exit 1
  echo "MPI took device buffers: $device (expected $PW_GPU_AWARE_MPI)"
  [ "$device" = "$PW_GPU_AWARE_MPI" ] || exit 1
fi
[ "$threads" = - ] && exit 0
ran=$(python3 -c 'import json, sys; k = json.load(open(sys.argv[1]))["kokkos"]
print("%s:%s" % (k["execution_space"], k["concurrency"]))' "$summary") || exit 1
echo "Kokkos ran $ran per rank (expected $threads)"
[ "$ran" = "$threads" ]
