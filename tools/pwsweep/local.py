"""The local launcher: the runs one after another on this machine, with a progress line
(runs done / left, ETA); runs whose summary exists are skipped, so a sweep resumes."""
import json
import os
import subprocess
import sys
import time

from .collect import _log_error


def status(run):
    """The status its summary reports ("ok", "error"), or None when it has none."""
    try:
        with open(run.summary) as f:
            return json.load(f).get("status")
    except (OSError, ValueError):
        return None


def finished(run, retry_failed=False):
    """The run left a summary (ok, or error unless `retry_failed`)."""
    s = status(run)
    return s == "ok" or (s == "error" and not retry_failed)


def _clock(seconds):
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def run_env(launcher):
    """The runs' environment: this one with OMP_NUM_THREADS and KOKKOS_NUM_THREADS (a
    Threads Kokkos reads the second) = the launcher's threads (1 by default, whatever
    the caller's), as the batch scripts set them. Thread binding (OMP_PROC_BIND,
    OMP_PLACES) stays the caller's: pinned threads on a shared machine may land on the
    cores other jobs use."""
    n = str(launcher.threads)
    return dict(os.environ, OMP_NUM_THREADS=n, KOKKOS_NUM_THREADS=n)


def run_all(sweep, retry_failed=False, out=sys.stderr):
    """Run what is left of the sweep. Returns (ran, skipped, failed) counts."""
    env = run_env(sweep.launcher)
    todo = [r for r in sweep.runs if not finished(r, retry_failed)]
    skipped = len(sweep.runs) - len(todo)
    if skipped:
        errors = sum(status(r) == "error" for r in sweep.runs) if not retry_failed else 0
        print(f"sweep: {skipped} of {len(sweep.runs)} runs already have a summary; "
              "skipping them" + (f" ({errors} reporting an error: --retry-failed runs "
                                 "them again)" if errors else ""), file=out)
    failed = 0
    spent = 0.0
    for i, run in enumerate(todo):
        left = len(todo) - i
        eta = "?" if i == 0 else _clock(spent / i * left)
        print(f"[{skipped + i}/{len(sweep.runs)} done, {left} left, ETA {eta}] {run.run_id}",
              file=out, flush=True)
        os.makedirs(run.out_dir, exist_ok=True)
        start = time.monotonic()
        with open(run.log, "w") as log:
            code = subprocess.run(run.command, stdout=log, stderr=subprocess.STDOUT,
                                  env=env).returncode
        spent += time.monotonic() - start
        if code != 0:
            failed += 1
            why = _log_error(run.log)
            print(f"sweep: {run.run_id} failed (exit code {code})"
                  + (f": {why}" if why else "") + f"; log: {run.log}", file=out, flush=True)
    print(f"[{len(sweep.runs)}/{len(sweep.runs)} done, 0 left] {len(todo)} ran "
          f"({failed} failed), {skipped} skipped, {_clock(spent)}", file=out, flush=True)
    return len(todo), skipped, failed
