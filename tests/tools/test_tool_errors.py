#!/usr/bin/env python3
"""Every Python tool under tools/ answers bad arguments and missing or foreign files (not a
Patchwork dump, a text file, a truncated HDF5, a directory, a damaged dump, an output it
cannot write) with one line on stderr that starts with its name, exit code 2 (bad input),
and never a traceback. Each case must fail
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


def inputs(work, run_dir, build):
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
         "unwritable": os.path.join(work, "notes.txt", "out.png"),
         # Neither this directory nor DIR.png may appear (yt makes missing folders;
         # matplotlib saved `-o DIR` as DIR.png).
         "no_dir": os.path.join(work, "nodir", "out.png"),
         "bad_format": os.path.join(work, "out.foo")}
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
    f.update(damaged_dumps(work, dump))
    # A compound type HDF5 cannot read (h5py's RuntimeError): the catalogue of hostile
    # restart files' tool damages it (tests/app/corrupt_dump.cpp).
    corrupt = os.path.join(build, "tests", "corrupt_dump")
    if os.path.exists(corrupt):
        f["dump_bent_type"] = os.path.join(work, "bent_type.h5")
        subprocess.run([corrupt, dump, f["dump_bent_type"], "bent_member_offset"],
                       check=True, capture_output=True)
    return f


def fnv1a(data, h=0xcbf29ce484222325):
    """FNV-1a, 64 bit, as amr/io/checksum.cpp computes the patches' data:checksums."""
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def damaged_dumps(work, dump):
    """Copies of `dump`, each damaged in one way, by name ("dump_" + the damage)."""
    import shutil
    import h5py
    import numpy as np

    def copy(name, damage):
        path = os.path.join(work, f"{name}.h5")
        shutil.copy(dump, path)
        with h5py.File(path, "r+") as h:
            damage(h)
        out["dump_" + name] = path

    def boxes(h, change, level=0):
        d = h[f"level_{level}/boxes"]
        b = d[()]
        change(b)
        d[...] = b

    def equal_pair(h):  # a level and two of its boxes of one shape
        for l in range(int(h.attrs["num_levels"])):
            b = h[f"level_{l}/boxes"][()]
            shapes = [tuple(int(x[f"hi_{a}"]) - int(x[f"lo_{a}"]) for a in "ij") for x in b]
            for q in range(1, len(b)):
                if shapes[q] in shapes[:q]:
                    return l, shapes.index(shapes[q]), q
        raise AssertionError(f"{dump}: no two boxes of one shape")

    def overlap(h):
        l, p, q = equal_pair(h)
        boxes(h, lambda b: b.__setitem__(q, b[p]), l)

    def shorten(h):
        g = h["level_1"]
        data = g["data:datatype=0"][:100]
        del g["data:datatype=0"]
        g["data:datatype=0"] = data

    def values(h, change, reseal):
        g = h[f"level_{int(h.attrs['num_levels']) - 1}"]
        d = g["data:datatype=0"]
        x = d[()]
        change(x)
        d[...] = x
        if reseal:  # what a run that went NaN writes: the checksums fit
            off = g["data:offsets=0"][()]
            g["data:checksums"][...] = np.array(
                [fnv1a(x[off[p]:off[p + 1]].tobytes()) for p in range(len(off) - 1)],
                dtype=np.uint64)

    def offsets(h):
        d = h["level_0/data:offsets=0"]
        d[1] = d[1] + 3

    def width(h):
        pd = h["level_0"].attrs["prob_domain"]
        return int(pd["hi_i"]) - int(pd["lo_i"]) + 1

    out = {}
    with h5py.File(dump, "r") as h:
        assert int(h.attrs["num_levels"]) >= 2, f"{dump}: no refined level"
    copy("short", shorten)  # the finding: yt_example said "internal error"
    copy("num_levels", lambda h: h.attrs.__setitem__("num_levels", "three"))
    copy("dx", lambda h: h["level_1"].attrs.__setitem__("dx", "small"))
    copy("checksum", lambda h: values(h, lambda x: x.__setitem__(5, x[5] + 1.0), False))
    copy("offsets", offsets)
    copy("empty_box", lambda h: boxes(h, lambda b: b[0].__setitem__("hi_i",
                                                                   b[0]["lo_i"] - 1)))
    copy("outside_box", lambda h: boxes(h, lambda b: [
        b[0].__setitem__(k, b[0][k] + width(h)) for k in ("lo_i", "hi_i")]))
    copy("overlap", overlap)
    copy("nan", lambda h: values(h, lambda x: x.__setitem__(5, np.nan), True))
    return out


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
        # Checked before any work: the format, a directory, a missing directory.
        out += [(tool, [f["dump"], "-o", f["bad_format"]], ["-o ", "format 'foo'"]),
                (tool, [f["dump"], "-o", f["dir"]], ["-o ", "a directory"]),
                (tool, [f["dump"], "-o", f["no_dir"]], ["-o ", "no such directory"])]
        # Damaged dumps: pwdump's checks, the same for both (yt_example used to hand
        # them to yt: "internal error").
        out += [(tool, [f["dump_short"]], ["damaged dump", "level_1/data:datatype=0 has "
                                           "100 values"]),
                (tool, [f["dump_num_levels"]], ["damaged dump", "num_levels is 'three'"]),
                (tool, [f["dump_dx"]], ["damaged dump", "level_1 attribute dx"]),
                (tool, [f["dump_checksum"]], ["damaged dump", "patch 0 fails its checksum"]),
                (tool, [f["dump_offsets"]], ["damaged dump", "level_0/data:offsets=0 does "
                                             "not match the boxes"]),
                (tool, [f["dump_empty_box"]], ["damaged dump", "level_0 box 0", "is empty"]),
                (tool, [f["dump_outside_box"]], ["damaged dump", "level_0 box 0",
                                                 "outside the level's domain"]),
                (tool, [f["dump_overlap"]], ["damaged dump", "overlap"])]
        if "dump_bent_type" in f:
            out += [(tool, [f["dump_bent_type"]], ["damaged dump"])]
    out += [("plot_slice", [f["dump"], "--dpi", "0"]),
            ("plot_slice", [f["dump"], "--cmap", "nope"]),
            ("plot_slice", [f["dump"], "--max-level", "x"]),
            ("yt_example", [f["dump"], "--axis", "w"]),
            ("yt_example", [f["dump"], "--axis", "x"], ["--axis x", "2D dump"])]
    out += [("plot_load", []), ("plot_load", ["--bogus", f["history"]])]
    out += [("plot_load", [f[k]]) for k in files + ["dump", "bad_row"]]
    out += [("plot_load", [f["history"], "--labels", "a", "b"]),
            ("plot_load", [f["history"], "--max-curves", "0"]),
            ("plot_load", [f["history"], "-o", f["unwritable"]]),
            ("plot_load", [f["history"], "-o", f["bad_format"]], ["-o ", "format 'foo'"]),
            ("plot_load", [f["history"], "-o", f["dir"]], ["-o ", "a directory"])]
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
    # bench_app_balancers: an override after --balancer was taken for a balancer name,
    # and nothing was checked before the runs ("skipped: ----", exit code 0).
    out += [("bench_app_balancers", ["--build", build] + one +
             ["--balancer", "lan_distributed", "knapsack", "time.max_step=4"],
             ["--balancer time.max_step=4: a key=value override, not a balancer",
              "before --balancer, or after `--`"]),
            ("bench_app_balancers", ["--build", build] + one +
             ["amr.nosuch=1", "--balancer", "knapsack"],
             ["balancer knapsack:", "patchwork --check --ranks 1, no run started",
              'argument "amr.nosuch=1": amr.nosuch: unknown key']),
            ("bench_app_balancers", ["--build", build] + one + ["--balancer", "nosuch"],
             ["balancer nosuch:", "unknown balancer 'nosuch'"]),
            ("bench_app_balancers", ["--build", build] + one +
             ["--balancer", "lan", "--", "balance.method=sfc"],
             ["balance.method is set by --balancer"]),
            # the dumps are what bench_dump measures (output.write=false: KeyError 'output')
            ("bench_dump", ["--build", build] + one + ["output.write=false",
                                                       "time.max_step=2"],
             ["output.write is set by the benchmark"])]
    out += [("bench_dump", ["--build", build] + one + ["output.interval=2"],
             ["output.interval is set by --interval"]),
            ("bench_dump", ["--build", build] + one + ["--dir", f["text"]],
             [f"--dir {f['text']}: not a directory"]),
            ("bench_advection", ["--build", build] + one + ["--out", f["text"]],
             [f"--out {f['text']}: not a directory"])]
    assert os.path.exists(exe), exe
    return out


def warnings(f):
    """(tool, arguments, expected parts): runs that succeed (exit code 0) with one warning
    line on stderr."""
    out = []
    for tool in ("plot_slice", "yt_example"):
        png = os.path.join(f["dir"], f"nan_{tool}.png")
        out.append((tool, [f["dump_nan"], "-o", png], ["warning: ", "1 value is NaN or "
                                                       "infinite", "level_"]))
    return out


def check_warning(tools, tool, args, expected):
    """One run that must succeed with exactly one line `TOOL: warning: ...` on stderr
    (holding each of `expected`). Returns what was wrong, or None."""
    cmd = [sys.executable, os.path.join(tools, tool)] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    lines = p.stderr.splitlines()
    print(f"{tool} {' '.join(args)} -> {p.returncode}: {p.stderr.strip()}")
    if p.returncode != 0:
        return f"exit code {p.returncode}, expected 0"
    if len(lines) != 1 or not lines[0].startswith(f"{tool}: warning: "):
        return f"{len(lines)} lines on stderr, expected one '{tool}: warning: ...'"
    missing = [e for e in expected if e not in lines[0]]
    return f"the line does not say {missing[0]!r}" if missing else None


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
        f = inputs(work, run_dir, build)
        todo = cases(f, build)
        # Every Python tool has cases: a new tool must be added here.
        untested = sorted(set(scripts) - {t for t, *_ in todo})
        assert not untested, f"tools without cases: {untested}"
        bad = [(t, a, why) for t, a, *e in todo
               if (why := check(tools, t, a, *e)) is not None]
        # What a refused output must not leave behind.
        for left in (os.path.dirname(f["no_dir"]), f["dir"] + ".png"):
            if os.path.exists(left):
                bad.append(("-o", [left], "written or created although refused"))
                if os.path.isfile(left):  # beside the temporary directory
                    os.remove(left)
        more = warnings(f)
        bad += [(t, a, why) for t, a, e in more
                if (why := check_warning(tools, t, a, e)) is not None]
        todo += more
    for t, a, why in bad:
        print(f"FAIL: {t} {' '.join(a)}: {why}")
    print(f"{len(todo) - len(bad)} of {len(todo)} cases answered with one line")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
