"""The figures of tools/plot_sweep that redraw seeds 001, 002 and 004, each with the table
of the values it plots. `series` is {line name: {ranks: [finished runs' rows]}} as
plot_sweep reads it; every plotted value is a median over the runs of one configuration.

  distributed  seed 001 (Lan & Taylor): wall time against the emulated inter-group
               latency (ranks.latency) and the slowdown of the slow ranks
               (ranks.slowdown), one line per balancer (lan, lan_distributed)
  est_balance  seed 002 (Morris, Tables 1-2): the estimated load balance (ideal / max
               work, %, averaged over the run) per rank count, one column per line
  patches      seed 004 (Luitjens et al.): wall time and the balancer's own time per
               balancing step against the patches handed to it (sfc, zoltan_rcb, ...)
"""
import statistics

EMULATION = {"latency_s": ("latency", 1e3, "emulated inter-group latency (ms)"),
             "slowdown": ("slowdown", 1.0, "slowdown of the slow ranks (x)")}


def _median(rows, col):
    return statistics.median(float(r[col]) for r in rows)


def _groups(series, key):
    """{(name, ranks, key(row)): [rows]} over every line and rank count."""
    out = {}
    for name, by_ranks in series.items():
        for p, rows in by_ranks.items():
            for r in rows:
                k = key(r)
                if k is not None:
                    out.setdefault((name, p, k), []).append(r)
    return out


def _label(name, p, several_ranks, extra=""):
    return name + (f", {p} ranks" if several_ranks else "") + extra


def distributed_table(series, reference):
    """[(ranks, latency_s, slowdown, name, median wall s, runs, / the reference's)], the
    last empty where the reference has no run of that configuration."""
    groups = _groups(series, lambda r: (float(r["latency_s"]), float(r["slowdown"])))
    wall = {k: _median(rows, "wall_s") for k, rows in groups.items()}
    table = []
    for (name, p, (lat, slow)), t in sorted(wall.items(), key=lambda kv: (
            kv[0][1], kv[0][2], kv[0][0])):
        ref = wall.get((reference, p, (lat, slow)))
        table.append((p, lat, slow, name, t, len(groups[(name, p, (lat, slow))]),
                      t / ref if ref else ""))
    return table


def distributed_figure(series, by, reference):
    """Two panels: wall time against latency, and against slowdown. A line is one
    balancer (and rank count, and value of the other emulation key, when these vary)."""
    import matplotlib.pyplot as plt
    table = distributed_table(series, reference)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    several_ranks = len({t[0] for t in table}) > 1
    for ax, (col, other) in zip(axes, [("latency_s", "slowdown"), ("slowdown", "latency_s")]):
        _, scale, xlabel = EMULATION[col]
        oname, oscale, _ = EMULATION[other]
        ounit = " ms" if other == "latency_s" else "x"
        several_other = len({t[2 if other == "slowdown" else 1] for t in table}) > 1
        lines = {}
        for p, lat, slow, name, t, _, _ in table:
            x, o = (lat, slow) if col == "latency_s" else (slow, lat)
            extra = f", {oname} {o * oscale:g}{ounit}" if several_other else ""
            lines.setdefault(_label(name, p, several_ranks, extra), []).append((x, t))
        for label, pts in sorted(lines.items()):
            pts.sort()
            ax.plot([x * scale for x, _ in pts], [t for _, t in pts], marker="o",
                    label=label)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("wall time (s)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small", title=by if by != "balancer" else None)
    fig.tight_layout()
    return fig


def est_balance_table(series):
    """(names, [(ranks, [median est_balance_pct or "" per name])])."""
    names = sorted(series)
    ranks = sorted({p for by_ranks in series.values() for p in by_ranks})
    return names, [(p, [_median(series[n][p], "est_balance_pct") if p in series[n] else ""
                        for n in names]) for p in ranks]


def est_balance_markdown(series, by):
    names, rows = est_balance_table(series)
    out = [f"| processors | {' | '.join(names)} |",
           "| ---: | " + " | ".join("---:" for _ in names) + " |"]
    for p, vals in rows:
        out.append(f"| {p} | " + " | ".join("" if v == "" else f"{v:.4f}" for v in vals)
                   + " |")
    return (f"Estimated load balance (%): ideal / maximum work per rank, averaged over the "
            f"balancing steps; columns: {by}\n\n" + "\n".join(out) + "\n")


def est_balance_figure(series, by):
    import matplotlib.pyplot as plt
    names, rows = est_balance_table(series)
    width = 0.8 / len(names)
    fig, ax = plt.subplots(figsize=(max(5, 0.5 * len(rows) * len(names) + 2), 3.6))
    for i, name in enumerate(names):
        pts = [(x, vals[i]) for x, (_, vals) in enumerate(rows) if vals[i] != ""]
        ax.bar([x + (i - (len(names) - 1) / 2) * width for x, _ in pts],
               [v for _, v in pts], width, label=name)
    ax.axhline(100.0, color="k", lw=0.8)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([str(p) for p, _ in rows])
    ax.set_xlabel("processors (MPI ranks)")
    ax.set_ylabel("estimated load balance (%)")
    ax.set_ylim(0, 105)
    ax.legend(fontsize="small", title=by, loc="lower left")
    fig.tight_layout()
    return fig


def patches_table(series):
    """[(ranks, name, patches, median wall s, median plan_ms, runs)] of the runs with a
    balancing step, by rank count, line and patch count."""
    groups = _groups(series, lambda r: float(r["patches"]) if r.get("patches") else None)
    return [(p, name, n, _median(rows, "wall_s"), _median(rows, "plan_ms"), len(rows))
            for (name, p, n), rows in sorted(groups.items(), key=lambda kv: (
                kv[0][1], kv[0][0], kv[0][2]))]


def patches_figure(series, by):
    """Two panels against the patch count: the run's wall time, and the balancer's time
    per balancing step."""
    import matplotlib.pyplot as plt
    table = patches_table(series)
    fig, (ax_t, ax_b) = plt.subplots(1, 2, figsize=(9, 3.6))
    several_ranks = len({t[0] for t in table}) > 1
    lines = {}
    for p, name, n, wall, plan, _ in table:
        lines.setdefault(_label(name, p, several_ranks), []).append((n, wall, plan))
    for label, pts in sorted(lines.items()):
        ax_t.plot([n for n, _, _ in pts], [w for _, w, _ in pts], marker="o", label=label)
        ax_b.plot([n for n, _, _ in pts], [b for _, _, b in pts], marker="o", label=label)
    xs = [t[2] for t in table]
    for ax in (ax_t, ax_b):
        if xs and max(xs) > 8 * min(xs):
            ax.set_xscale("log")
        ax.set_xlabel("patches per balancing step (mean)")
        ax.grid(True, alpha=0.3)
    ax_t.set_ylabel("wall time (s)")
    ax_b.set_ylabel("balancer time per balancing step (ms)")
    ax_t.legend(fontsize="x-small", title=by if by != "balancer" else None)
    fig.tight_layout()
    return fig
