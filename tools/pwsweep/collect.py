"""`tools/sweep collect DIR...`: every run summary under the directories into one CSV, one
row per run (its axes, then its figures), and a second CSV with the medians over the
repeats of each configuration. A run that failed is a row with its error; a run of a
sweep (listed in its sweep.json) that left no summary is a row with status "missing"."""
import csv
import glob
import json
import os
import re
import statistics

MANIFEST = "sweep.json"

# Figure columns, in order. Names shared with the balance lab's CSV (balance_lab) and the
# load history (DIR/PREFIX_load.csv) mean the same there: here they are averages over
# the run's balancing steps (imbalance, std, idle_pct, est_balance_pct, uintah_i; patches,
# the patches handed to the balancer; plan_ms, the balancer's time per step) or the run's
# totals (split, bytes_migrated, balancer_ms). latency_s, slowdown and groups are the
# emulated distributed system of the deck's [ranks] (ranks.latency, ranks.slowdown, the
# number of rank groups). peak_resident_mb is the host memory of the rank with the most.
FIGURES = ["status", "error", "n_cell", "steps", "finest_level", "regrids", "wall_s", "wall_s_min",
           "cell_updates", "cell_updates_per_s", "balancer", "balancing_steps",
           "imbalance", "std", "idle_pct", "est_balance_pct", "uintah_i", "patches",
           "split", "bytes_migrated", "cut_cells", "balancer_ms", "plan_ms", "groups",
           "latency_s", "slowdown", "fingerprint", "hosts", "exec_space", "threads",
           "peak_resident_mb", "code_version"]


def figures(s):
    """The figure columns of one summary (a dict); a summary without the fields of
    schema version 1 is "unreadable"."""
    try:
        return _figures(s)
    except (KeyError, TypeError, AttributeError) as e:
        why = (f"summary without {e}" if isinstance(e, KeyError) else
               f"summary with a field of another kind than schema version 1's ({e})")
        return {"status": "unreadable", "error": why,
                "code_version": s.get("code_version", "") if isinstance(s, dict) else ""}


def _figures(s):
    row = {"status": s.get("status"), "error": s.get("error") or "",
           "code_version": s.get("code_version", ""),
           "n_cell": s.get("deck", {}).get("used", {}).get("domain.n_cell", "")}
    if s.get("status") != "ok":
        return row
    run, bal, mean = s["run"], s["balance"], s["balance"]["mean"]
    used = s["deck"]["used"]
    row.update({
        "steps": run["steps"], "finest_level": run["finest_level"],
        "regrids": run["regrids"], "wall_s": s["wall_seconds"]["max"],
        "wall_s_min": s["wall_seconds"]["min"], "cell_updates": s["cell_updates"],
        "cell_updates_per_s": s["cell_updates_per_second"], "balancer": bal["method"],
        "balancing_steps": bal["balancing_steps"], "imbalance": mean["imbalance_ratio"],
        "std": mean["avg_std"], "idle_pct": 100 * mean["idle_procs"],
        "est_balance_pct": 100 * mean["estimated_balance"], "uintah_i": mean["uintah_i"],
        "split": bal["patches_split"], "bytes_migrated": bal["bytes_migrated"],
        "cut_cells": bal["mean_cut_cells"], "balancer_ms": 1e3 * bal["balancer_seconds"],
        "patches": _mean(st["patches"] for st in bal["steps"]),
        "plan_ms": _mean(1e3 * st["balancer_seconds"] for st in bal["steps"]),
        "groups": len(set(s["ranks"]["groups"])),
        "latency_s": used.get("ranks.latency", 0.0),
        "slowdown": used.get("ranks.slowdown", 1.0),
        "fingerprint": s["fingerprint"], "hosts": len(set(s["ranks"]["hostnames"])),
        "exec_space": s["kokkos"]["execution_space"],
        "threads": s["kokkos"]["concurrency"],
        # The rank with the most; "" for summaries written before it was recorded.
        "peak_resident_mb": (s["host_memory"]["peak_resident_bytes"]["max"] / 1e6
                             if "host_memory" in s else "")})
    # The slowest rank's time per phase, as the log's summary (phases are exclusive).
    for name, spread in s["phases"].items():
        row["phase_" + re.sub(r"\W+", "_", name) + "_s"] = spread["max"]
    return row


def _mean(values):
    """The mean of `values`, "" when there are none (a run without a balancing step)."""
    values = list(values)
    return sum(values) / len(values) if values else ""


# Lines that say why a run stopped when patchwork could not: MPI's word on a rank killed
# by a signal, the C++ runtime's and the kernel's.
# "Aborted" only opening a line (the shell's "Aborted (core dumped)"): Open MPI's banner
# "... the job has been aborted." is no reason.
STOP = re.compile(r"exited on signal|terminated by signal|terminate called|what\(\):|"
                  r"Segmentation fault|Bus error|^Aborted|out of memory|Killed", re.I)


def error_line(lines, code=None):
    """Why a run stopped, from its output `lines`: its 'patchwork: error:' message, a line
    such as MPI's "... exited on signal 9 (Killed).", or another 'patchwork: ' line but a
    warning (never a banner's rule of dashes or a progress line); else "killed or
    interrupted (exit code `code`)" when the code is known, else ""."""
    lines = [x.strip() for x in lines if re.search(r"[A-Za-z]", x)]
    for x in lines:
        if x.startswith("patchwork: error: "):
            return x[len("patchwork: error: "):]
    said = ([x for x in lines if STOP.search(x)]
            or [x for x in lines if x.startswith("patchwork: ")
                and not x.startswith("patchwork: warning: ")])
    if said:
        return said[-1]
    return f"killed or interrupted (exit code {code})" if code is not None else ""


def _log_error(log, code=None):
    """error_line() of a run's log, "" when it has none (nor `code`)."""
    try:
        with open(log, errors="replace") as f:
            return error_line(f, code)
    except OSError:
        return error_line([], code)


def _read(path):
    """The JSON object in `path`, else {"status": "unreadable", "error": why}."""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        return {"status": "unreadable", "error": f"{path}: {e}"}
    if not isinstance(d, dict):
        return {"status": "unreadable", "error": f"{path}: a JSON {type(d).__name__}, "
                "expected an object"}
    return d


def summary_path(manifest, run):
    """Where a run of `manifest` has its summary: its path relative to the manifest's
    directory ("summary_in_out"), so that a moved or copied sweep (rsync from a cluster)
    finds its own; an older manifest's absolute "summary" when the sweep's folder does
    not hold it."""
    here = os.path.dirname(os.path.abspath(manifest))
    rel = run.get("summary_in_out")
    if isinstance(rel, str) and rel and not os.path.isabs(rel):
        return os.path.normpath(os.path.join(here, rel))
    old = run["summary"]
    inside = os.path.join(here, "runs", str(run["run_id"]), os.path.basename(old))
    return inside if os.path.exists(inside) or not os.path.isabs(old) else old


def _runs(manifest):
    """The runs a sweep.json lists (dicts with the keys collect reads), else ValueError
    saying what the file is."""
    m = _read(manifest)
    runs = m.get("runs")
    keys = ("run_id", "deck", "ranks", "repeat", "axes", "summary")
    def sound(r):
        return (isinstance(r, dict) and all(k in r for k in keys)
                and isinstance(r["deck"], str) and isinstance(r["summary"], str)
                and isinstance(r["axes"], dict))
    if not (isinstance(m.get("axes"), list) and isinstance(runs, list)
            and all(sound(r) for r in runs)):
        why = m.get("error", "no runs, or runs without " + ", ".join(keys))
        raise ValueError(f"{manifest}: not a sweep's list of runs ({why})")
    return m


def _table(d, key):
    """d[key] when it is a table (dict), else {}: a summary's part it may lack."""
    v = d.get(key)
    return v if isinstance(v, dict) else {}


def gather(dirs):
    """Rows (dicts) and the axis columns, from every sweep.json and *_summary.json under
    `dirs`."""
    rows, axes, seen = [], [], set()
    for d in dirs:
        for manifest in sorted(glob.glob(os.path.join(d, "**", MANIFEST), recursive=True)):
            m = _runs(manifest)
            axes += [a for a in m["axes"] if a not in axes]
            for r in m["runs"]:
                summary = summary_path(manifest, r)
                seen.add(os.path.realpath(summary))
                row = {"run_id": r["run_id"], "deck": os.path.basename(r["deck"]),
                       "ranks": r["ranks"], "repeat": r["repeat"], **r["axes"]}
                if os.path.exists(summary):
                    row.update(figures(_read(summary)))
                else:
                    log = os.path.join(os.path.dirname(summary), "log.txt")
                    err = _log_error(log) or (
                        "no summary: killed or interrupted (its log gives no reason)"
                        if os.path.exists(log) else "no summary: not run yet, or killed")
                    row.update({"status": "missing", "error": err})
                row.update(r["axes"])  # an axis named as a figure column wins
                row["summary"] = summary
                rows.append(row)
        # Summaries of runs made outside a sweep: the axes from the summary itself.
        for summary in sorted(glob.glob(os.path.join(d, "**", "*_summary.json"),
                                        recursive=True)):
            summary = os.path.abspath(summary)
            if os.path.realpath(summary) in seen:
                continue
            seen.add(os.path.realpath(summary))
            s = _read(summary)
            deck = _table(s, "deck")
            used = _table(deck, "used")
            file = deck.get("file")
            row = {"run_id": os.path.relpath(os.path.dirname(summary), d),
                   "deck": os.path.basename(file) if isinstance(file, str) else "",
                   "ranks": _table(s, "ranks").get("count", ""), "repeat": 0}
            for a in axes:
                if a in used:
                    row[a] = used[a]
            row.update(figures(s))
            row["summary"] = summary
            rows.append(row)
    return rows, axes


def _cell(v):
    return json.dumps(v) if isinstance(v, (list, dict, bool)) else v


def _columns(rows, first):
    cols = list(first)
    for r in rows:
        cols += [k for k in r if k not in cols]
    return cols


def write_csv(path, rows, cols):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: _cell(r.get(k, "")) for k in cols})


def medians(rows, axes):
    """One row per configuration (deck, ranks, axes): the finished runs' count, the
    failed ones', and the median over repeats of every numeric figure."""
    key_cols = ["deck", "ranks"] + axes
    groups = {}
    for r in rows:
        groups.setdefault(tuple(json.dumps(r.get(k, "")) for k in key_cols), []).append(r)
    out = []
    for key, group in groups.items():
        ok = [r for r in group if r.get("status") == "ok"]
        m = {k: json.loads(v) for k, v in zip(key_cols, key)}
        m.update({"runs": len(ok), "failed": len(group) - len(ok),
                  "errors": "; ".join(sorted({r["error"] for r in group if r.get("error")}))})
        for col in _columns(ok, []):
            vals = [r[col] for r in ok if col in r]
            if col in key_cols or col == "repeat":
                continue
            if vals and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                            for v in vals):
                m[col] = statistics.median(vals)
            elif col in ("balancer", "fingerprint", "exec_space", "code_version") and vals:
                m[col] = vals[0] if len(set(vals)) == 1 else "differ: " + " ".join(
                    sorted(set(map(str, vals))))
        out.append(m)
    return out, key_cols


def collect(dirs, output, medians_output):
    """Write the tables; returns (rows, medians), both empty (nothing written) when the
    directories hold no sweep and no summary."""
    rows, axes = gather(dirs)
    if not rows:
        return [], []
    first = ["run_id", "deck", "ranks"] + axes + ["repeat"] + FIGURES
    cols = _columns(rows, first)
    cols.remove("summary")
    cols.append("summary")
    write_csv(output, rows, cols)
    med, key_cols = medians(rows, axes)
    write_csv(medians_output, med, _columns(med, key_cols + ["runs", "failed", "errors"]))
    try:  # Parquet too, when pandas with pyarrow is there
        import pandas
        import pyarrow  # noqa: F401
        pandas.read_csv(output).to_parquet(os.path.splitext(output)[0] + ".parquet")
    except ImportError:
        pass
    return rows, med
