"""Shared by the benchmark scripts (tools/bench_*): run the patchwork executable under
mpirun and read the figures its summary prints."""
import os
import re
import statistics
import subprocess

MPI_ENV = dict(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")


def run_once(exe, deck, ranks, overrides):
    """One run: (cell-updates/s, wall seconds, {phase: seconds}, fingerprint, coarse
    steps)."""
    cmd = ["mpirun", "-np", str(ranks), exe, deck] + list(overrides)
    out = subprocess.run(cmd, env=dict(os.environ, **MPI_ENV), check=True,
                         capture_output=True, text=True).stdout
    rate = float(re.search(r"^cell-updates/s: (\S+)", out, re.M).group(1))
    phases = {m.group(1).strip(): float(m.group(2))
              for m in re.finditer(r"^  phase (.+?)\s+([\d.]+) s$", out, re.M)}
    wall = float(re.search(r"^wall time: ([\d.]+) s", out, re.M).group(1))
    finger = re.search(r"^fingerprint: (\S+)", out, re.M).group(1)
    steps = int(re.search(r"^run summary: (\d+) steps", out, re.M).group(1))
    return rate, wall, phases, finger, steps


def count_launches(exe, deck, overrides):
    """The `kernel launches: ...` line of one run on 1 rank and 1 OpenMP thread with
    --count-launches, apart from the timed runs (its callbacks would be timed with them),
    writing nothing."""
    kept = [o for o in overrides if o.partition("=")[0].strip() != "output.write"]
    cmd = ["mpirun", "-np", "1", exe, deck] + kept + ["output.write=false",
                                                       "--count-launches"]
    env = dict(os.environ, **MPI_ENV, OMP_NUM_THREADS="1")
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return re.search(r"^kernel launches: .*$", out, re.M).group(0)


def report(runs, label, reference=None, reference_name="the reference", steps=None):
    """Print the medians of `runs` (run_once results) on one line and the median time
    per phase below it (and per coarse step, given the runs' coarse `steps`); returns
    the set of fingerprints seen."""
    rate = statistics.median(r[0] for r in runs)
    wall = statistics.median(r[1] for r in runs)
    vs = f" ({rate / reference:.2f}x {reference_name} {reference / 1e6:.1f} M)" if reference else ""
    print(f"{label}: cell-updates/s {rate / 1e6:.2f} M{vs}, wall {wall:.2f} s, "
          f"all runs: {', '.join(f'{r[0] / 1e6:.2f}' for r in runs)} M")
    width = max([12] + [len(name) for name in runs[0][2]])
    for name in sorted(runs[0][2]):
        seconds = statistics.median(r[2][name] for r in runs)
        per_step = f"  {1e3 * seconds / steps:8.1f} ms per coarse step" if steps else ""
        print(f"    {name:<{width}} {seconds:8.3f} s  {100 * seconds / wall:5.1f}%{per_step}")
    return {r[3] for r in runs}
