#!/usr/bin/env python3
"""tools/sweep and the run summary, end to end on tiny runs (a 2D bubble of a few steps).
Usage:

  test_sweep.py CHECK TOOLS_DIR PATCHWORK WORK_DIR

CHECK:
  local       a 2x2 local sweep (knapsack, lan x 1, 2 ranks) leaves one summary per run,
              and --dry-run lists the commands it ran (sweep.json)
  collect     (after local) one CSV row per run with its axes and its summary's figures,
              and one median row per configuration
  schema      (after local, failed) every summary validates against
              tools/run_summary.schema.json, which rejects broken ones; the summary
              agrees with the log's fingerprint and cell-update lines; its code_version
              carries the git revision when the sources are a git checkout
  failed      runs that fail on the memory per node (left to the runs by the check)
              are rows with their error, and a second sweep that skips them exits with 1
              too; a deck broken after the check is a row with the log's error, not
              missing
  resume      a second sweep skips the finished runs and redoes only a deleted one; a
              sweep whose overrides changed since is refused (exit code 2), not given
              the old runs' results, as are its job scripts
  moved       collect on a sweep moved or copied elsewhere reads each run once, from
              where it now is; summaries or a sweep.json that are JSON but not an object
              are "unreadable" rows or a one-line error, and a local sweep redoes them
  killed      a run killed mid-way leaves no summary; in a sweep, its error is MPI's line
              on the signal, not a banner's dashes or the last progress line
  jobs        slurm, pbs and flux scripts: bash -n clean, directives as the sweep file
              asks, run lines equal to --dry-run's; the submit and collect lines printed
              are shell-quoted (an --out with a space)
  weak        --weak keeps cells per rank fixed
  threads     launcher.threads reaches a local run as OMP_NUM_THREADS (a host-threaded
              Kokkos then runs that many threads), whatever the caller's environment
  variants    an axis of named override sets puts each set on its runs' command lines;
              --ranks replaces the file's rank counts
  examples    every sweep file in inputs/sweeps lists its runs and writes job scripts
              that pass bash -n; app_balancers_3d.toml gives each balancer the overrides
              tools/bench_app_balancers gives it
  bad_args    mistakes give one line "sweep: error: ...", no traceback, and exit code 2:
              bad keys and values (through patchwork --check), job times, the sweep's
              own output keys, a key given twice, collect on an empty directory
  checks      the decks are checked with the sweep's executable, once per distinct
              configuration and rank count, before any run or job script
  plots       (after local) tools/plot_sweep draws every figure (PNG, PDF) and the
              plotted points are the table's values
  seed_plots  two tiny sweeps at 2 ranks (lan / lan_distributed under emulated latency
              and slowdown; sfc / a Zoltan balancer at two patch counts): the figures of
              seeds 001 and 004 plot their tables' values
"""
import csv
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

from code_version import check_code_version  # beside this file

SKIP = 77


def sweep(tools, args, expect=0):
    p = subprocess.run([sys.executable, os.path.join(tools, "sweep")] + args,
                       capture_output=True, text=True, env=ENV)
    print(f"$ sweep {' '.join(args)}\n{p.stdout}{p.stderr}", end="")
    assert p.returncode == expect, f"sweep exited with {p.returncode}, expected {expect}"
    return p


def write_sweep(path, exe, ranks, methods, sets, repeats=1, extra=""):
    """A sweep file of the 2D bubble (DECK) with `sets` fixed and the balancers an axis."""
    with open(path, "w") as f:
        f.write(f"decks = [{json.dumps(DECK)}]\nranks = {ranks}\nrepeats = {repeats}\n"
                f"set = {json.dumps(sets)}\n[axes]\n\"balance.method\" = {json.dumps(methods)}\n"
                f"[launcher]\nexecutable = {json.dumps(exe)}\n{extra}\n"
                "[launcher.local]\nmpirun = \"mpirun --oversubscribe -np {ranks}\"\n")


TINY = ["time.max_step=3", "output.write=false", "domain.n_cell=[32,32]", "amr.max_level=1"]
DECK = ""  # inputs/bubble_2d.toml, set by main()
ENV = None  # the environment, with PATCHWORK_BUILD the executable's build (main())


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summaries(out):
    return sorted(glob.glob(os.path.join(out, "runs", "*", "run_summary.json")))


def check_local(tools, exe, work):
    write_sweep(os.path.join(work, "local.toml"), exe, [1, 2], ["knapsack", "lan"], TINY)
    out = os.path.join(work, "local")
    shutil.rmtree(out, ignore_errors=True)
    p = sweep(tools, [os.path.join(work, "local.toml"), "--out", out])
    assert "[4/4 done, 0 left] 4 ran (0 failed), 0 skipped" in p.stderr
    assert len(summaries(out)) == 4, summaries(out)
    dry = sweep(tools, [os.path.join(work, "local.toml"), "--out", out, "--dry-run"])
    listed = dict(x.split(": ", 1) for x in dry.stdout.splitlines())
    with open(os.path.join(out, "sweep.json")) as f:
        manifest = json.load(f)
    assert len(listed) == 4 == len(manifest["runs"])
    for r in manifest["runs"]:
        assert shlex.split(listed[r["run_id"]]) == r["command"], r["run_id"]
        assert os.path.isfile(r["summary"]), r["summary"]


def check_collect(tools, exe, work):
    out = os.path.join(work, "local")
    sweep(tools, ["collect", out, "-o", os.path.join(work, "runs.csv"),
                  "--medians", os.path.join(work, "medians.csv")])
    rows = read_csv(os.path.join(work, "runs.csv"))
    assert len(rows) == 4, rows
    for col in ["run_id", "deck", "ranks", "balance.method", "repeat", "status", "error",
                "imbalance", "std", "idle_pct", "est_balance_pct", "uintah_i", "wall_s",
                "cell_updates", "cell_updates_per_s", "bytes_migrated", "cut_cells",
                "fingerprint", "phase_advance_s", "patches", "plan_ms", "groups",
                "latency_s", "slowdown", "peak_resident_mb"]:
        assert col in rows[0], f"no column {col}"
    assert sorted((r["balance.method"], r["ranks"]) for r in rows) == [
        ("knapsack", "1"), ("knapsack", "2"), ("lan", "1"), ("lan", "2")]
    for r in rows:
        with open(r["summary"]) as f:
            s = json.load(f)
        assert r["status"] == "ok" and r["error"] == ""
        assert r["balancer"] == r["balance.method"] == s["balance"]["method"]
        assert int(r["ranks"]) == s["ranks"]["count"]
        assert float(r["imbalance"]) == s["balance"]["mean"]["imbalance_ratio"]
        assert float(r["idle_pct"]) == 100 * s["balance"]["mean"]["idle_procs"]
        assert int(r["cell_updates"]) == s["cell_updates"]
        assert float(r["wall_s"]) == s["wall_seconds"]["max"]
        assert r["fingerprint"] == s["fingerprint"]
        assert float(r["peak_resident_mb"]) == s["host_memory"]["peak_resident_bytes"]["max"] / 1e6
        steps = s["balance"]["steps"]
        assert float(r["patches"]) == sum(x["patches"] for x in steps) / len(steps)
        assert float(r["plan_ms"]) == sum(1e3 * x["balancer_seconds"] for x in steps) / len(
            steps)
        # no [ranks] section: one group, nothing emulated (the deck's defaults, as used)
        assert (r["groups"], float(r["latency_s"]), float(r["slowdown"])) == ("1", 0, 1)
        assert s["deck"]["used"]["ranks.latency"] == 0
    # Balancers never change the answer: one fingerprint for the whole sweep.
    assert len({r["fingerprint"] for r in rows}) == 1
    med = read_csv(os.path.join(work, "medians.csv"))
    assert len(med) == 4 and all(m["runs"] == "1" and m["failed"] == "0" for m in med)
    for m in med:
        r = next(r for r in rows if (r["balance.method"], r["ranks"]) ==
                 (m["balance.method"], m["ranks"]))
        assert float(m["imbalance"]) == float(r["imbalance"])


def check_failed(tools, exe, work):
    # A node's memory too small for level 0 passes the sweep's check (the nodes are the
    # runs') but not a run: the runs fail with a summary.
    path = os.path.join(work, "failed.toml")
    write_sweep(path, exe, [2], ["knapsack"], TINY + ['ranks.memory_per_node="1kB"'],
                repeats=2)
    out = os.path.join(work, "failed")
    shutil.rmtree(out, ignore_errors=True)
    p = sweep(tools, [path, "--out", out], expect=1)
    assert "1 configuration checked (patchwork --check;" in p.stderr, p.stderr
    # each failure says why, not only where its log is
    assert re.search(r"failed \(exit code 2\): .*domain\.n_cell: level 0 .* more than "
                     r"the 1 kB of ranks\.memory_per_node.*; log: ", p.stderr), p.stderr
    # Run again, the failed runs are skipped (their summaries say error): still exit 1.
    p = sweep(tools, [path, "--out", out], expect=1)
    assert "0 ran (0 failed), 2 skipped (2 reporting an error)" in p.stderr, p.stderr
    # A deck that stops parsing after the sweep checked it (edited while its jobs wait):
    # no summary (no output.dir known), the log's error. The job script's run, by hand.
    broken = os.path.join(work, "broken.toml")
    shutil.copy(DECK, broken)
    bpath = os.path.join(work, "broken_sweep.toml")
    write_sweep(bpath, exe, [1], ["knapsack"], TINY)
    with open(bpath) as f:
        text = f.read().replace(json.dumps(DECK), json.dumps(broken), 1)
    with open(bpath, "w") as f:
        f.write(text)
    bout = os.path.join(out, "broken")
    sweep(tools, [bpath, "--out", bout, "--launcher", "slurm"])
    with open(broken, "w") as f:
        f.write("[domain\n")
    with open(os.path.join(bout, "sweep.json")) as f:
        [run] = json.load(f)["runs"]
    run_dir = os.path.dirname(run["summary"])
    os.makedirs(run_dir)
    with open(os.path.join(run_dir, "log.txt"), "w") as log:
        code = subprocess.run([exe, run["deck"]] + run["overrides"], stdout=log,
                              stderr=subprocess.STDOUT).returncode
    assert code == 2, code
    sweep(tools, ["collect", out])
    rows = read_csv(os.path.join(out, "sweep_runs.csv"))
    assert len(rows) == 3, rows
    bad = [r for r in rows if r["deck"] == "bubble_2d.toml"]
    assert len(bad) == 2 and all(r["status"] == "error" for r in bad), bad
    for r in bad:
        assert "of ranks.memory_per_node" in r["error"], r["error"]
    [b] = [r for r in rows if r["deck"] == "broken.toml"]
    assert b["status"] == "missing" and "broken.toml" in b["error"], b
    med = read_csv(os.path.join(out, "sweep_medians.csv"))
    [m] = [m for m in med if m["deck"] == "bubble_2d.toml"]
    assert m["runs"] == "0" and m["failed"] == "2" and "memory_per_node" in m["errors"], m


def check_schema(tools, exe, work):
    try:
        import jsonschema
    except ImportError:
        print("no jsonschema module (Debian: python3-jsonschema)")
        sys.exit(SKIP)
    with open(os.path.join(tools, "run_summary.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    files = summaries(os.path.join(work, "local")) + summaries(os.path.join(work, "failed"))
    statuses = []
    for path in files:
        with open(path) as f:
            s = json.load(f)
        errors = list(validator.iter_errors(s))
        assert not errors, f"{path}: {errors[0].message}"
        statuses.append(s["status"])
        if s["status"] == "ok":  # the file says what the log says
            with open(os.path.join(os.path.dirname(path), "log.txt")) as f:
                log = f.read()
            assert re.search(rf"^fingerprint: {s['fingerprint']}$", log, re.M), path
            assert re.search(rf"^cell updates: {s['cell_updates']}$", log, re.M), path
            memory = s["host_memory"]  # freed memory given back unless the deck asks
            assert memory["keep_freed"] is False, path
            assert "; freed memory: malloc's own settings" in log, path
            assert memory["peak_resident_bytes"]["min"] > 0, path
            assert len(s["ranks"]["hostnames"]) == s["ranks"]["count"]
            assert len(s["balance"]["steps"]) == s["balance"]["balancing_steps"] > 0
            assert s["deck"]["used"]["balance.method"] == s["balance"]["method"]
    assert statuses.count("ok") == 4 and statuses.count("error") == 2, statuses
    check_code_version(os.path.dirname(tools), {json.load(open(f))["code_version"] for f in files})
    # The schema has teeth: broken summaries fail it.
    with open(files[0]) as f:
        good = json.load(f)
    for name, broken in [("no fingerprint", {k: v for k, v in good.items()
                                              if k != "fingerprint"}),
                         ("ok with an error", {**good, "error": "x"}),
                         ("short fingerprint", {**good, "fingerprint": "abc"}),
                         ("empty revision", {**good, "code_version": "patchwork 0.1 (git )"}),
                         ("phase without max", {**good, "phases": {"advance": {"min": 0,
                                                                                "mean": 0}}})]:
        assert list(validator.iter_errors(broken)), f"schema accepts a summary with {name}"


def check_resume(tools, exe, work):
    path = os.path.join(work, "resume.toml")
    write_sweep(path, exe, [1], ["knapsack"], TINY, repeats=2)
    out = os.path.join(work, "resume")
    shutil.rmtree(out, ignore_errors=True)
    p = sweep(tools, [path, "--out", out])
    assert "2 ran (0 failed), 0 skipped" in p.stderr
    files = summaries(out)
    assert len(files) == 2
    stamps = {f: os.stat(f).st_mtime_ns for f in files}
    p = sweep(tools, [path, "--out", out])
    assert "0 ran (0 failed), 2 skipped" in p.stderr
    assert {f: os.stat(f).st_mtime_ns for f in files} == stamps
    os.remove(files[1])
    p = sweep(tools, [path, "--out", out])
    assert "1 ran (0 failed), 1 skipped" in p.stderr
    assert os.stat(files[0]).st_mtime_ns == stamps[files[0]] and os.path.isfile(files[1])
    stamps = {f: os.stat(f).st_mtime_ns for f in files}
    # The same --out with other overrides: refused before any run (the run ids hold no
    # fixed override), with the run and the difference; job scripts and --dry-run too.
    # The same configuration writes its job scripts (run skips what has a summary).
    sweep(tools, [path, "--out", out, "--launcher", "slurm"])
    changed = [x.replace("time.max_step=3", "time.max_step=2") for x in TINY]
    for sets, why in [(changed, "it ran with time.max_step=3, this sweep gives "
                       "time.max_step=2"),
                      (TINY + ["amr.regrid_interval=1"], "it ran without "
                       "amr.regrid_interval, this sweep gives amr.regrid_interval=1"),
                      (TINY[1:], "it ran with time.max_step=3, this sweep does not give "
                       "time.max_step")]:
        write_sweep(path, exe, [1], ["knapsack"], sets, repeats=2)
        for extra in ([], ["--dry-run"], ["--launcher", "slurm"]):
            p = sweep(tools, [path, "--out", out] + extra, expect=2)
            assert p.stderr.startswith("sweep: error: ") and len(
                p.stderr.splitlines()) == 1, p.stderr
            assert (f"run bubble_2d__np1__balance.method-knapsack__r0 already has a "
                    f"summary in {out} of another configuration ({why}); choose another "
                    "--out") in p.stderr, p.stderr
            assert not p.stdout
    assert {f: os.stat(f).st_mtime_ns for f in files} == stamps
    # The same deck through another path (a symlinked or moved source tree) is the same
    # configuration: it was refused as another deck.
    write_sweep(path, exe, [1], ["knapsack"], TINY, repeats=2)
    link = os.path.join(work, "decks_link")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.dirname(DECK), link)
    with open(path) as f:
        text = f.read().replace(json.dumps(DECK),
                                json.dumps(os.path.join(link, os.path.basename(DECK))))
    with open(path, "w") as f:
        f.write(text)
    p = sweep(tools, [path, "--out", out])
    assert "0 ran (0 failed), 2 skipped" in p.stderr, p.stderr


def check_killed(tools, exe, work):
    out = os.path.join(work, "killed")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    log = open(os.path.join(out, "log.txt"), "w+")
    proc = subprocess.Popen([exe, DECK, "time.max_step=100000", "output.write=false",
                             f"output.dir={json.dumps(out)}"], stdout=log,
                            stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline:
        log.seek(0)
        if re.search(r"^step +3 ", log.read(), re.M):
            break
        assert proc.poll() is None, "the run ended before it could be killed"
        time.sleep(0.05)
    else:
        proc.kill()
        raise AssertionError("no step line within 60 s")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left = os.listdir(out)
    print("left after the kill:", left)
    assert not any(x.endswith("_summary.json") for x in left), left
    # and a complete run of the same command writes one
    subprocess.run([exe, DECK, "time.max_step=2", "output.write=false",
                    f"output.dir={json.dumps(out)}"], check=True, capture_output=True)
    with open(os.path.join(out, "plt_summary.json")) as f:
        assert json.load(f)["status"] == "ok"
    # A sweep's run killed by a signal (after a progress line): its error is MPI's line
    # on the signal, not the banner's dashes after it nor the progress line.
    wrapper = os.path.join(work, "killed_patchwork.sh")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\n[ "$1" = --check ] && exec {shlex.quote(exe)} "$@"\n'
                'echo "step     1 time 0.01 dt 0.01"\nkill -9 $$\n')
    os.chmod(wrapper, 0o755)
    path = os.path.join(work, "killed.toml")
    write_sweep(path, wrapper, [1], ["knapsack"], TINY)
    sout = os.path.join(out, "sweep")
    p = sweep(tools, [path, "--out", sout], expect=1)
    # (At times mpirun sees the exit code 137 rather than the signal: then its banner has
    # no reason, and the code is given.)
    killed = (r"(mpirun noticed that process rank 0 .* exited on signal 9 \(Killed\)\.|"
              r"killed or interrupted \(exit code 137\))")
    assert re.search(r"failed \(exit code 137\): " + killed + "; log: ", p.stderr), p.stderr
    sweep(tools, ["collect", sout])
    [row] = read_csv(os.path.join(sout, "sweep_runs.csv"))
    assert row["status"] == "missing" and (
        re.fullmatch(killed, row["error"]) or row["error"] ==
        "no summary: killed or interrupted (its log gives no reason)"), row
    # No MPI line at all: said so, with the code, not the last progress line.
    import importlib
    sys.path.insert(0, tools)
    collect = importlib.import_module("pwsweep.collect")
    assert collect.error_line(["step     1 time 0.01", "-" * 20], 137) == (
        "killed or interrupted (exit code 137)")
    banner = ["-" * 20, "Primary job  terminated normally, but 1 process returned",
              "a non-zero exit code. Per user-direction, the job has been aborted.",
              "-" * 20, "mpirun detected that one or more processes exited with non-zero "
              "status, thus causing", "  Exit code:    137"]
    assert collect.error_line(banner, 137) == "killed or interrupted (exit code 137)"
    # A warning the run printed before it was killed is no reason.
    assert collect.error_line(["patchwork: warning: not converged", "mpirun noticed that "
                               "process rank 0 exited on signal 9 (Killed)."], 137) == (
        "mpirun noticed that process rank 0 exited on signal 9 (Killed).")
    assert collect.error_line(["step 1", "patchwork: error: x: y", "-" * 20], 2) == "x: y"


def check_moved(tools, exe, work):
    path = os.path.join(work, "moved.toml")
    write_sweep(path, exe, [1], ["knapsack"], TINY, repeats=2)
    out = os.path.join(work, "moved", "first")
    shutil.rmtree(os.path.dirname(out), ignore_errors=True)
    sweep(tools, [path, "--out", out])
    # Copied (rsync from a cluster), the original still there; then moved.
    copy = os.path.join(work, "moved", "copy of it")
    shutil.copytree(out, copy)
    for d in (copy, out):
        sweep(tools, ["collect", d])
        rows = read_csv(os.path.join(d, "sweep_runs.csv"))
        assert len(rows) == 2 and all(r["status"] == "ok" for r in rows), rows
        assert all(r["summary"].startswith(d + os.sep) for r in rows), rows
    moved = os.path.join(work, "moved", "moved")
    os.rename(out, moved)
    sweep(tools, ["collect", moved])
    rows = read_csv(os.path.join(moved, "sweep_runs.csv"))
    assert len(rows) == 2 and all(r["status"] == "ok" for r in rows), rows
    # A manifest of before (absolute paths only) still reads, its runs once.
    with open(os.path.join(moved, "sweep.json")) as f:
        m = json.load(f)
    for r in m["runs"]:
        del r["summary_in_out"]
    with open(os.path.join(moved, "sweep.json"), "w") as f:
        json.dump(m, f)
    sweep(tools, ["collect", moved])
    rows = read_csv(os.path.join(moved, "sweep_runs.csv"))
    assert len(rows) == 2 and all(r["summary"].startswith(moved) for r in rows), rows
    # JSON, but not an object: an unreadable row; a local sweep runs it again.
    [first, _] = summaries(moved)
    with open(first, "w") as f:
        f.write("[1]")
    sweep(tools, ["collect", moved])
    rows = {r["summary"]: r for r in read_csv(os.path.join(moved, "sweep_runs.csv"))}
    assert rows[first]["status"] == "unreadable", rows[first]
    assert rows[first]["error"] == f"{first}: a JSON list, expected an object", rows[first]
    p = sweep(tools, [path, "--out", moved])
    assert "1 ran (0 failed), 1 skipped" in p.stderr, p.stderr
    # ... a sweep.json that is a list: one line, exit code 2
    with open(os.path.join(moved, "sweep.json"), "w") as f:
        f.write("[1]")
    p = sweep(tools, ["collect", moved], expect=2)
    assert p.stderr.startswith("sweep: error: collect: ") and "sweep.json: not a " \
        "sweep's list of runs" in p.stderr and len(p.stderr.splitlines()) == 1, p.stderr


def directives(text, prefix):
    return [line[len(prefix):].strip() for line in text.splitlines()
            if line.startswith(prefix)]


def check_jobs(tools, exe, work):
    path = os.path.join(work, "jobs.toml")
    write_sweep(path, exe, [2, 8], ["knapsack", "lan"], TINY, repeats=2,
                extra='tasks_per_node = 4\nthreads = 3\ntime = "00:07:00"\naccount = "proj"')
    for kind in ["slurm", "pbs", "flux"]:
        for array in ([False, True] if kind != "flux" else [False]):
            out = os.path.join(work, "jobs", f"{kind}{'_array' if array else ''}")
            shutil.rmtree(out, ignore_errors=True)
            args = [path, "--out", out, "--launcher", kind]
            if array:
                with open(path) as f:
                    text = f.read().replace("[launcher]\n", "[launcher]\narray = true\n")
                apath = os.path.join(work, f"jobs_{kind}_array.toml")
                with open(apath, "w") as f:
                    f.write(text)
                args[0] = apath
            p = sweep(tools, args)
            dry = sweep(tools, args + ["--dry-run"]).stdout.splitlines()
            listed = {i: shlex.split(c) for i, c in (x.split(": ", 1) for x in dry)}
            scripts = sorted(glob.glob(os.path.join(out, "jobs", "*")))
            assert len(scripts) == 2 and len(p.stdout.splitlines()) == 2, scripts
            seen = {}
            for s in scripts:
                ranks = int(re.search(r"_np(\d+)\.", s).group(1))
                nodes = 1 if ranks <= 4 else 2
                subprocess.run(["bash", "-n", s], check=True)
                with open(s) as f:
                    text = f.read()
                nruns = 4  # 2 methods x 2 repeats per rank count
                minutes = 7 if array else 7 * nruns
                hms = f"{minutes // 60:02d}:{minutes % 60:02d}:00"
                if kind == "slurm":
                    d = directives(text, "#SBATCH")
                    want = [f"--nodes={nodes}", f"--ntasks={ranks}", "--cpus-per-task=3",
                            f"--ntasks-per-node={min(ranks, 4)}", f"--time={hms}",
                            "--account=proj"]
                    want += [f"--array=0-{nruns - 1}"] if array else []
                elif kind == "pbs":
                    d = directives(text, "#PBS")
                    per = min(ranks, 4)
                    want = [f"-l select={nodes}:ncpus={3 * per}:mpiprocs={per}:ompthreads=3",
                            f"-l walltime={hms}", "-A proj"]
                    want += [f"-J 0-{nruns - 1}"] if array else []
                else:
                    d = directives(text, "#flux:")
                    want = [f"-N {nodes}", f"-n {ranks}", "-c 3", f"-t {minutes}m",
                            "--bank=proj"]
                for w in want:
                    assert w in d, f"{s}: no directive {w!r} in {d}"
                assert ("--array" in " ".join(d) or "-J " in " ".join(d)) == array, d
                assert "export OMP_NUM_THREADS=3" in text
                for line in text.splitlines():
                    words = shlex.split(line.strip().split(") ", 1)[-1]) if re.match(
                        r"\s*(\d+\) )?run ", line) else None
                    if words:
                        words = [w for w in words if w != ";;"]
                        assert words[2:] == listed[words[1]], f"{s}: {line}"
                        assert words[2:][:3] == {"slurm": ["srun", "-n", str(ranks)],
                                                 "pbs": ["mpiexec", "-n", str(ranks)],
                                                 "flux": ["flux", "run", "-n"]}[kind]
                        seen[words[1]] = ranks
            assert sorted(seen) == sorted(listed), (sorted(seen), sorted(listed))
    # The lines to paste are shell words: an --out with a space.
    out = os.path.join(work, "jobs", "with space", "out pbs")
    shutil.rmtree(os.path.dirname(out), ignore_errors=True)
    p = sweep(tools, [path, "--out", out, "--launcher", "pbs"])
    for line in p.stdout.splitlines():
        cmd, script = shlex.split(line)
        assert cmd == "qsub" and os.path.isfile(script), line
    hint = shlex.split(p.stderr.strip().splitlines()[-1].split("then: ", 1)[1])
    assert hint[1:] == ["collect", out], hint
    # flux has no job arrays: a one-line error
    p = sweep(tools, [os.path.join(work, "jobs_slurm_array.toml"), "--launcher", "flux",
                      "--dry-run"], expect=2)
    assert p.stderr.startswith("sweep: error:") and "array" in p.stderr
    # PBS chunks: the full nodes, then the rest (6 ranks at 4 a node: 4 + 2; it asked for
    # two nodes of 4).
    out = os.path.join(work, "jobs", "pbs_rest")
    shutil.rmtree(out, ignore_errors=True)
    # The user's own files in OUT/jobs stay, whatever their names.
    os.makedirs(os.path.join(out, "jobs"))
    mine = ["production.sbatch", "flux", "jobs_np3.pbs"]
    for name in mine:
        with open(os.path.join(out, "jobs", name), "w") as f:
            f.write("#!/bin/bash\necho mine\n")
    sweep(tools, [path, "--out", out, "--launcher", "pbs", "--ranks", "6"])
    with open(os.path.join(out, "jobs", "jobs_np6.pbs")) as f:
        d = directives(f.read(), "#PBS")
    want = "-l select=1:ncpus=12:mpiprocs=4:ompthreads=3+1:ncpus=6:mpiprocs=2:ompthreads=3"
    assert want in d, d
    # Other rank counts into the same --out: the scripts of the earlier ones go (a loop
    # over OUT/jobs/* submitted them too).
    p = sweep(tools, [path, "--out", out, "--launcher", "pbs", "--ranks", "2"])
    assert sorted(os.listdir(os.path.join(out, "jobs"))) == sorted(
        ["jobs_np2.pbs"] + mine), p.stderr
    assert "removed 1 job script(s) of an earlier sweep" in p.stderr, p.stderr


def check_weak(tools, exe, work):
    path = os.path.join(work, "weak.toml")
    write_sweep(path, exe, [2, 4, 8, 3], ["knapsack"], ["time.max_step=3"])
    err = sweep(tools, [path, "--weak", "--dry-run"], expect=2).stderr
    assert "multiples of the smallest" in err, err
    write_sweep(path, exe, [1, 2, 4, 8, 6], ["knapsack"], ["time.max_step=3"])
    lines = sweep(tools, [path, "--weak", "--dry-run"]).stdout.splitlines()
    cells = {}
    for line in lines:
        words = shlex.split(line.split(": ", 1)[1])
        ranks = int(words[words.index("-np") + 1])
        [n] = [json.loads(w.split("=", 1)[1]) for w in words if w.startswith("domain.n_cell=")]
        assert all(x % 8 == 0 for x in n), n  # still multiples of the blocking factor
        cells[ranks] = n[0] * n[1]
    assert {r: c // r for r, c in cells.items()} == {r: 64 * 64 for r in cells}, cells
    # strong scaling (the default) leaves n_cell alone
    lines = sweep(tools, [path, "--dry-run"]).stdout
    assert "domain.n_cell" not in lines


def check_variants(tools, exe, work):
    path = os.path.join(work, "variants.toml")
    with open(path, "w") as f:
        f.write(f'decks = [{json.dumps(DECK)}]\nranks = [1, 2]\n[axes]\nvariant = [\n'
                '  {name = "lan", set = ["balance.method=lan"]},\n'
                '  {name = "lan_distributed", set = ["balance.method=lan_distributed", '
                '"balance.levels=all"]},\n]\n"amr.max_grid_size" = [16, 32]\n'
                f'[launcher]\nexecutable = {json.dumps(exe)}\n')
    lines = sweep(tools, [path, "--dry-run"]).stdout.splitlines()
    assert len(lines) == 2 * 2 * 2, lines
    for line in lines:
        rid, cmd = line.split(": ", 1)
        words = shlex.split(cmd)
        m = re.search(r"__variant-(\w+)__amr.max_grid_size-(\d+)__", rid)
        assert m, rid
        assert f"balance.method={m.group(1)}" in words
        assert ("balance.levels=all" in words) == (m.group(1) == "lan_distributed")
        assert f"amr.max_grid_size={m.group(2)}" in words
    # --ranks replaces the file's rank counts
    lines = sweep(tools, [path, "--dry-run", "--ranks", "4"]).stdout.splitlines()
    assert len(lines) == 2 * 2 and all("__np4__" in x and " -np 4 " in x for x in lines), lines


def check_threads(tools, exe, work):
    path = os.path.join(work, "threads.toml")
    write_sweep(path, exe, [1], ["knapsack"], TINY, extra="threads = 2")
    out = os.path.join(work, "threads")
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.run([sys.executable, os.path.join(tools, "sweep"), path, "--out", out],
                       capture_output=True, text=True, env=env)
    print(p.stdout + p.stderr, end="")
    assert p.returncode == 0, p.returncode
    [path] = summaries(out)
    with open(path) as f:
        kokkos = json.load(f)["kokkos"]
    assert kokkos["omp_num_threads"] == "2", kokkos
    if kokkos["execution_space"] == "OpenMP":
        assert kokkos["concurrency"] == 2, kokkos


def check_examples(tools, exe, work):
    """Every sweep file in inputs/sweeps lists its runs and writes sound job scripts."""
    files = sorted(glob.glob(os.path.join(os.path.dirname(tools), "inputs", "sweeps",
                                          "*.toml")))
    assert files
    for path in files:
        for kind in ["local", "slurm", "pbs", "flux"]:
            out = os.path.join(work, "examples", os.path.basename(path)[:-5], kind)
            shutil.rmtree(out, ignore_errors=True)
            dry = sweep(tools, [path, "--launcher", kind, "--out", out, "--dry-run"])
            assert dry.stdout.strip()
            if kind != "local":
                sweep(tools, [path, "--launcher", kind, "--out", out])
                for script in glob.glob(os.path.join(out, "jobs", "*")):
                    subprocess.run(["bash", "-n", script], check=True)
    # app_balancers_3d.toml is tools/bench_app_balancers as a sweep: each balancer with
    # the same overrides (lan_distributed with balance.levels=all in both).
    import tomllib
    with open(os.path.join(os.path.dirname(tools), "inputs", "sweeps",
                           "app_balancers_3d.toml"), "rb") as f:
        app = tomllib.load(f)
    sys.path.insert(0, tools)
    bench = load_tool(tools, "bench_app_balancers")
    for v in app["axes"]["variant"]:
        [want] = bench.configs([v["name"]], []).values()
        assert sorted(app["set"] + v["set"]) == sorted(want), (v, want)


def check_bad_args(tools, exe, work):
    path = os.path.join(work, "bad.toml")
    cases = [([], None, "required"),
             (["nowhere.toml"], None, "nowhere.toml"),
             (["collect"], None, "required"),
             (["collect", os.path.join(work, "no_such_dir")], None, "not a directory"),
             (["X", "--launcher", "lsf"], None, "invalid choice"),
             (["X"], 'decks = ["bubble.toml"]\n', "no such file"),
             (["X"], f'decks = [{json.dumps(DECK)}]\nranks = [0]\n', "ranks"),
             (["X"], f'decks = [{json.dumps(DECK)}]\nrank = [2]\n', "unknown key rank"),
             (["X", "--ranks", "0"], f'decks = [{json.dumps(DECK)}]\n', "--ranks"),
             (["X"], f'decks = [{json.dumps(DECK)}]\n[launcher]\ntime = "soon"\n',
              "launcher.time"),
             (["X"], f'decks = [{json.dumps(DECK)}]\n[launcher]\nthreads = 0\n',
              "launcher.threads: expected an integer >= 1, got 0"),
             (["X"], f'decks = [{json.dumps(DECK)}]\n[launcher]\nthreads = -2\n',
              "launcher.threads: expected an integer >= 1, got -2"),
             (["X"], f'decks = [{json.dumps(DECK)}]\n[axes]\n"output.dir" = ["a"]\n',
              "output.dir"),
             (["X"], "decks = [\n", "bad.toml"),
             (["X"], f'decks = [{json.dumps(DECK)}]\n[axes]\nv = [{{name = "a", set = ["x=1"]}},'
              ' 2]\n', "not both"),
             (["X"], f'decks = [{json.dumps(DECK)}]\n[axes]\nv = [{{name = "a"}}]\n',
              "a variant is")]
    # Found by fuzzing: each refused before any run, with what is wrong and where.
    head = f'decks = [{json.dumps(DECK)}]\nranks = [1, 2]\nrepeats = 2\n'
    broken_deck = os.path.join(work, "bad_deck.toml")
    with open(broken_deck, "w") as f:
        f.write("[domain\n")
    own = "are the sweep's own"
    cases += [
        # the deck and its keys, through patchwork --check: the run, the key, the message
        (["X"], head + 'set = ["amr.max_levl=1"]\n',
         ["bad.toml: run bubble_2d__np1__r0 (deck bubble_2d.toml): patchwork: error: "
          'command line: argument "amr.max_levl=1": amr.max_levl: unknown key', "--check"]),
        (["X"], head + '[axes]\n"balance.methd" = ["sfc", "lan"]\n',
         ["run bubble_2d__np1__balance.methd-sfc__r0", "balance.methd: unknown key"]),
        (["X"], head + '[axes]\n"amr.max_level" = ["two", 1.5]\n',
         ["run bubble_2d__np1__amr.max_level-two__r0", "amr.max_level=two",
          "amr.max_level: expected an integer"]),
        (["X"], head + '[axes]\n"amr.max_level" = [1, 1.5]\n',
         ["run bubble_2d__np1__amr.max_level-1.5__r0", "amr.max_level: expected"]),
        (["X"], f'decks = [{json.dumps(broken_deck)}]\n',
         ["run bad_deck__np1__r0", f"patchwork: error: {broken_deck}:1:"]),
        (["X"], head + 'set = ["amr.max_levl=1"]\n', "amr.max_levl", ["--launcher", "slurm"]),
        # the job time: refused, not rewritten (25:99:00 was --time=26:39:00)
        (["X"], head + '[launcher]\ntime = "25:99:00"\n',
         ["bad.toml: launcher.time:", "'25:99:00'", "below 60"]),
        (["X"], head + '[launcher]\ntime = "00:10:60"\n', ["launcher.time:", "below 60"]),
        (["X"], head + '[launcher]\ntime = "1-24:00:00"\n', ["launcher.time:", "below 24"]),
        (["X"], head + '[launcher]\ntime = "10:00:00:00"\n', "launcher.time:"),
        # the runs' output folder is the sweep's
        (["X"], head + 'set = ["output.dir=/tmp/x", "output.prefix=mine"]\n',
         ['set: "output.dir=/tmp/x": output.dir and output.prefix', own, "OUT/runs/RUN_ID"]),
        (["X"], head + 'set = ["output.prefix=mine"]\n', ['set: "output.prefix=mine"', own]),
        (["X"], head + '[axes]\n"output.prefix" = ["a", "b"]\n',
         ["axes.output.prefix:", own]),
        (["X"], head + '[axes]\nv = [{name = "a", set = ["output.dir=x"]}]\n',
         ["axes.v: variant 'a': \"output.dir=x\"", own]),
        # no key twice on a command line
        (["X"], head + 'set = ["amr.max_level=1", "amr.max_level=2"]\n',
         "set: amr.max_level is given twice"),
        (["X"], head + 'set = ["amr.max_level=1"]\n[axes]\n"amr.max_level" = [1, 2]\n',
         "set and axes.amr.max_level both set amr.max_level"),
        (["X"], head + '[axes]\n"balance.method" = ["sfc"]\n'
         'v = [{name = "a", set = ["balance.method=lan"]}]\n',
         "axes.balance.method and axes.v both set balance.method"),
        (["collect", os.path.join(work, "empty")], None,
         ["collect: nothing to collect under", "no sweep.json", "no *_summary.json"]),
        # each key of its kind, never a Python error (exit code 4) nor a value taken
        # as another: weak = "false" turned weak scaling on, repeats = [2, 5] was 2
        (["X"], head + 'weak = "false"\n', "bad.toml: weak: expected true or false, "
         "got 'false'"),
        (["X"], "decks = 5\n", "bad.toml: decks: expected a deck file or a list of them, "
         "got 5"),
        (["X"], head + 'launcher = "slurm"\n', "bad.toml: launcher: expected a table"),
        (["X"], head + '[launcher]\nkind = ["slurm"]\n', "bad.toml: launcher.kind: "
         "expected one of local, slurm, pbs, flux, got ['slurm']"),
        (["X"], head + "[launcher]\nmpirun = \"mpirun -np '{ranks}\"\n",
         ["bad.toml: launcher.mpirun: expected a command line", "No closing quotation"]),
        (["X"], head.replace("repeats = 2", "repeats = [2, 5]"), "bad.toml: repeats: "
         "expected an integer >= 1 (the runs per configuration), got [2, 5]"),
        (["X"], head + "out = 5\n", "bad.toml: out: expected a directory (a non-empty "
         "string), got 5"),
        (["X"], head + 'out = ""\n', "bad.toml: out: expected a directory"),
        # one axis spelt two ways (one of them was dropped)
        (["X"], head + '[axes]\n"balance.method" = ["lan"]\n[axes.balance]\n'
         'method = ["sfc"]\n', 'bad.toml: axes: [axes] "balance.method" and '
         '[axes.balance] "method" are both axis balance.method'),
        # runs sharing a directory: the value given twice, or both runs
        (["X"], head.replace("ranks = [1, 2]", "ranks = [1, 1]"),
         "bad.toml: ranks: 1 is given twice"),
        (["X", "--ranks", "2", "2"], head, "--ranks: 2 is given twice"),
        (["X"], head + '[axes]\n"amr.max_level" = [1, 1]\n',
         "bad.toml: axes.amr.max_level: 1 is given twice"),
        (["X"], head + '[axes]\nv = [{name = "a/b", set = []}, {name = "a_b", set = []}]\n',
         ["runs (bubble_2d.toml, ranks 1, v=a/b) and (bubble_2d.toml, ranks 1, v=a_b) "
          "would share the directory runs/bubble_2d__np1__v-a_b__r0"]),
        # scheduler names go into directive lines as they are
        (["X"], head + '[launcher]\naccount = "my project"\n', "bad.toml: launcher.account: "
         "expected a scheduler name without spaces or quotes, got 'my project'", ["--launcher",
                                                                                  "slurm"]),
        (["X"], head + '[launcher]\npartition = "q\'1"\n', "launcher.partition: expected "
         "a scheduler name"),
        # the sweep file's own name names the jobs
        (["Y"], head, ["with space.toml: the sweep file's name 'with space' names its jobs",
                       'rename the file or set name = "..." in it'])]
    os.makedirs(os.path.join(work, "empty"), exist_ok=True)
    spaced = os.path.join(work, "with space.toml")
    for case in cases:
        args, text, expected = case[:3]
        extra = case[3] if len(case) > 3 else []
        if text is not None:
            with open(path, "w") as f:
                f.write(text)
        if args[:1] == ["Y"]:  # the text in a file whose name has a space
            with open(spaced, "w") as f:
                f.write(text)
        args = [path if a == "X" else spaced if a == "Y" else a for a in args]
        p = subprocess.run([sys.executable, os.path.join(tools, "sweep")] + args +
                           (["--dry-run"] if args and args[0] in (path, spaced) else [])
                           + extra,
                           capture_output=True, text=True, env=ENV)
        print(f"$ sweep {' '.join(args + extra)} -> {p.returncode}: {p.stderr.strip()}")
        assert p.returncode == 2  # bad input
        assert "Traceback" not in p.stderr
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert p.stderr.startswith("sweep: error:"), p.stderr
        for e in [expected] if isinstance(expected, str) else expected:
            assert e in p.stderr, e
        assert not p.stdout, p.stdout  # --dry-run listed nothing


def check_checks(tools, exe, work):
    """The decks are checked with `patchwork --check --ranks N` (the sweep's executable)
    once per distinct configuration and rank count, before any run or job script."""
    # An executable that logs its calls, then is patchwork.
    calls = os.path.join(work, "checks_calls.txt")
    wrapper = os.path.join(work, "checks_patchwork.sh")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\necho "$*" >> {shlex.quote(calls)}\n'
                f'exec {shlex.quote(exe)} "$@"\n')
    os.chmod(wrapper, 0o755)
    path = os.path.join(work, "checks.toml")
    write_sweep(path, wrapper, [1, 2], ["knapsack", "lan"], TINY, repeats=3)
    if os.path.exists(calls):
        os.remove(calls)
    p = sweep(tools, [path, "--dry-run"])
    assert len(p.stdout.splitlines()) == 2 * 2 * 3, p.stdout  # methods x ranks x repeats
    with open(calls) as f:
        checked = f.read().splitlines()
    # methods x ranks
    assert len(checked) == 4 and all(c.startswith("--check --ranks ") for c in checked), (
        checked)
    assert "2 configurations checked (patchwork --check;" in p.stderr, p.stderr
    assert sorted("balance.method=lan" in c for c in checked) == [False] * 2 + [True] * 2
    assert sorted(c.split()[2] for c in checked) == ["1", "1", "2", "2"], checked
    # A bad key: no run started (local), no job script written (slurm).
    write_sweep(path, exe, [1], ["knapsack", "lan"], TINY + ["amr.max_levl=1"])
    for kind in ("local", "slurm"):
        out = os.path.join(work, "checks_" + kind)
        shutil.rmtree(out, ignore_errors=True)
        p = sweep(tools, [path, "--out", out, "--launcher", kind], expect=2)
        assert "amr.max_levl: unknown key" in p.stderr and not os.path.exists(out), (
            p.stderr, out)
    # At 2 ranks ranks.slow=[1] is checked for 2 ranks: valid, and the check goes on to
    # a misspelt key after it.
    slow = TINY + ["ranks.slow=[1]", "ranks.slowdown=2"]
    write_sweep(path, exe, [2], ["knapsack"], slow)
    sweep(tools, [path, "--dry-run"])
    write_sweep(path, exe, [2], ["knapsack"], slow + ["amr.max_levl=1"])
    p = sweep(tools, [path, "--dry-run"], expect=2)
    assert "amr.max_levl: unknown key" in p.stderr, p.stderr
    # ... but a 1-rank run has rank 0 only: its own error.
    write_sweep(path, exe, [1, 2], ["knapsack"], slow)
    p = sweep(tools, [path, "--dry-run"], expect=2)
    assert "run bubble_2d__np1__balance.method-knapsack__r0" in p.stderr, p.stderr
    assert "ranks.slow: expected ranks in [0, 1), got 1" in p.stderr, p.stderr
    # No executable to check with: said, before anything.
    write_sweep(path, os.path.join(work, "no_patchwork"), [1], ["knapsack"], TINY)
    p = sweep(tools, [path, "--dry-run", "--launcher", "slurm"], expect=2)
    assert "launcher.executable:" in p.stderr and "no_patchwork" in p.stderr, p.stderr


def load_tool(tools, name):
    """A tools/ script (no .py suffix) as a module."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(tools, name))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module


def check_plots(tools, exe, work):
    try:
        import matplotlib
        import numpy as np
    except ImportError:
        print("no matplotlib or numpy (Debian: python3-matplotlib)")
        sys.exit(SKIP)
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    table = os.path.join(work, "plots_runs.csv")
    sweep(tools, ["collect", os.path.join(work, "local"), "-o", table])
    out = os.path.join(work, "plots")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([sys.executable, os.path.join(tools, "plot_sweep"), table, "-o", out],
                       capture_output=True, text=True)
    print(p.stdout + p.stderr)
    assert p.returncode == 0
    for name in ["imbalance", "avg_std", "idle", "scaling", "phases", "relative",
                 "distributed", "est_balance", "patches"]:
        assert_png(os.path.join(out, f"sweep_{name}.png"))
    # The plotted points are the table's values (one run per point: its own value).
    rows = read_csv(table)
    plot = load_tool(tools, "plot_sweep")
    series = plot.read_runs(table, "balancer")
    for name, col in [("imbalance", "imbalance"), ("avg_std", "std"), ("idle", "idle_pct")]:
        fig = plot.make_figure(series, name)
        lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
        assert sorted(lines) == ["knapsack", "lan"], sorted(lines)
        for r in rows:
            ln = lines[r["balancer"]]
            i = list(ln.get_xdata()).index(int(r["ranks"]))
            assert ln.get_ydata()[i] == float(r[col]), (name, r["run_id"])
    fig = plot.make_figure(series, "scaling")
    for r in rows:
        t = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == r["balancer"]][0]
        i = list(t.get_xdata()).index(int(r["ranks"]))
        assert t.get_ydata()[i] == float(r["wall_s"]) / int(r["steps"]), r["run_id"]
    eff = [ln for ln in fig.axes[1].get_lines()]
    assert all(ln.get_ydata()[0] == 1.0 for ln in eff)  # efficiency 1 at the fewest ranks
    # Stacked phases: bar (balancer, ranks) of phase "advance" is the run's phase time.
    fig = plot.make_figure(series, "phases")
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    [advance] = [c for c in ax.containers if c.get_label() == "advance"]
    for r in rows:
        i = labels.index(f"{r['balancer']}\n{r['ranks']}")
        assert advance.patches[i].get_height() == float(r["phase_advance_s"]), r["run_id"]
    # Relative time (seed 000's Table 2): each run's wall time over lan's at its ranks.
    with open(os.path.join(out, "sweep_relative.csv"), newline="") as f:
        rel = {(t["ranks"], t["balancer"]): float(t["relative_to_lan"])
               for t in csv.DictReader(f)}
    fig = plot.make_figure(series, "relative", reference="lan")
    bars = {c.get_label(): c for c in fig.axes[0].containers}
    for r in rows:
        [lan] = [x for x in rows if x["balancer"] == "lan" and x["ranks"] == r["ranks"]]
        want = float(r["wall_s"]) / float(lan["wall_s"])
        assert rel[(r["ranks"], r["balancer"])] == want, r["run_id"]
        i = [1, 2].index(int(r["ranks"]))
        assert bars[r["balancer"]].patches[i].get_height() == want, r["run_id"]
    # Estimated load balance per rank count (seed 002's Tables 1-2): table and bars.
    est = {t["ranks"]: t for t in read_csv(os.path.join(out, "sweep_est_balance.csv"))}
    with open(os.path.join(out, "sweep_est_balance.md")) as f:
        md = f.read()
    fig = plot.make_figure(series, "est_balance")
    bars = {c.get_label(): c for c in fig.axes[0].containers}
    for r in rows:
        want = float(r["est_balance_pct"])
        assert 0 < want <= 100, r["run_id"]
        assert float(est[r["ranks"]][r["balancer"]]) == want, r["run_id"]
        assert f"{want:.4f}" in md, r["run_id"]
        i = [1, 2].index(int(r["ranks"]))
        assert bars[r["balancer"]].patches[i].get_height() == want, r["run_id"]
    # --where keeps the rows with a value: the 2-rank runs only.
    two = plot.read_runs(table, "balancer", ["ranks=2"])
    assert {name: sorted(by) for name, by in two.items()} == {"knapsack": [2], "lan": [2]}
    p = subprocess.run([sys.executable, os.path.join(tools, "plot_sweep"), table, "-o", out,
                        "--where", "rank=2"], capture_output=True, text=True)
    assert p.returncode != 0 and p.stderr.startswith("plot_sweep: error: --where rank=2")
    # A table without a figure's columns: that figure by name is a one-line error.
    old = os.path.join(work, "plots_old.csv")
    with open(table, newline="") as f, open(old, "w", newline="") as g:
        for line in f:
            g.write(line.replace(",latency_s,", ",latency,", 1))
    p = subprocess.run([sys.executable, os.path.join(tools, "plot_sweep"), old, "-o", out,
                        "--figures", "distributed"], capture_output=True, text=True)
    assert p.returncode != 0 and p.stderr.startswith("plot_sweep: error:"), p.stderr
    assert "latency_s" in p.stderr and "Traceback" not in p.stderr, p.stderr


def assert_png(png):
    """A PNG (and its PDF) with a drawing in it, not a blank canvas."""
    import matplotlib.image as mpimg
    import numpy as np
    assert os.path.getsize(png) > 10000 and os.path.getsize(png[:-3] + "pdf") > 1000, png
    img = mpimg.imread(png)
    assert len(np.unique(img.reshape(-1, img.shape[-1]), axis=0)) > 16, png


def balancers(exe):
    """The balancer names the executable knows (its error for an unknown one lists them)."""
    p = subprocess.run([exe, DECK, "balance.method=?"], capture_output=True, text=True)
    m = re.search(r"known: (.+)$", p.stderr.strip(), re.M)
    assert m, p.stderr
    return [n.strip() for n in m.group(1).split(",")]


def seed_sweeps(tools, exe, work):
    """Two tiny sweeps at 2 ranks: lan and lan_distributed without emulation, with an
    inter-group latency and with a slowed rank (seed 001); sfc and a Zoltan balancer
    (knapsack without Zoltan) at two patch counts (seed 004). Returns their tables."""
    emu = os.path.join(work, "seeds_emulated.toml")
    with open(emu, "w") as f:
        f.write(f'decks = [{json.dumps(DECK)}]\nranks = [2]\n'
                f'set = {json.dumps(TINY + ["ranks.group_size=1", "ranks.slow=[1]"])}\n'
                '[axes]\nvariant = [\n  {name = "lan", set = ["balance.method=lan"]},\n'
                '  {name = "lan_distributed", set = ["balance.method=lan_distributed", '
                '"balance.levels=all"]},\n]\nemulation = [\n  {name = "none", set = []},\n'
                '  {name = "latency", set = ["ranks.latency=0.002"]},\n'
                '  {name = "slow", set = ["ranks.slowdown=2"]},\n]\n'
                f'[launcher]\nexecutable = {json.dumps(exe)}\n[launcher.local]\n'
                'mpirun = "mpirun --oversubscribe -np {ranks}"\n')
    other = "zoltan_rcb" if "zoltan_rcb" in balancers(exe) else "knapsack"
    pat = os.path.join(work, "seeds_patches.toml")
    write_sweep(pat, exe, [2], ["sfc", other], TINY)
    with open(pat) as f:  # a second axis beside balance.method
        text = f.read().replace("\n[launcher]\n", '\n"amr.max_grid_size" = [16, 32]\n'
                                "[launcher]\n", 1)
    with open(pat, "w") as f:
        f.write(text)
    tables = []
    for path in (emu, pat):
        out = os.path.join(work, os.path.basename(path)[:-5])
        shutil.rmtree(out, ignore_errors=True)
        sweep(tools, [path, "--out", out])
        sweep(tools, ["collect", out])
        tables.append(os.path.join(out, "sweep_runs.csv"))
    return tables, other


def check_seed_plots(tools, exe, work):
    try:
        import matplotlib
    except ImportError:
        print("no matplotlib (Debian: python3-matplotlib)")
        sys.exit(SKIP)
    matplotlib.use("Agg")
    (emu, pat), other = seed_sweeps(tools, exe, work)
    plot = load_tool(tools, "plot_sweep")
    # Seed 001: wall time against latency and slowdown, lan against lan_distributed.
    rows = read_csv(emu)
    assert len(rows) == 6 and all(r["status"] == "ok" for r in rows), rows
    assert {(r["balancer"], r["emulation"], r["groups"], float(r["latency_s"]),
             float(r["slowdown"])) for r in rows} == {
        (b, e, "2", lat, slow) for b in ("lan", "lan_distributed")
        for e, lat, slow in [("none", 0, 1), ("latency", 0.002, 1), ("slow", 0, 2)]}
    out = os.path.join(work, "seed_plots")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([sys.executable, os.path.join(tools, "plot_sweep"), emu, "-o", out,
                        "--figures", "distributed"], capture_output=True, text=True)
    print(p.stdout + p.stderr)
    assert p.returncode == 0
    assert_png(os.path.join(out, "sweep_distributed.png"))
    table = {(t["latency_s"], t["slowdown"], t["balancer"]): t
             for t in read_csv(os.path.join(out, "sweep_distributed.csv"))}
    assert len(table) == 6, table
    fig = plot.make_figure(plot.read_runs(emu, "balancer"), "distributed", reference="lan")
    lat_ax, slow_ax = fig.axes
    for r in rows:
        lat, slow, wall = float(r["latency_s"]), float(r["slowdown"]), float(r["wall_s"])
        [lan] = [x for x in rows if x["balancer"] == "lan" and x["emulation"] ==
                 r["emulation"]]
        t = table[(str(lat), str(slow), r["balancer"])]
        assert float(t["wall_s"]) == wall and t["runs"] == "1", t
        assert float(t["relative_to_lan"]) == wall / float(lan["wall_s"]), t
        # on the latency panel at its slowdown, on the slowdown panel at its latency
        for ax, label, x in [(lat_ax, f"{r['balancer']}, slowdown {slow:g}x", 1e3 * lat),
                             (slow_ax, f"{r['balancer']}, latency {1e3 * lat:g} ms", slow)]:
            [ln] = [ln for ln in ax.get_lines() if ln.get_label() == label]
            i = list(ln.get_xdata()).index(x)
            assert ln.get_ydata()[i] == wall, (label, r["run_id"])
    # Seed 004: wall time and balancer time against the patch count.
    rows = read_csv(pat)
    assert len(rows) == 4 and all(r["status"] == "ok" for r in rows), rows
    counts = {r["amr.max_grid_size"]: float(r["patches"]) for r in rows}
    assert counts["16"] > counts["32"] > 0, counts  # smaller patches, more of them
    p = subprocess.run([sys.executable, os.path.join(tools, "plot_sweep"), pat, "-o", out,
                        "--figures", "patches"], capture_output=True, text=True)
    print(p.stdout + p.stderr)
    assert p.returncode == 0
    assert_png(os.path.join(out, "sweep_patches.png"))
    table = {(t["balancer"], float(t["patches"])): t
             for t in read_csv(os.path.join(out, "sweep_patches.csv"))}
    fig = plot.make_figure(plot.read_runs(pat, "balancer"), "patches")
    wall_ax, plan_ax = fig.axes
    assert sorted(ln.get_label() for ln in wall_ax.get_lines()) == sorted(["sfc", other])
    for r in rows:
        n = float(r["patches"])
        t = table[(r["balancer"], n)]
        assert float(t["wall_s"]) == float(r["wall_s"]), t
        assert float(t["plan_ms"]) == float(r["plan_ms"]), t
        for ax, col in [(wall_ax, "wall_s"), (plan_ax, "plan_ms")]:
            [ln] = [ln for ln in ax.get_lines() if ln.get_label() == r["balancer"]]
            i = list(ln.get_xdata()).index(n)
            assert ln.get_ydata()[i] == float(r[col]), (col, r["run_id"])


CHECKS = {"local": check_local, "collect": check_collect, "schema": check_schema,
          "failed": check_failed, "resume": check_resume, "killed": check_killed,
          "moved": check_moved, "jobs": check_jobs, "weak": check_weak, "threads": check_threads,
          "bad_args": check_bad_args, "checks": check_checks,
          "plots": check_plots, "variants": check_variants, "examples": check_examples,
          "seed_plots": check_seed_plots}


def main():
    global DECK, ENV
    if len(sys.argv) != 5 or sys.argv[1] not in CHECKS:
        sys.exit(__doc__)
    check, tools, exe, work = sys.argv[1:]
    tools, exe, work = (os.path.abspath(x) for x in (tools, exe, work))
    # The sweep files that name no executable (inputs/sweeps) check their decks with
    # this build's.
    ENV = dict(os.environ, PATCHWORK_BUILD=os.path.dirname(os.path.dirname(exe)))
    DECK = os.path.join(os.path.dirname(tools), "inputs", "bubble_2d.toml")
    os.makedirs(work, exist_ok=True)
    CHECKS[check](tools, exe, work)
    print(f"{check}: ok")


if __name__ == "__main__":
    main()
