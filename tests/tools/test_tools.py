#!/usr/bin/env python3
"""The tools/ scripts work on a run's output: each answers --help, and on the dumps and
load histories of runs at 1 and 2 ranks (directories given) writes a PNG that is not blank
(more than a few kB, and not one uniform colour). Usage:

  test_tools.py CHECK TOOLS_DIR RUN_DIR...   (CHECK: plot_slice, plot_load,
                                              plot_load_vs_ranks, yt_example)

Exits 77 (ctest's skip code) with the reason when a Python package the script needs is
absent."""
import glob
import os
import subprocess
import sys

SKIP = 77
NEEDS = {"plot_slice": ["h5py", "numpy", "matplotlib"],
         "plot_load": ["numpy", "matplotlib"],
         "plot_load_vs_ranks": ["numpy", "matplotlib"],
         "yt_example": ["yt", "matplotlib"]}


def run(args):
    """Run a tool with this Python (the one that has the packages); fail on an error."""
    p = subprocess.run([sys.executable] + args, capture_output=True, text=True)
    print(f"$ {' '.join(args)}\n{p.stdout}{p.stderr}", end="")
    assert p.returncode == 0, f"{args[0]} exited with {p.returncode}"
    return p.stdout


def check_png(path):
    import numpy as np
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    assert os.path.isfile(path), f"{path} not written"
    size = os.path.getsize(path)
    assert size > 10000, f"{path}: only {size} bytes"
    img = mpimg.imread(path)
    colours = np.unique(img.reshape(-1, img.shape[-1]), axis=0)
    assert len(colours) > 16, f"{path}: {len(colours)} colours, nearly blank"
    print(f"{path}: {size} bytes, {img.shape[1]}x{img.shape[0]}, {len(colours)} colours")


def last_dump(run_dir):
    dumps = sorted(glob.glob(os.path.join(run_dir, "plt_?????.h5")))
    assert dumps, f"no dump in {run_dir}"
    return dumps[-1]


def history(run_dir):
    path = os.path.join(run_dir, "plt_load.csv")
    assert os.path.isfile(path), f"no load history {path}"
    return path


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in NEEDS:
        sys.exit(__doc__)
    check, tools, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
    for module in NEEDS[check]:
        try:
            __import__(module)
        except ImportError as e:
            print(f"skipped: {sys.executable} has no {module} ({e}); install python3-"
                  f"{module} (Debian) or point PW_PYTHON3 at a Python that has it")
            sys.exit(SKIP)
    script = os.path.join(tools, "plot_load" if check.startswith("plot_load") else check)
    assert "usage:" in run([script, "--help"])
    out = f"{check}.png"
    if os.path.exists(out):
        os.remove(out)
    if check == "plot_slice":
        run([script, last_dump(runs[-1]), "-o", out])
    elif check == "plot_load":
        run([script, history(runs[-1]), "-o", out])
        check_png(out)
        out = "plot_load_compare.png"
        run([script] + [history(r) for r in runs] + ["--x", "time", "-o", out])
    elif check == "plot_load_vs_ranks":
        run([script] + [history(r) for r in runs] + ["--vs-ranks", "-o", out])
    elif check == "yt_example":
        text = run([script, last_dump(runs[-1]), "-o", out])
        assert "3 levels" in text and "level 2:" in text, text
    check_png(out)


if __name__ == "__main__":
    main()
