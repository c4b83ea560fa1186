"""How the Python tools fail: one line on stderr and a non-zero exit code, never a
traceback. Bad arguments and unusable input files exit with 2 (`TOOL: error: ...`); an
interrupt with 130; anything unexpected (a bug) with 4 (`TOOL: internal error: ...`).

    import pwcli
    p = pwcli.ArgumentParser(prog="plot_slice", ...)
    ...
    if __name__ == "__main__":
        pwcli.run("plot_slice", main)
"""
import argparse
import os
import sys

BAD_INPUT = 2
INTERNAL = 4
INTERRUPTED = 130


class Failure(Exception):
    """A mistake of the user's (an argument, a file): its message is the one line."""


def one_line(text):
    return " ".join(str(text).split())


class ArgumentParser(argparse.ArgumentParser):
    """argparse with its usage block left out of errors: one line, exit code 2."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: error: {one_line(message)} (see --help)\n")
        sys.exit(BAD_INPUT)


_PROG = [os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "tool"]


def warn(message):
    """One line on stderr, `TOOL: warning: MESSAGE`: something the user should know about
    an input that the tool still uses."""
    sys.stderr.write(f"{_PROG[0]}: warning: {one_line(message)}\n")


def run(prog, main, argv=None):
    """Call main(argv) and exit with its return code; every failure is one line."""
    _PROG[0] = prog
    try:
        code = main(sys.argv[1:] if argv is None else argv)
    except Failure as e:
        code = _say(f"{prog}: error: {e}", BAD_INPUT)
    except KeyboardInterrupt:
        code = _say(f"{prog}: interrupted", INTERRUPTED)
    except BrokenPipeError:  # `tool ... | head`: the reader went away, nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    except OSError as e:  # a file the tool writes: a full disk, permissions
        where = f"{e.filename}: " if e.filename else ""
        code = _say(f"{prog}: error: {where}{e.strerror or e}", BAD_INPUT)
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001 - the last resort: still one line
        code = _say(f"{prog}: internal error: {type(e).__name__}: {e}", INTERNAL)
    sys.exit(code or 0)


def _say(message, code):
    sys.stderr.write(one_line(message) + "\n")
    return code


def existing_file(path, what="file"):
    """`path` if it is a readable regular file, else Failure naming it and why."""
    if not os.path.exists(path):
        raise Failure(f"{path}: no such {what}")
    if os.path.isdir(path):
        raise Failure(f"{path}: a directory, expected a {what}")
    if not os.access(path, os.R_OK):
        raise Failure(f"{path}: not readable")
    return path


def image_output(option, path, exact_case=False):
    """`path` if a figure can be saved there, else Failure naming `option`: not a
    directory, its extension a format matplotlib writes (.png, .pdf, .svg, ...; with
    `exact_case`, in lower case, as yt needs), in a directory that exists and is writable.
    Call it before any work: matplotlib would refuse the format only when it saves."""
    from matplotlib.backend_bases import FigureCanvasBase
    formats = sorted(FigureCanvasBase.get_supported_filetypes())
    if os.path.isdir(path):
        raise Failure(f"{option} {path}: a directory, expected the image's file name "
                      f"(e.g. {os.path.join(path, 'plot.png')})")
    ext = os.path.splitext(path)[1][1:]
    if exact_case and ext.lower() in formats and ext not in formats:
        raise Failure(f"{option} {path}: write the extension in lower case, "
                      f".{ext.lower()}")
    if ext.lower() not in formats:
        got = f"format '{ext}' is not supported" if ext else "no extension"
        raise Failure(f"{option} {path}: {got}; expected a file name ending in one of "
                      f"{', '.join('.' + x for x in formats)}")
    if ext.lower() == "pgf":  # matplotlib writes PGF through LaTeX
        import shutil
        from matplotlib import rcParams
        tex = rcParams["pgf.texsystem"]
        if shutil.which(tex) is None:
            raise Failure(f"{option} {path}: the pgf format needs {tex} (LaTeX), which is "
                          "not installed; try .pdf or .svg")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        why = "not a directory" if os.path.exists(folder) else "no such directory"
        raise Failure(f"{option} {path}: {folder}: {why}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise Failure(f"{option} {path}: {folder}: not writable")
    return path


def import_or_fail(*modules, hint):
    """Import `modules` (names); Failure with `hint` (what installs them) when one is
    missing."""
    import importlib
    try:
        return [importlib.import_module(m) for m in modules]
    except ImportError as e:
        raise Failure(f"{e}; {hint}") from None


def executable(path, hint):
    """`path` if it is an executable file, else Failure saying how to get it (`hint`)."""
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise Failure(f"{path}: no such executable ({hint})")
    return path


def toml_deck(path):
    """`path` if it is a TOML deck (text that parses), else Failure naming it."""
    import tomllib
    existing_file(path, "deck")
    try:
        with open(path, "rb") as f:
            tomllib.load(f)
    except UnicodeDecodeError:
        raise Failure(f"{path}: not a deck (not text; expected TOML)") from None
    except tomllib.TOMLDecodeError as e:
        raise Failure(f"{path}: not a deck (TOML): {one_line(e)}") from None
    return path


def positive(option, values):
    """Failure unless every value of `option` (one or a list) is > 0."""
    for v in values if isinstance(values, list) else [values]:
        if not v > 0:
            raise Failure(f"{option}: expected a positive number, got {v}")
