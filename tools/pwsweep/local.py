"""The local launcher: the runs one after another on this machine, with a progress line
(runs done / left, ETA); runs whose summary exists are skipped, so a sweep resumes (after
check_resume: only when the summary is of the run's own configuration)."""
import json
import os
import subprocess
import sys
import time

from .collect import _log_error
from .spec import OWN_KEYS, SweepError, override_key


def read_summary(run):
    """The run's summary (a dict), or None when it has none or none that is a summary's
    JSON object (such a run is run again, overwriting it)."""
    try:
        with open(run.summary) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return None
    return s if isinstance(s, dict) else None


def status(run):
    """The status its summary reports ("ok", "error"), or None when it has none."""
    s = read_summary(run)
    return s.get("status") if s else None


def _settings(overrides):
    """{key: value} of the overrides but the sweep's own (output.dir moves with OUT)."""
    return {override_key(o): o.split("=", 1)[1].strip() for o in overrides
            if override_key(o) not in OWN_KEYS}


def _same_file(a, b):
    """Whether paths a and b name one file (a symlink, a bind mount or a moved tree may
    spell it otherwise); by their text when either is gone."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normpath(a) == os.path.normpath(b)


def _difference(run, recorded):
    """What differs between the run as planned and its summary's deck and overrides
    (deck.file, deck.overrides: what the run was given), or None."""
    deck = recorded.get("file")
    if isinstance(deck, str) and not _same_file(deck, run.deck):
        return f"it ran deck {deck}, this sweep gives {run.deck}"
    given = recorded.get("overrides")
    if not isinstance(given, list) or not all(isinstance(o, str) for o in given):
        return None  # a summary that does not say: nothing to compare
    was, now = _settings(given), _settings(run.overrides)
    for k in list(now) + [k for k in was if k not in now]:
        if k not in was:
            return f"it ran without {k}, this sweep gives {k}={now[k]}"
        if k not in now:
            return f"it ran with {k}={was[k]}, this sweep does not give {k}"
        if was[k] != now[k]:
            return f"it ran with {k}={was[k]}, this sweep gives {k}={now[k]}"
    return None


def check_resume(sweep):
    """SweepError when a run that has a summary (and would be skipped) ran another
    configuration than the sweep's: its run id (deck, ranks, axes, repeat) does not
    carry the fixed overrides, so a sweep file edited since would mix old results in."""
    for run in sweep.runs:
        s = read_summary(run)
        deck = s.get("deck") if s else None
        why = _difference(run, deck) if isinstance(deck, dict) else None
        if why:
            raise SweepError(f"{sweep.path}: run {run.run_id} already has a summary in "
                             f"{sweep.out} of another configuration ({why}); choose "
                             "another --out, or remove that directory to run the sweep "
                             "anew")


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
    """Run what is left of the sweep. Returns (ran, skipped, failed) counts; skipped
    runs whose summary reports an error count as failed (unless `retry_failed` runs
    them again)."""
    env = run_env(sweep.launcher)
    todo = [r for r in sweep.runs if not finished(r, retry_failed)]
    skipped = len(sweep.runs) - len(todo)
    errors = 0 if retry_failed else sum(status(r) == "error" for r in sweep.runs)
    if skipped:
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
            why = _log_error(run.log, code)
            print(f"sweep: {run.run_id} failed (exit code {code})"
                  + (f": {why}" if why else "") + f"; log: {run.log}", file=out, flush=True)
    print(f"[{len(sweep.runs)}/{len(sweep.runs)} done, 0 left] {len(todo)} ran "
          f"({failed} failed), {skipped} skipped"
          + (f" ({errors} reporting an error)" if errors else "")
          + f", {_clock(spent)}", file=out, flush=True)
    return len(todo), skipped, failed + errors
