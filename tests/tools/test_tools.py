#!/usr/bin/env python3
"""The tools/ scripts work on a run's output: each answers --help, and on the dumps and
load histories of runs at 1 and 2 ranks (directories given) writes a PNG that is not blank
(more than a few kB, and not one uniform colour). plot_slice_prob_lo: the dump in
./prob_lo (a domain [-1, 0] x [2, 4] of cells twice as tall as wide, the blob at
(-0.5, 2.75)) is drawn in physical coordinates: the axes and the patches span the domain,
and a refined patch holds the blob.
Usage:

  test_tools.py CHECK TOOLS_DIR RUN_DIR...   (CHECK: plot_slice, plot_slice_prob_lo,
                                              plot_load, plot_load_vs_ranks, yt_example)

Exits 77 (ctest's skip code) with the reason when a Python package the script needs is
absent."""
import glob
import importlib.machinery
import os
import subprocess
import sys

SKIP = 77
NEEDS = {"plot_slice": ["h5py", "numpy", "matplotlib"],
         "plot_slice_prob_lo": ["h5py", "numpy", "matplotlib"],
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


def check_prob_lo(script, dump, out):
    """plot_slice's figure of a dump whose domain is [-1, 0] x [2, 4]."""
    import types
    loader = importlib.machinery.SourceFileLoader("plot_slice", script)
    tool = types.ModuleType(loader.name)
    tool.__file__ = script
    loader.exec_module(tool)
    fig = tool.make_figure(tool.parse_args([dump]))
    ax = fig.axes[0]
    assert ax.get_xlim() == (-1.0, 0.0) and ax.get_ylim() == (2.0, 4.0), (
        ax.get_xlim(), ax.get_ylim())
    ext = [im.get_extent() for im in ax.images]
    span = (min(e[0] for e in ext), max(e[1] for e in ext),
            min(e[2] for e in ext), max(e[3] for e in ext))
    assert span == (-1.0, 0.0, 2.0, 4.0), f"the patches span {span}"
    # Outlines of refined patches (zorder 100 + level): one holds the blob's centre.
    fine = [r for r in ax.patches if r.get_zorder() > 100]
    assert fine, "no refined patch outlined"
    assert any(r.get_x() <= -0.5 <= r.get_x() + r.get_width() and
               r.get_y() <= 2.75 <= r.get_y() + r.get_height() for r in fine), (
        [(r.get_x(), r.get_y()) for r in fine])
    print(f"{dump}: axes {ax.get_xlim()} x {ax.get_ylim()}, patches span {span}, "
          f"{len(fine)} refined patches around the blob")
    fig.savefig(out)


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
    script = os.path.join(tools, "plot_load" if check.startswith("plot_load") else
                          "plot_slice" if check.startswith("plot_slice") else check)
    assert "usage:" in run([script, "--help"])
    out = f"{check}.png"
    if os.path.exists(out):
        os.remove(out)
    if check == "plot_slice":
        run([script, last_dump(runs[-1]), "-o", out])
    elif check == "plot_slice_prob_lo":
        check_prob_lo(script, last_dump("prob_lo"), out)
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
