"""The sweep file (TOML) and the runs it expands to.

A sweep file names the deck(s), the axes (rank counts, any deck key, repeats), fixed
overrides and the launcher; see tools/README.md ("sweep") for every key. Decks are
relative to the file itself; the output directory to where the sweep is run.
"""
import itertools
import json
import math
import os
import re
import shlex
import tomllib
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUMMARY_PREFIX = "run"  # output.prefix of every run: the summary is DIR/run_summary.json
LAUNCHERS = ("local", "slurm", "pbs", "flux")
TOP_KEYS = {"decks", "ranks", "repeats", "set", "axes", "weak", "out", "launcher", "name"}
LAUNCHER_KEYS = {"kind", "executable", "mpirun", "threads", "tasks_per_node", "time",
                 "account", "partition", "array", "setup", "directives"}


# Each run's output.dir (OUT/runs/RUN_ID) and output.prefix (run) are the sweep's.
OWN_KEYS = ("output.dir", "output.prefix")
OWN_WHY = ("output.dir and output.prefix are the sweep's own: each run writes to "
           "OUT/runs/RUN_ID with prefix \"run\", where collect finds its summary "
           "(--out, or out in the file, sets OUT)")


class SweepError(Exception):
    """A mistake in the sweep file or the command line: one line, no traceback."""


@dataclass
class Launcher:
    kind: str = "local"
    executable: str = ""
    mpirun: str = ""           # command before the executable; {ranks} and {threads} filled
    threads: int = 1           # OMP_NUM_THREADS = cpus per task
    tasks_per_node: int = 0    # 0: every rank on one node
    time: int = 600            # seconds per run
    account: str = ""
    partition: str = ""        # slurm partition, PBS queue
    array: bool = False        # one array task per run instead of one job per rank count
    setup: list = field(default_factory=list)       # shell lines before the runs
    directives: list = field(default_factory=list)  # extra scheduler directive lines

    def nodes(self, ranks):
        return 1 if self.tasks_per_node <= 0 else math.ceil(ranks / self.tasks_per_node)


@dataclass
class Run:
    run_id: str
    deck: str            # absolute path
    ranks: int
    repeat: int
    axes: dict           # axis name -> value (TOML value), the deck key axes only
    overrides: list      # key=value, in order: fixed, axes, weak n_cell, output
    out_dir: str         # the run's output.dir (absolute)
    command: list = field(default_factory=list)

    @property
    def summary(self):
        return os.path.join(self.out_dir, SUMMARY_PREFIX + "_summary.json")

    @property
    def log(self):
        return os.path.join(self.out_dir, "log.txt")


@dataclass
class Sweep:
    name: str
    path: str
    out: str
    runs: list
    launcher: Launcher
    axis_names: list     # deck keys that vary, in file order


def toml_value(v):
    """The deck's command-line spelling of a TOML value (a bare word for simple strings)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v) and v not in ("true", "false", "inf",
                                                                   "nan"):
            return v
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise SweepError(f"cannot pass {v!r} as a deck value")


def parse_time(v, where):
    """Seconds from an integer (minutes) or "[D-]HH:MM:SS" / "MM:SS", minutes and seconds
    below 60 (hours below 24 after days): a time the batch systems would read otherwise,
    or not at all, is refused, not rewritten."""
    want = ("expected minutes (an integer > 0) or \"HH:MM:SS\" (also \"D-HH:MM:SS\", "
            "\"MM:SS\"; minutes and seconds 0-59)")
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        return 60 * v
    if isinstance(v, str):
        m = re.fullmatch(r"(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)", v.strip())
        if m:
            d, h, mi, s = (int(x) if x else 0 for x in m.groups())
            if mi >= 60 or s >= 60:
                raise SweepError(f"{where}: {want}, got {v!r}: minutes and seconds must "
                                 "be below 60")
            if m.group(1) and h >= 24:
                raise SweepError(f"{where}: {want}, got {v!r}: hours after days must be "
                                 "below 24")
            if m.group(1) and not m.group(2):
                raise SweepError(f"{where}: {want}, got {v!r}")
            if d * 86400 + h * 3600 + mi * 60 + s > 0:
                return d * 86400 + h * 3600 + mi * 60 + s
    raise SweepError(f"{where}: {want}, got {v!r}")


def _positive_ints(v, where):
    if not isinstance(v, list):
        v = [v]
    if not v or any(not isinstance(x, int) or isinstance(x, bool) or x < 1 for x in v):
        raise SweepError(f"{where}: expected a list of integers >= 1, got {v!r}")
    return v


def read_launcher(d, where, kind=None):
    """[launcher]: keys for every kind, and [launcher.KIND] tables whose keys apply to
    that kind only (e.g. mpirun for local, a partition for slurm)."""
    if not isinstance(d, dict):
        raise SweepError(f"{where}: launcher: expected a table ([launcher], with kind = "
                         f"\"slurm\" say), got {d!r}")
    d = dict(d)
    per_kind = {k: d.pop(k) for k in LAUNCHERS if isinstance(d.get(k), dict)}
    kind = kind or d.get("kind", "local")
    if not isinstance(kind, str) or kind not in LAUNCHERS:
        raise SweepError(f"{where}: launcher.kind: expected one of {', '.join(LAUNCHERS)}, "
                         f"got {kind!r}")
    d.update(per_kind.get(kind, {}))
    unknown = set(d) - LAUNCHER_KEYS
    if unknown:
        raise SweepError(f"{where}: unknown key launcher.{sorted(unknown)[0]} "
                         f"(known: {', '.join(sorted(LAUNCHER_KEYS))})")
    la = Launcher()
    la.kind = kind
    build = os.environ.get("PATCHWORK_BUILD", os.path.join(ROOT, "build"))
    la.executable = os.path.join(build, "app", "patchwork")
    default_mpirun = {"local": "mpirun -np {ranks}", "slurm": "srun -n {ranks} -c {threads}",
                      "pbs": "mpiexec -n {ranks}", "flux": "flux run -n {ranks} -c {threads}"}
    def get(key, kind, default):
        v = d.get(key, default)
        is_int = isinstance(v, int) and not isinstance(v, bool)
        ok = {"int": is_int and v >= 0, "count": is_int and v >= 1,
              "str": isinstance(v, str), "bool": isinstance(v, bool),
              "lines": isinstance(v, list) and all(isinstance(x, str) for x in v)}[kind]
        if not ok:
            want = {"int": "an integer >= 0", "count": "an integer >= 1",
                    "str": "a string", "bool": "true or false",
                    "lines": "a list of strings"}[kind]
            raise SweepError(f"{where}: launcher.{key}: expected {want}, got {v!r}")
        return v

    la.executable = get("executable", "str", la.executable)
    la.mpirun = get("mpirun", "str", default_mpirun[la.kind])
    la.threads = get("threads", "count", 1)
    la.tasks_per_node = get("tasks_per_node", "int", 0)
    la.time = parse_time(d.get("time", 10), f"{where}: launcher.time")
    la.account = _scheduler_name(get("account", "str", ""), f"{where}: launcher.account")
    la.partition = _scheduler_name(get("partition", "str", ""),
                                   f"{where}: launcher.partition")
    la.array = get("array", "bool", False)
    la.setup = get("setup", "lines", [])
    la.directives = get("directives", "lines", [])
    try:
        la.mpirun.format(ranks=1, threads=1)
    except (KeyError, IndexError, ValueError) as e:
        raise SweepError(f"{where}: launcher.mpirun: only {{ranks}} and {{threads}} can be "
                         f"filled in ({e})")
    try:
        shlex.split(la.mpirun)
    except ValueError as e:  # e.g. an unclosed quote
        raise SweepError(f"{where}: launcher.mpirun: expected a command line (shell "
                         f"words), got {la.mpirun!r}: {e}") from None
    if la.array and la.kind == "flux":
        raise SweepError(f"{where}: launcher.array: flux batch has no job arrays; "
                         "leave it false (runs go one after another in one job)")
    return la


def _scheduler_name(v, where):
    """An account or partition as the directive lines take it: one word, no quotes (a
    space would split the directive; sbatch and qsub do not read quotes there)."""
    if re.search(r"[\s'\"\\]", v):
        raise SweepError(f"{where}: expected a scheduler name without spaces or quotes, "
                         f"got {v!r}")
    return v


def _twice(values, where):
    """SweepError naming the first value of `values` (spelt as in a sweep file) given
    twice: its runs would share a directory."""
    seen = set()
    for v in values:
        if v in seen:
            raise SweepError(f"{where}: {v} is given twice (its runs would share a "
                             "directory); keep one")
        seen.add(v)


def _n_cell(deck, overrides):
    """domain.n_cell as the run would see it (the last override wins over the deck)."""
    try:
        for o in reversed(overrides):
            key, _, value = o.partition("=")
            if key.strip() == "domain.n_cell":
                return tomllib.loads("v = " + value)["v"]
        with open(deck, "rb") as f:
            return tomllib.load(f).get("domain", {}).get("n_cell")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SweepError(f"{deck}: weak scaling cannot read domain.n_cell: {e}")
    except OSError as e:
        raise SweepError(f"{deck}: {e.strerror}")


def weak_n_cell(n_cell, factor):
    """n_cell with factor times the cells: each prime factor multiplies the smallest
    direction (the first of equal ones), so blocking-factor multiples stay multiples and
    the domain stays as cubic as it can."""
    n = list(n_cell)
    p = 2
    while factor > 1:
        while factor % p == 0:
            i = min(range(len(n)), key=lambda k: (n[k], k))
            n[i] *= p
            factor //= p
        p += 1
    return n


def _run_id(deck, ranks, axes, repeat):
    parts = [os.path.splitext(os.path.basename(deck))[0], f"np{ranks}"]
    for k, v in axes.items():
        parts.append(f"{k}-{v if isinstance(v, str) else toml_value(v)}")
    parts.append(f"r{repeat}")
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", "__".join(parts)).strip("_")


def load(path, out=None, weak=None, kind=None, ranks=None):
    """Read a sweep file and expand its runs. `out`, `weak`, `kind`, `ranks`: command-line
    values that win over the file's."""
    try:
        with open(path, "rb") as f:
            d = tomllib.load(f)
    except OSError as e:
        raise SweepError(f"{path}: {e.strerror}")
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{path}: not a sweep file (TOML): {e}")
    except UnicodeDecodeError:  # a binary file: tomllib decodes before it parses
        raise SweepError(f"{path}: not a sweep file (not text; expected TOML)") from None
    here = os.path.dirname(os.path.abspath(path))
    unknown = set(d) - TOP_KEYS
    if unknown:
        raise SweepError(f"{path}: unknown key {sorted(unknown)[0]} "
                         f"(known: {', '.join(sorted(TOP_KEYS))})")
    decks = d.get("decks")
    if isinstance(decks, str):
        decks = [decks]
    if not isinstance(decks, list) or not decks or not all(isinstance(x, str) and x
                                                           for x in decks):
        raise SweepError(f"{path}: decks: expected a deck file or a list of them, got "
                         f"{decks!r}")
    decks = [os.path.normpath(os.path.join(here, x)) for x in decks]
    for x in decks:
        if not os.path.isfile(x):
            raise SweepError(f"{path}: decks: no such file {x}")
    _twice(decks, f"{path}: decks")
    where = f"{path}: ranks" if ranks is None else "--ranks"
    ranks = _positive_ints(d.get("ranks", [1]) if ranks is None else ranks, where)
    _twice(ranks, where)
    repeats = d.get("repeats", 1)
    if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 1:
        raise SweepError(f"{path}: repeats: expected an integer >= 1 (the runs per "
                         f"configuration), got {repeats!r}")
    fixed = d.get("set", [])
    if not isinstance(fixed, list) or not all(isinstance(x, str) and "=" in x for x in fixed):
        raise SweepError(f"{path}: set: expected a list of \"key=value\" strings")
    _check_own_keys(fixed, f"{path}: set")
    axes = d.get("axes", {})
    if not isinstance(axes, dict):
        raise SweepError(f"{path}: axes: expected a table of deck key = [values]")
    axes = _flatten(axes, path)
    for k, v in axes.items():
        if not isinstance(v, list) or not v:
            raise SweepError(f"{path}: axes.{k}: expected a non-empty list of values")
        _check_variants(k, v, path)
        if not all(isinstance(x, dict) for x in v):
            _twice([toml_value(x) for x in v], f"{path}: axes.{k}")
        if k in OWN_KEYS:
            raise SweepError(f"{path}: axes.{k}: {OWN_WHY}")
        if k.startswith("output."):
            raise SweepError(f"{path}: axes.{k}: output.dir and output.prefix are the "
                             "sweep's; put other output keys under set")
    _check_twice(fixed, axes, path)
    if weak is None:
        weak = d.get("weak", False)
        if not isinstance(weak, bool):
            raise SweepError(f"{path}: weak: expected true or false, got {weak!r}")
    if weak and "domain.n_cell" in axes:
        raise SweepError(f"{path}: weak scaling sets domain.n_cell; it cannot be an axis")
    launcher = read_launcher(d.get("launcher", {}), path, kind)
    if os.sep in launcher.executable:  # a path: relative to the file, as the decks
        launcher.executable = os.path.normpath(os.path.join(here, launcher.executable))
    # Outputs go where the command runs, not beside the sweep file (often in the sources).
    if out is None:
        out = d.get("out", "sweep_" + os.path.splitext(os.path.basename(path))[0])
        if not isinstance(out, str) or not out.strip():
            raise SweepError(f"{path}: out: expected a directory (a non-empty string), "
                             f"got {out!r}")
    elif not out.strip():
        raise SweepError("--out: expected a directory, got an empty string")
    out = os.path.abspath(out)
    base_ranks = min(ranks)
    if weak and any(r % base_ranks for r in ranks):
        raise SweepError(f"{path}: weak scaling needs rank counts that are multiples of the "
                         f"smallest ({base_ranks})")
    runs = []
    names = list(axes)
    for deck in decks:
        for values in itertools.product(*(axes[k] for k in names)):
            point = {k: v["name"] if isinstance(v, dict) else v
                     for k, v in zip(names, values)}
            axis_overrides = [o for k, v in zip(names, values) for o in (
                v["set"] if isinstance(v, dict) else [f"{k}={toml_value(v)}"])]
            for r in ranks:
                for rep in range(repeats):
                    o = list(fixed) + axis_overrides
                    if weak:  # the given n_cell (or the deck's) times the factor
                        n = _n_cell(deck, o)
                        if not isinstance(n, list):
                            raise SweepError(f"{deck}: weak scaling needs domain.n_cell")
                        o = [x for x in o if override_key(x) != "domain.n_cell"]
                        o.append(f"domain.n_cell={toml_value(weak_n_cell(n, r // base_ranks))}")
                    rid = _run_id(deck, r, point, rep)
                    run_dir = os.path.join(out, "runs", rid)
                    o += [f"output.dir={toml_value(run_dir)}",
                          f"output.prefix={SUMMARY_PREFIX}"]
                    runs.append(Run(rid, deck, r, rep, point, o, run_dir))
    _check_ids(runs, path)
    for x in runs:
        x.command = command(launcher, x)
    name = d.get("name", os.path.splitext(os.path.basename(path))[0])
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
        if "name" not in d:  # the file's own name stands in: say so
            raise SweepError(f"{path}: the sweep file's name {name!r} names its jobs and "
                             "their scripts, but has characters other than letters, digits "
                             "and _.+-: rename the file or set name = \"...\" in it")
        raise SweepError(f"{path}: name: expected letters, digits and _.+- (it names the "
                         f"jobs and their scripts), got {name!r}")
    return Sweep(name, os.path.abspath(path), out, runs, launcher, names)


def _check_ids(runs, path):
    """SweepError naming two runs whose ids (directories) are the same: values that
    differ only in characters a directory name leaves out (e.g. "a/b" and "a_b")."""
    first = {}
    for x in runs:
        if x.run_id in first:
            a, b = (", ".join([os.path.basename(r.deck), f"ranks {r.ranks}"] +
                              [f"{k}={v if isinstance(v, str) else toml_value(v)}"
                               for k, v in r.axes.items()]) for r in (first[x.run_id], x))
            raise SweepError(f"{path}: runs ({a}) and ({b}) would share the directory "
                             f"runs/{x.run_id}; make the decks' or the axes' values differ "
                             "in their names")
        first[x.run_id] = x


def override_key(o):
    """The key of a "key=value" override, as the executable reads it."""
    return o.split("=", 1)[0].strip()


def _check_own_keys(overrides, where):
    for o in overrides:
        if override_key(o) in OWN_KEYS:
            raise SweepError(f"{where}: \"{o}\": {OWN_WHY}")


def _check_twice(fixed, axes, path):
    """No key given twice on a run's command line: by set twice, by set and an axis, by
    two axes, or twice in one variant (the executable refuses a key given twice)."""
    seen = {}  # key -> where it is set
    def add(key, where):
        if key in seen and seen[key] != where:
            raise SweepError(f"{path}: {seen[key]} and {where} both set {key}: a run "
                             "takes one value per key; keep one of them")
        seen[key] = where
    for o in fixed:
        k = override_key(o)
        if k in seen:
            raise SweepError(f"{path}: set: {k} is given twice; keep one of them")
        add(k, "set")
    for name, values in axes.items():
        if not all(isinstance(v, dict) for v in values):
            add(name, f"axes.{name}")
            continue
        for v in values:
            keys = [override_key(o) for o in v["set"]]
            twice = sorted({k for k in keys if keys.count(k) > 1})
            if twice:
                raise SweepError(f"{path}: axes.{name}: variant {v['name']!r} gives "
                                 f"{twice[0]} twice; keep one of them")
            for k in keys:
                add(k, f"axes.{name}")


def _check_variants(key, values, path):
    """An axis is deck values, or variants: {name = "...", set = ["key=value", ...]}, each
    a named set of overrides (the axis is then a column name, not a deck key)."""
    tables = [isinstance(v, dict) for v in values]
    if any(tables) and not all(tables):
        raise SweepError(f"{path}: axes.{key}: give either deck values or variants "
                         "({name = ..., set = [...]}), not both")
    for v in values if all(tables) else []:
        ok = (set(v) == {"name", "set"} and isinstance(v["name"], str) and v["name"]
              and isinstance(v["set"], list)
              and all(isinstance(x, str) and "=" in x for x in v["set"]))
        if not ok:
            raise SweepError(f"{path}: axes.{key}: a variant is {{name = \"...\", set = "
                             f"[\"key=value\", ...]}}, got {v!r}")
    for v in values if all(tables) else []:
        _check_own_keys(v["set"], f"{path}: axes.{key}: variant {v['name']!r}")
    names = [v["name"] for v in values] if all(tables) else []
    if len(set(names)) != len(names):
        raise SweepError(f"{path}: axes.{key}: two variants share a name")


def _flatten(t, path, prefix="", spelt=None):
    """{"balance": {"method": [...]}} and {"balance.method": [...]} alike; the same key
    both ways is an error (TOML lets both through: one would be dropped)."""
    out = {}
    spelt = {} if spelt is None else spelt  # flat key -> how the file wrote it
    for k, v in t.items():
        if isinstance(v, dict):
            out.update(_flatten(v, path, prefix + k + ".", spelt))
            continue
        where = f"[axes{'.' + prefix[:-1] if prefix else ''}] {json.dumps(k)}"
        if prefix + k in spelt:
            raise SweepError(f"{path}: axes: {spelt[prefix + k]} and {where} are both "
                             f"axis {prefix + k}; keep one of them")
        spelt[prefix + k] = where
        out[prefix + k] = v
    return out


def command(launcher, run):
    """The run's command line, as a list of words."""
    pre = launcher.mpirun.format(ranks=run.ranks, threads=launcher.threads)
    return shlex.split(pre) + [launcher.executable, run.deck] + run.overrides
