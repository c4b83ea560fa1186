"""Every distinct (deck, overrides, rank count) of a sweep checked with `patchwork --check
--ranks N` before any run starts or any job script is written: the executable reads the
deck, the overrides and any restart file exactly as a run on N ranks would, in one process
(about 0.3 s, no mpirun), and stops. A misspelt key or a bad value is then one error
naming the run, not a sweep of failed runs. The memory per node depends on the nodes the
runs get: it is left to the runs. tools/bench_advection and tools/bench_dump use the same
check."""
import concurrent.futures
import os
import re
import subprocess
import tempfile
import threading

TIMEOUT = 600  # seconds; a restart file is read in full
WORKERS = 8    # checks at once: each is mostly start-up (MPI, Kokkos), little CPU


class CheckError(Exception):
    """The check could not run, or the deck and overrides fail it: one line."""


_serial = threading.Lock()


def _run(cmd):
    """`cmd` as a lone MPI process (a singleton) with its own session directory: Open
    MPI's singletons started at once may otherwise race to create the same one."""
    base = os.environ.get("OMPI_MCA_orte_tmpdir_base") or None
    if base and not os.path.isdir(base):
        base = None
    with tempfile.TemporaryDirectory(prefix="pwcheck_", dir=base) as tmp:
        # One thread: the check reads the deck, it computes nothing.
        env = dict(os.environ, OMP_NUM_THREADS="1", KOKKOS_NUM_THREADS="1",
                   OMPI_MCA_orte_tmpdir_base=tmp)
        return subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              timeout=TIMEOUT, env=env, stdin=subprocess.DEVNULL)


def run_check(exe, deck, overrides, ranks):
    """None when `exe --check --ranks ranks deck overrides` passes, else patchwork's error
    line. CheckError when the executable cannot be run or does not know --check."""
    cmd = [exe, "--check", "--ranks", str(ranks), deck] + list(overrides)
    try:
        p = _run(cmd)
        if p.returncode not in (0, 2):  # MPI did not start, say: once more, alone
            with _serial:
                p = _run(cmd)
    except subprocess.TimeoutExpired:
        raise CheckError(f"{exe} --check {deck}: no answer within {TIMEOUT} s") from None
    except OSError as e:
        raise CheckError(f"{exe}: cannot run it to check the decks: "
                         f"{e.strerror or e}") from None
    if p.returncode == 0:
        return None
    lines = [x.strip() for x in p.stderr.splitlines() if x.strip()]
    errors = [x for x in lines if x.startswith("patchwork: ")]
    # Else the first line that says something (not an MPI banner's rule of dashes).
    said = [x for x in lines if re.search(r"[A-Za-z]", x)]
    line = (errors or said or [f"no message (exit code {p.returncode})"])[0]
    if p.returncode != 2 or not line.startswith("patchwork: error: "):
        raise CheckError(f"{exe} --check {deck} failed (exit code {p.returncode}): {line}")
    if "--check" in line and 'argument "' not in line:  # CLI11: not expected: --check
        raise CheckError(f"{exe} does not know --check (built before it had it? rebuild "
                         f"it): {line}")
    return line


def check_one(exe, deck, overrides, ranks):
    """Check one configuration for each of the rank counts `ranks`, fewest first: its
    first error line and that rank count, or (None, None)."""
    for n in sorted(set(ranks)):
        line = run_check(exe, deck, overrides, n)
        if line is not None:
            return line, n
    return None, None


def check_all(exe, configs, workers=WORKERS):
    """Check `configs`, a list of (deck, overrides, rank counts), a few at a time.
    Returns (index of the first failing one, its error line, the rank count it failed
    for), or (None, None, None). Stops at the first failure, in the list's order."""
    if not configs:
        return None, None, None
    with concurrent.futures.ThreadPoolExecutor(min(workers, len(configs))) as pool:
        futures = [pool.submit(check_one, exe, d, o, r) for d, o, r in configs]
        try:
            for i, f in enumerate(futures):
                line, n = f.result()
                if line is not None:
                    return i, line, n
        finally:
            for f in futures:
                f.cancel()
    return None, None, None
