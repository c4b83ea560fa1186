"""Benchmark runs through tools/sweep: the script's deck, rank counts, repeats, overrides
and threads per rank become a sweep file (OUT/bench.toml), the sweep runs it here, and
each run's summary is read back. OUT is kept when given (a second call then reuses the
finished runs, as any local sweep does), else a temporary directory removed afterwards."""
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pwcli
from pwbench import MPI_ENV
from pwsweep import check

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# Unbound by default: Open MPI binds each of 1-2 ranks to one core, which would stack a
# rank's threads there.
MPIRUN = "mpirun --oversubscribe --bind-to none -np {ranks}"
# Each rank on `threads` cores of its own, its threads one per core: what a dedicated
# node gets from its batch system. Callers keep ranks x threads within the cores (MPI_ENV
# still lets mpirun oversubscribe). Unbound ranks with OMP_PROC_BIND=close (or true,
# spread) would all pin their first thread to core 0.
MPIRUN_BOUND = "mpirun -np {ranks} --map-by slot:PE={threads} --bind-to core"
BOUND_ENV = dict(OMP_PROC_BIND="close", OMP_PLACES="cores")


def cores(physical):
    """The CPUs this process may run on; with `physical`, the distinct cores among them
    (what --bind-to core and OMP_PLACES=cores count on a machine with SMT)."""
    cpus = os.sched_getaffinity(0)
    if not physical:
        return len(cpus)
    ids = set()
    for c in cpus:
        topology = f"/sys/devices/system/cpu/cpu{c}/topology/"
        try:
            with open(topology + "physical_package_id") as f, \
                    open(topology + "core_id") as g:
                ids.add((f.read().strip(), g.read().strip()))
        except OSError:
            return len(cpus)
    return len(ids)


def write_sweep_file(path, exe, deck, ranks, repeats, overrides, threads=1,
                     mpirun=MPIRUN):
    with open(path, "w") as f:
        f.write(f"decks = [{json.dumps(os.path.abspath(deck))}]\n"
                f"ranks = {json.dumps(list(ranks))}\nrepeats = {int(repeats)}\n"
                f"set = {json.dumps(list(overrides))}\n"
                f"[launcher]\nexecutable = {json.dumps(os.path.abspath(exe))}\n"
                f"threads = {int(threads)}\n"
                f"[launcher.local]\nmpirun = {json.dumps(mpirun)}\n")


# Keys the sweep sets on every run: each run's directory and prefix.
SWEEP_KEYS = {"output.dir": "the sweep (each run writes in a directory of its own)",
              "output.prefix": "the sweep (its runs' summaries are run_summary.json)"}


def check_overrides(overrides, own):
    """Failure unless every override is "key=value", none is given twice and none is a
    key the tool sets itself (`own`: key -> what sets it, SWEEP_KEYS included)."""
    seen = {}
    for o in overrides:
        key, eq, _ = o.partition("=")
        key = key.strip()
        if not eq or not key:
            raise pwcli.Failure(f"argument {o!r}: expected a deck override key=value "
                                "(e.g. amr.max_level=1)")
        if key in own:
            raise pwcli.Failure(f"argument {o!r}: {key} is set by {own[key]}; "
                                "it cannot be overridden here")
        if key in seen:
            raise pwcli.Failure(f"arguments {seen[key]!r} and {o!r}: {key} is given "
                                "twice; keep one of them")
        seen[key] = o


def check_deck(exe, deck, overrides, ranks):
    """Failure unless `exe --check --ranks N deck overrides` passes for every rank count
    N of `ranks` (patchwork's own message), as tools/sweep checks its runs."""
    try:
        line, _ = check.check_one(exe, deck, overrides, ranks)
    except check.CheckError as e:
        raise pwcli.Failure(str(e)) from None
    if line is not None:
        raise pwcli.Failure(f"the deck and overrides fail patchwork --check, no run "
                            f"started: {line}")


@contextlib.contextmanager
def output_dir(out, prefix, option="--out"):
    """`out` (created), or a temporary directory removed on the way out."""
    if out:
        if os.path.exists(out) and not os.path.isdir(out):
            raise pwcli.Failure(f"{option} {out}: not a directory (expected a directory "
                                "for the sweep's runs, or a new path to create)")
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as e:
            raise pwcli.Failure(f"{option} {out}: cannot create the directory: "
                                f"{e.strerror or e}") from None
        yield os.path.abspath(out)
        return
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_sweep(out, exe, deck, ranks, repeats, overrides, threads=1, bind=False):
    """Run the matrix with tools/sweep (its progress on stderr), each run with `threads`
    OpenMP threads per rank (`bind`: ranks and threads pinned to cores, MPIRUN_BOUND),
    and gather its table; returns {ranks: [(run directory, summary dict)]} in the sweep's
    order. Exits with the runs' errors when one failed. Called again on the same `out`
    with more repeats, it runs only the new ones."""
    path = os.path.join(out, "bench.toml")
    write_sweep_file(path, exe, deck, ranks, repeats, overrides, threads,
                     MPIRUN_BOUND if bind else MPIRUN)
    env = dict(os.environ, **MPI_ENV, **(BOUND_ENV if bind else {}))
    sweep = [sys.executable, os.path.join(TOOLS, "sweep")]
    sys.stdout.flush()
    # The sweep's progress as it comes, without its hint to collect: done below.
    refused = []
    with subprocess.Popen(sweep + [path, "--out", out], env=env, stderr=subprocess.PIPE,
                          text=True) as proc:
        for line in proc.stderr:
            if line.startswith("sweep: error: "):  # said below, once
                refused.append(line[len("sweep: error: "):].strip())
            elif not line.startswith("sweep: gather the results with:"):
                print(line, end="", file=sys.stderr, flush=True)
    code = proc.returncode
    if code == pwcli.BAD_INPUT and refused:  # the sweep refused its input: no run went
        raise pwcli.Failure(f"tools/sweep refused the runs: {refused[0]}")
    try:
        with open(os.path.join(out, "sweep.json")) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        sys.exit("benchmark: the sweep did not start (see above)")
    runs, errors = {}, []
    for r in manifest["runs"]:
        try:
            with open(r["summary"]) as f:
                s = json.load(f)
        except (OSError, ValueError):
            s = {"status": "missing", "error": "no summary; log: " +
                 os.path.join(os.path.dirname(r["summary"]), "log.txt")}
        if s.get("status") != "ok":
            errors.append(f"{r['run_id']}: {s.get('error')}")
        runs.setdefault(r["ranks"], []).append((os.path.dirname(r["summary"]), s))
    if code != 0 or errors:
        sys.exit("benchmark: runs failed:\n  " + "\n  ".join(errors or ["see above"]))
    subprocess.run(sweep + ["collect", out], env=env, check=True)
    return runs


def figures(summary):
    """(cell-updates/s, wall seconds of the slowest rank, {phase: seconds on the slowest
    rank}, fingerprint), what pwbench.run_once reads from a log."""
    return (summary["cell_updates_per_second"], summary["wall_seconds"]["max"],
            {name: spread["max"] for name, spread in summary["phases"].items()},
            summary["fingerprint"])
