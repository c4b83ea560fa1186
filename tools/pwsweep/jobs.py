"""Batch job scripts for slurm (sbatch), PBS (qsub) and Flux (flux batch): one script per
rank count, whose runs go one after another (or, with launcher.array, one array task per
run). Every run is one line `run ID COMMAND...` carrying the exact command line (as
`tools/sweep --dry-run` lists it); `run` skips a run whose summary exists and sends the
run's output to its log, so a resubmitted job resumes the sweep."""
import math
import os
import re
import shlex

from .spec import SUMMARY_PREFIX


def hms(seconds):
    h, rem = divmod(int(seconds), 3600)
    return f"{h:02d}:{rem // 60:02d}:{rem % 60:02d}"


def job_time(launcher, nruns):
    """Seconds the job asks for: launcher.time per run, all runs one after another unless
    it is an array (one run per task)."""
    return launcher.time * (1 if launcher.array else nruns)


def pbs_select(la, ranks):
    """PBS's chunks for `ranks` ranks: full nodes, then one chunk of what is left (48
    ranks at 32 a node: 1:...:mpiprocs=32+1:...:mpiprocs=16, not two of 32)."""
    per_node = la.tasks_per_node if la.tasks_per_node > 0 else ranks
    full, rest = divmod(ranks, per_node)
    chunk = lambda n, count: (f"{count}:ncpus={n * la.threads}:mpiprocs={n}"
                              f":ompthreads={la.threads}")
    parts = ([chunk(per_node, full)] if full else []) + ([chunk(rest, 1)] if rest else [])
    return "+".join(parts)


def directives(kind, launcher, name, ranks, nruns):
    """The scheduler directive lines of a job running `nruns` runs of `ranks` ranks."""
    la = launcher
    nodes = la.nodes(ranks)
    t = job_time(la, nruns)
    if kind == "slurm":
        d = [f"--job-name={name}", f"--nodes={nodes}", f"--ntasks={ranks}",
             f"--cpus-per-task={la.threads}", f"--time={hms(t)}",
             "--output=" + ("%x_%A_%a.out" if la.array else "%x_%j.out")]
        if la.tasks_per_node > 0:
            d.insert(3, f"--ntasks-per-node={min(ranks, la.tasks_per_node)}")
        if la.account:
            d.append(f"--account={la.account}")
        if la.partition:
            d.append(f"--partition={la.partition}")
        if la.array:
            d.append(f"--array=0-{nruns - 1}")
        return ["#SBATCH " + x for x in d + la.directives]
    if kind == "pbs":
        d = [f"-N {name}", "-l select=" + pbs_select(la, ranks),
             f"-l walltime={hms(t)}", "-j oe"]
        if la.account:
            d.append(f"-A {la.account}")
        if la.partition:
            d.append(f"-q {la.partition}")
        if la.array:
            d.append(f"-J 0-{nruns - 1}")
        return ["#PBS " + x for x in d + la.directives]
    if kind == "flux":
        d = [f"--job-name={name}", f"-N {nodes}", f"-n {ranks}", f"-c {la.threads}",
             f"-t {math.ceil(t / 60)}m", "--output=" + name + "_{{id}}.out"]
        if la.partition:
            d.append(f"--queue={la.partition}")
        if la.account:
            d.append(f"--bank={la.account}")
        return ["#flux: " + x for x in d + la.directives]
    raise ValueError(kind)


RUN_FUNCTION = f"""\
# run ID COMMAND...: skipped when the run's summary exists; output to its log.
run() {{
  local dir="$RUNS/$1"
  shift
  if [ -e "$dir/{SUMMARY_PREFIX}_summary.json" ]; then echo "skip $dir"; return 0; fi
  mkdir -p "$dir"
  "$@" >"$dir/log.txt" 2>&1 || echo "failed (exit code $?): $dir"
}}
"""

ARRAY_INDEX = {"slurm": "SLURM_ARRAY_TASK_ID", "pbs": "PBS_ARRAY_INDEX"}


def run_line(run):
    return "run " + shlex.quote(run.run_id) + " " + shlex.join(run.command)


def script(sweep, ranks, runs):
    kind, la = sweep.launcher.kind, sweep.launcher
    name = f"{sweep.name}_np{ranks}"
    lines = ["#!/bin/bash"] + directives(kind, la, name, ranks, len(runs))
    lines += ["", f"# {len(runs)} run(s) of sweep {sweep.path} at {ranks} rank(s); "
              f"{la.time} s each.", "set -u"]
    lines += la.setup
    lines += [f"export OMP_NUM_THREADS={la.threads}  # = cpus per task: Kokkos's threads",
              f"export KOKKOS_NUM_THREADS={la.threads}  # the same, for a Threads Kokkos",
              "export OMP_PROC_BIND=spread OMP_PLACES=threads",
              "RUNS=" + shlex.quote(os.path.join(sweep.out, "runs")), "", RUN_FUNCTION]
    if la.array:
        lines.append(f'case "${ARRAY_INDEX[kind]}" in')
        for i, r in enumerate(runs):
            lines.append(f"  {i}) {run_line(r)} ;;")
        lines += ['  *) echo "no run for array index ${' + ARRAY_INDEX[kind] + '}"; exit 1 ;;',
                  "esac"]
    else:
        lines += [run_line(r) for r in runs]
    return "\n".join(lines) + "\n"


def is_own_script(path, name):
    """Whether `path` is a job script this tool wrote for sweep `name` (NAME_npRANKS.EXT,
    a regular file with the header line script() writes): nothing else in OUT/jobs, a
    folder the user may share, is ever removed."""
    if not re.fullmatch(re.escape(name) + r"_np\d+\.(sbatch|pbs|flux)",
                        os.path.basename(path)) or not os.path.isfile(path):
        return False
    try:
        with open(path, errors="replace") as f:
            head = f.read(4096)
    except OSError:
        return False
    return (re.search(r"^# \d+ run\(s\) of sweep ", head, re.M) is not None
            and "run() {" in head)


def write_scripts(sweep):
    """Write one job script per rank count into OUT/jobs; returns their paths and those of
    the job scripts an earlier sweep left there, now removed (a loop over OUT/jobs/*
    would submit them too)."""
    jobs = os.path.join(sweep.out, "jobs")
    os.makedirs(jobs, exist_ok=True)
    ext = {"slurm": "sbatch", "pbs": "pbs", "flux": "flux"}[sweep.launcher.kind]
    keep = {f"{sweep.name}_np{r.ranks}.{ext}" for r in sweep.runs}
    removed = []
    for f in sorted(os.listdir(jobs)):
        path = os.path.join(jobs, f)
        if f not in keep and is_own_script(path, sweep.name):
            os.remove(path)
            removed.append(path)
    paths = []
    for ranks in sorted({r.ranks for r in sweep.runs}):
        runs = [r for r in sweep.runs if r.ranks == ranks]
        path = os.path.join(jobs, f"{sweep.name}_np{ranks}.{ext}")
        with open(path, "w") as f:
            f.write(script(sweep, ranks, runs))
        os.chmod(path, 0o755)
        paths.append(path)
    return paths, removed


SUBMIT = {"slurm": "sbatch", "pbs": "qsub", "flux": "flux batch"}
