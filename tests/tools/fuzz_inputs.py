"""A bounded fuzz run of the executables' inputs: random mutations (a fixed seed, a fixed
number of cases) of good decks through `patchwork`, of good patch files through
`balance_lab` and of a good dump through a `patchwork` restart. Every case must end
cleanly: a run that finishes (exit code 0, no NaN or
infinity among its printed figures) or one message on stderr with the input's error
(exit code 2, `NAME: error: ...`) or the run's failure (exit code 3, `patchwork: run
failed: ...`). Anything else fails the test: an internal error (4), a signal (abort,
segfault), a run past the time limit (a hang), a silent exit code 2, or several error
lines; and a restart that runs must end with the uninterrupted run's fingerprint (bytes
that no reader uses may change). A failing case is kept in the work directory, with the
command that runs it.

Every third deck case also gets a hostile `key=value` on the command line (a key of the
deck), and every fifth runs on 2 ranks when --mpiexec is given (an error must stop both
ranks: a rank left waiting is a hang).

usage: fuzz_inputs.py --patchwork EXE --lab EXE --decks DECK... --restart-deck DECK
                      --cases N --seed S --workdir DIR [--timeout SECONDS]
                      [--mpiexec "MPIEXEC FLAGS"]
"""
import argparse
import os
import random
import re
import shlex
import shutil
import subprocess
import sys

# Values a hostile or careless user types: limits, non-numbers, wrong types.
HOSTILE = ["0", "-1", "1", "2", "3", "-0.0", "1e308", "-1e308", "1e-320", "nan", "inf",
           "-inf", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
           "1e19", "0.5", "1.5", "true", "false", '""', '"x"', '"\\u0000"', "[]", "[1]",
           "[0, 0]", "[1e9, 1e9]", "[-8, 8]", "[0, 0, 0, 0]", "{}", "[[1]]", "1979-05-27",
           '"' + "a" * 300 + '"', "0x10", "1_000"]
# Garbage bytes: NUL, invalid UTF-8, a stray quote or bracket, control characters.
GARBAGE = [b"\x00", b"\xff\xfe", b'"', b"[", b"]", b"=", b"\x1b[0m", b"\r", b"\t\t",
           b"#", b"{", b"'''", b"\\"]
NUMBER = re.compile(rb"-?\d+(\.\d+)?([eE][-+]?\d+)?")


def mutate(data, rng):
    """One to three random edits of a text file's bytes."""
    for _ in range(rng.randint(1, 3)):
        lines = data.split(b"\n")
        i = rng.randrange(len(lines))
        kind = rng.randrange(9)
        if kind == 0 and b"=" in lines[i]:  # a hostile value for a key
            key = lines[i].split(b"=", 1)[0]
            lines[i] = key + b"= " + rng.choice(HOSTILE).encode()
        elif kind == 1:  # a number scaled, negated or bent
            nums = list(NUMBER.finditer(lines[i]))
            if nums:
                m = rng.choice(nums)
                v = float(m.group())
                new = rng.choice([v * 1000, v / 1000, -v, v + 1, 0, int(v * 1e6)])
                lines[i] = lines[i][: m.start()] + repr(new).encode() + lines[i][m.end():]
        elif kind == 2:
            del lines[i]
        elif kind == 3:
            lines.insert(i, lines[i])
        elif kind == 4:  # two lines swapped (a key moves to another table)
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 5 and lines[i]:  # a key or word misspelt
            k = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:k] + lines[i][k + 1:]
        elif kind == 6:
            k = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:k] + rng.choice(GARBAGE) + lines[i][k:]
        elif kind == 7:  # the file cut short
            data = b"\n".join(lines)
            return data[: rng.randrange(len(data) + 1)]
        else:  # a whole token replaced by a hostile value
            words = lines[i].split(b" ")
            words[rng.randrange(len(words))] = rng.choice(HOSTILE).encode()
            lines[i] = b" ".join(words)
        data = b"\n".join(lines)
    return data


def deck_keys(data):
    """The dotted keys of a deck's text (table.key), for command-line overrides."""
    keys, table = [], ""
    for line in data.decode(errors="replace").splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            table = line.strip("[]").strip() + "."
        elif "=" in line and not line.startswith("#"):
            keys.append(table + line.split("=", 1)[0].strip())
    return keys


def damage_bytes(data, rng):
    """One to four bytes of a binary file flipped or replaced; sometimes cut short."""
    d = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(d))
        d[i] = d[i] ^ (1 << rng.randrange(8)) if rng.random() < 0.5 else rng.randrange(256)
    if rng.random() < 0.1:
        d = d[: rng.randrange(len(d))]
    return bytes(d)


FINGERPRINT = re.compile(r"^fingerprint: (\w+)$", re.MULTILINE)
NON_FINITE = re.compile(r"(?<![\w.])-?(nan|inf)(?![\w])", re.IGNORECASE)


def verdict(name, code, out, err, timed_out, fingerprint=None):
    """Why the case is not a clean end, or None. fingerprint: the one a run must end
    with (a restart)."""
    if timed_out:
        return "did not finish within the time limit (a hang?)"
    if code < 0:
        return f"killed by signal {-code}"
    errors = [l for l in err.splitlines() if re.match(rf"{name}: (error|run failed): ", l)]
    if code == 0:
        bad = [l for l in out.splitlines() if NON_FINITE.search(l) and "deck" not in l
               and "=" not in l]
        if bad:
            return f"exit code 0 with a non-finite figure: {bad[0]}"
        got = FINGERPRINT.findall(out)
        if fingerprint and got != [fingerprint]:
            return f"ran to fingerprint {got}, not the uninterrupted run's {fingerprint}"
        return None
    if code in (2, 3):
        if len(errors) != 1:
            return f"exit code {code} with {len(errors)} error lines on stderr"
        want = "error" if code == 2 else "run failed"
        if not errors[0].startswith(f"{name}: {want}: "):
            return f"exit code {code} with: {errors[0]}"
        return None
    return f"exit code {code}"


def run_case(cmd, name, timeout, fingerprint=None):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        out = p.stdout.decode(errors="replace")
        err = p.stderr.decode(errors="replace")
        return verdict(name, p.returncode, out, err, False, fingerprint), p.returncode, err
    except subprocess.TimeoutExpired:
        return verdict(name, None, "", "", True), None, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--patchwork", required=True)
    ap.add_argument("--lab", required=True)
    ap.add_argument("--decks", nargs="+", required=True)
    ap.add_argument("--restart-deck", required=True)
    ap.add_argument("--cases", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--mpiexec", default="")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    # Good patch files to mutate, from the lab's own generator.
    patch_seeds = []
    for dim, workload in ((2, "plane"), (3, "clustered")):
        path = os.path.join(a.workdir, f"good_{workload}_{dim}d.txt")
        subprocess.run([a.lab, "--workload", workload, "--dim", str(dim),
                        "--patches-count", "60", "--write", path, "--balancer", "sfc",
                        "--ranks", "4"], check=True, capture_output=True)
        patch_seeds.append(path)
    # A good dump (step 2) and the fingerprint its restart to step 4 must reach.
    good_dir = os.path.join(a.workdir, "good_run")
    subprocess.run([a.patchwork, a.restart_deck, "output.interval=2", "time.max_step=2",
                    f"output.dir={good_dir}"], check=True, capture_output=True)
    good_dump = os.path.join(good_dir, "plt_00002.h5")
    restart_args = [a.restart_deck, "time.max_step=4", "output.write=false"]
    p = subprocess.run([a.patchwork] + restart_args + [f"restart={good_dump}"],
                       check=True, capture_output=True)
    good_fingerprint = FINGERPRINT.findall(p.stdout.decode())[0]

    def make_case(case):
        """The mutated input of a case, written into the work directory: (its file, the
        command, the program's name, the fingerprint a run must reach or None, what it
        was made from, a folder the run writes)."""
        kind = ["deck", "deck", "patches", "restart"][case % 4]
        if kind == "restart":
            with open(good_dump, "rb") as f:
                data = damage_bytes(f.read(), rng)
            path = os.path.join(a.workdir, f"case{case:04d}.h5")
            cmd = [a.patchwork] + restart_args + [f"restart={path}"]
            made = ("patchwork", good_fingerprint, "the good dump", None)
        else:
            source = rng.choice(a.decks if kind == "deck" else patch_seeds)
            with open(source, "rb") as f:
                original = f.read()
            data = mutate(original, rng)
            source = os.path.basename(source)
            if kind == "deck":
                path = os.path.join(a.workdir, f"case{case:04d}.toml")
                # Short runs, bounded in size by the memory budget, writing only here.
                out_dir = os.path.join(a.workdir, f"out{case:04d}")
                cmd = [a.patchwork, path]
                if case % 3 == 0:
                    cmd.append(f"{rng.choice(deck_keys(original))}={rng.choice(HOSTILE)}")
                cmd += ["time.max_step=2", f"output.dir={out_dir}", "--max-memory=256MB"]
                if a.mpiexec and case % 5 == 0:
                    cmd = shlex.split(a.mpiexec) + ["-n", "2"] + cmd
                made = ("patchwork", None, source, out_dir)
            else:
                path = os.path.join(a.workdir, f"case{case:04d}.txt")
                cmd = [a.lab, "--patches", path, "--ranks", "3", "64", "--balancer", "sfc",
                       "knapsack", "chop_pack"]
                made = ("balance_lab", None, source, None)
        with open(path, "wb") as f:
            f.write(data)
        return (path, cmd) + made

    failures, outcomes = [], {}
    for case in range(a.cases):
        path, cmd, name, fingerprint, source, out_dir = make_case(case)
        why, code, err = run_case(cmd, name, a.timeout, fingerprint)
        outcomes[code] = outcomes.get(code, 0) + 1
        if why:
            failures.append(f"case {case} ({source}): {why}\n  {' '.join(cmd)}\n"
                            f"  stderr: {err.strip()[:400]}")
            continue
        os.remove(path)
        if out_dir:
            shutil.rmtree(out_dir, ignore_errors=True)
    summary = ", ".join(f"{n} with exit code {c}" for c, n in sorted(
        outcomes.items(), key=lambda x: (x[0] is None, x[0] or 0)))
    print(f"{a.cases} mutated inputs (seed {a.seed}): {summary}")
    for f in failures:
        print(f"FAILED {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
