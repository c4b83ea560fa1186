#!/usr/bin/env python3
"""Every Python tool under tools/ answers bad arguments and missing or foreign files (not a
Patchwork dump, a text file, a truncated HDF5, a directory) with one line on stderr that
starts with its name, exit code 2 (bad input), and never a traceback. Each case must fail
before any work starts (the benchmark tools are given a real build, so that the check of
the argument after it is reached, never a run). Usage:

  test_tool_errors.py TOOLS_DIR BUILD_DIR RUN_DIR   (RUN_DIR: a run's dump and history)

Exits 77 (ctest's skip code) when h5py, numpy or matplotlib is absent."""
import glob
import os
import subprocess
import sys
import tempfile

SKIP = 77
BENCH_EXE = {"bench_advection": "--build", "bench_app_balancers": "--build",
             "bench_dump": "--build", "bench_hydro": "--build"}


def inputs(work, run_dir):
    """The files the cases use, by name."""
    import h5py
    dump = sorted(glob.glob(os.path.join(run_dir, "plt_?????.h5")))[-1]
    history = os.path.join(run_dir, "plt_load.csv")
    f = {"dump": dump, "history": history, "dir": work,
         "missing": os.path.join(work, "nowhere.h5"),
         "text": os.path.join(work, "notes.txt"),
         "truncated": os.path.join(work, "truncated.h5"),
         "foreign": os.path.join(work, "foreign.h5"),
         "bad_row": os.path.join(work, "bad_row.csv"),
         # Under a regular file: no tool (nor yt, which creates folders) can write it.
         "unwritable": os.path.join(work, "notes.txt", "out.png")}
    with open(f["text"], "w") as out:
        out.write("x,y\n1,2\nnot a dump\n")
    with open(dump, "rb") as src, open(f["truncated"], "wb") as out:
        data = src.read()
        out.write(data[:len(data) // 2])
    with h5py.File(f["foreign"], "w") as out:  # HDF5, but another code's
        out.attrs["code_version"] = "othercode 1.0"
        out.create_dataset("x", data=[1.0, 2.0])
    with open(history) as src:
        header = src.readline()
    with open(f["bad_row"], "w") as out:
        out.write(header + "1,0,0,0,lots,1,1,0,0,1,0,0,0,0,0.1,sfc\n")
    return f


def cases(f, build):
    """(tool, arguments[, expected parts of the message]) that must fail."""
    exe = os.path.join(build, "app", "patchwork")
    lab = os.path.join(build, "balance", "lab", "balance_lab")
    files = ["missing", "text", "truncated", "foreign", "dir"]
    out = []
    for tool in ("plot_slice", "yt_example"):
        out += [(tool, []), (tool, ["--bogus"])]
        out += [(tool, [f[k]]) for k in files + ["history"]]
        out += [(tool, [f["dump"], "--field", "nope"]),
                (tool, [f["dump"], "-o", f["unwritable"]])]
    out += [("plot_slice", [f["dump"], "--dpi", "0"]),
            ("plot_slice", [f["dump"], "--cmap", "nope"]),
            ("plot_slice", [f["dump"], "--max-level", "x"]),
            ("yt_example", [f["dump"], "--axis", "w"])]
    out += [("plot_load", []), ("plot_load", ["--bogus", f["history"]])]
    out += [("plot_load", [f[k]]) for k in files + ["dump", "bad_row"]]
    out += [("plot_load", [f["history"], "--labels", "a", "b"]),
            ("plot_load", [f["history"], "--max-curves", "0"]),
            ("plot_load", [f["history"], "-o", f["unwritable"]])]
    for tool in ("sweep", "plot_sweep"):
        out += [(tool, []), (tool, ["--bogus"])]
        out += [(tool, [f[k]]) for k in files + ["dump"]]
    out += [("sweep", ["collect"]), ("sweep", ["collect", f["missing"]])]
    for tool, option in BENCH_EXE.items():
        out += [(tool, ["--bogus"]), (tool, [option, f["missing"]]),
                (tool, [option, build, "--ranks", "0"]),
                (tool, [option, build, "--repeats", "-1"])]
        if tool != "bench_hydro":
            out += [(tool, [option, build, "--deck", f[k]])
                    for k in ("missing", "dump", "truncated", "dir")]
    out += [("bench_advection", ["--build", build, "--threads", "0"]),
            ("bench_advection", ["--build", build, "--ranks", "100000"]),
            ("bench_advection", ["--build", build, "--bind", "--oversubscribe"])]
    out += [("bench_hydro", ["--build", build, "--athena", f[k]])
            for k in ("missing", "text", "dir")]
    out += [("bench_balancers", ["--bogus"]), ("bench_balancers", ["--lab", f["missing"]]),
            ("bench_balancers", ["--lab", f["text"]]),
            ("bench_balancers", ["--lab", lab, "--count", "0"]),
            ("bench_poisson", ["--bogus"]), ("bench_poisson", ["--build", f["missing"]]),
            ("bench_poisson", ["--build", build, "--n", "0"]),
            ("bench_poisson", ["--build", build, "--bc", "sideways"])]
    out += [("bench_kernel_sizes", ["--bogus"]),
            ("bench_kernel_sizes", ["--build", f["missing"]]),
            ("bench_kernel_sizes", ["--build", build, "--sizes", "16"]),
            ("bench_kernel_sizes", ["--build", build, "--sizes", "0", "16"]),
            ("bench_kernel_sizes", ["--build", build, "--sizes", "16", "4096"]),
            ("bench_kernel_sizes", ["--build", build, "--rounds", "0"])]
    # Found by fuzzing, with the message each must give: the overrides are checked
    # (key=value, not a key the tool sets, not twice, patchwork --check) before any run.
    one = ["--ranks", "1", "--repeats", "1"]
    for tool in ("bench_advection", "bench_dump"):
        out += [(tool, ["--build", build] + one + ["amr.max_levl=1"],
                 ["patchwork --check", 'argument "amr.max_levl=1": amr.max_levl: unknown '
                  "key"]),
                (tool, ["--build", build] + one + ["notakeyvalue"],
                 ["argument 'notakeyvalue': expected a deck override key=value"]),
                (tool, ["--build", build] + one + ["amr.max_level=1", "amr.max_level=2"],
                 ["amr.max_level is given twice"]),
                (tool, ["--build", build] + one + ["output.dir=" + f["dir"] + "/x"],
                 ["output.dir is set by"]),
                (tool, ["--build", build] + one + ["output.prefix=mine"],
                 ["output.prefix is set by the sweep"])]
    out += [("bench_dump", ["--build", build] + one + ["output.interval=2"],
             ["output.interval is set by --interval"]),
            ("bench_dump", ["--build", build] + one + ["--dir", f["text"]],
             [f"--dir {f['text']}: not a directory"]),
            ("bench_advection", ["--build", build] + one + ["--out", f["text"]],
             [f"--out {f['text']}: not a directory"])]
    assert os.path.exists(exe), exe
    return out


def check(tools, tool, args, expected=()):
    """One case: exit code 2, one line on stderr starting with the tool's name (and
    holding each of `expected`), no traceback. Returns what was wrong, or None."""
    cmd = [sys.executable, os.path.join(tools, tool)] + args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "still running after 120 s (it started work instead of failing)"
    lines = p.stderr.splitlines()
    print(f"{tool} {' '.join(args)} -> {p.returncode}: {p.stderr.strip()}")
    if "Traceback" in p.stderr or "Traceback" in p.stdout:
        return "a traceback"
    if p.returncode != 2:  # bad input: pwcli.BAD_INPUT, as argparse's own
        return f"exit code {p.returncode}, expected 2"
    if len(lines) != 1:
        return f"{len(lines)} lines on stderr"
    if not lines[0].startswith(f"{tool}: "):
        return f"the line does not start with '{tool}: '"
    missing = [e for e in expected if e not in lines[0]]
    if missing:
        return f"the line does not say {missing[0]!r}"
    return None


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    tools, build, run_dir = sys.argv[1:]
    for module in ("h5py", "numpy", "matplotlib"):
        try:
            __import__(module)
        except ImportError as e:
            print(f"skipped: {sys.executable} has no {module} ({e})")
            return SKIP
    scripts = sorted(n for n in os.listdir(tools)
                     if os.path.isfile(os.path.join(tools, n))
                     and open(os.path.join(tools, n), "rb").read(64).startswith(
                         b"#!/usr/bin/env python3"))
    with tempfile.TemporaryDirectory() as work:
        f = inputs(work, run_dir)
        todo = cases(f, build)
        # Every Python tool has cases: a new tool must be added here.
        untested = sorted(set(scripts) - {t for t, *_ in todo})
        assert not untested, f"tools without cases: {untested}"
        bad = [(t, a, why) for t, a, *e in todo
               if (why := check(tools, t, a, *e)) is not None]
    for t, a, why in bad:
        print(f"FAIL: {t} {' '.join(a)}: {why}")
    print(f"{len(todo) - len(bad)} of {len(todo)} cases answered with one line")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
