"""Every distinct (deck, overrides) of a sweep checked with `patchwork --check` before any
run starts or any job script is written: the executable reads the deck, the overrides and
any restart file exactly as a run would, in one process (about 0.3 s, no mpirun), and
stops. A misspelt key or a bad value is then one error naming the run, not a sweep of
failed runs.

The check runs at 1 rank. What depends on the rank count (ranks.slow, ranks.speed and
ranks.groups against the run's ranks; on a batch launcher, the memory per node) is left to
the runs: when the check at 1 rank stops on such a key and the runs have more ranks, the
key is given a value valid at 1 rank and the check goes on, so that the rest of the deck
is still checked. tools/bench_advection and tools/bench_dump use the same check."""
import concurrent.futures
import os
import re
import subprocess
import tempfile
import threading

# (pattern of patchwork's message at 1 rank, the key, its value for a check at 1 rank):
# errors that only say the run's rank count is not 1.
RANK_DEPENDENT = [
    (re.compile(r"\branks\.slow: expected ranks in \[0, 1\)"), "ranks.slow", "[0]"),
    (re.compile(r"\branks\.speed: expected one entry per rank \(1 ranks"), "ranks.speed",
     "[1.0]"),
    (re.compile(r"\branks\.groups: expected one entry per rank \(1 ranks"), "ranks.groups",
     "[0]"),
]
# The memory budget of level 0 per node: on a batch launcher the nodes are not this
# machine, and their ranks per node differ.
MEMORY = (re.compile(r"set ranks\.memory_per_node or --max-memory to change"),
          "ranks.memory_per_node", '"1000000000000000000"')
TIMEOUT = 600  # seconds; a restart file is read in full
WORKERS = 8    # checks at once: each is mostly start-up (MPI, Kokkos), little CPU


class CheckError(Exception):
    """The check could not run, or the deck and overrides fail it: one line."""


def _key(override):
    return override.split("=", 1)[0].strip()


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


def run_check(exe, deck, overrides):
    """None when `exe --check deck overrides` passes, else patchwork's error line.
    CheckError when the executable cannot be run or does not know --check."""
    cmd = [exe, "--check", deck] + list(overrides)
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


def check_one(exe, deck, overrides, ranks, same_machine=True):
    """Check one configuration run at the rank counts `ranks`. Returns (error line or
    None, the keys left to the runs). `same_machine`: the runs go on this machine (the
    local launcher), so its memory per node is theirs."""
    ranks = set(ranks)
    o = list(overrides)
    left = []
    rules = RANK_DEPENDENT if 1 not in ranks else []
    rules = rules + ([] if same_machine else [MEMORY])
    while True:
        line = run_check(exe, deck, o)
        if line is None:
            return None, left
        rule = next((r for r in rules if r[0].search(line) and r[1] not in left), None)
        if rule is None:
            return line, left
        _, key, value = rule
        left.append(key)
        o = [x for x in o if _key(x) != key] + [f"{key}={value}"]


def check_all(exe, configs, same_machine=True, workers=WORKERS):
    """Check `configs`, a list of (deck, overrides, rank counts), a few at a time.
    Returns (index of the first failing one or None, its error line, keys left to the
    runs). Stops at the first failure, in the list's order."""
    if not configs:
        return None, None, []
    left = []
    with concurrent.futures.ThreadPoolExecutor(min(workers, len(configs))) as pool:
        futures = [pool.submit(check_one, exe, d, o, r, same_machine)
                   for d, o, r in configs]
        try:
            for i, f in enumerate(futures):
                line, keys = f.result()
                if line is not None:
                    return i, line, left
                left += [k for k in keys if k not in left]
        finally:
            for f in futures:
                f.cancel()
    return None, None, left
