"""Opening a Patchwork dump for the tools: a missing file, one that is not HDF5, a
truncated one, or an HDF5 file of another code is a pwcli.Failure naming the file and
what is wrong, before any tool reads from it.

    with pwdump.open_dump(path) as f:   # an h5py.File, checked
        ...
"""
from pwcli import Failure, existing_file, import_or_fail, one_line

H5PY_HINT = "Debian's /usr/bin/python3 has python3-h5py"


def open_dump(path):
    """The dump at `path` as an open h5py.File, after checking that it is one: HDF5, not
    truncated, with the root attributes, Chombo_global and the level groups the tools
    read."""
    existing_file(path, "dump")
    [h5py] = import_or_fail("h5py", hint=H5PY_HINT)
    if not h5py.is_hdf5(path):
        raise Failure(f"{path}: not an HDF5 file (expected a Patchwork dump, "
                      "PREFIX_STEP.h5)")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise Failure(f"{path}: cannot be opened as HDF5, truncated or damaged "
                      f"({one_line(e)})") from None
    try:
        check_layout(f, path)
    except BaseException:
        f.close()
        raise
    return f


def check_layout(f, path):
    """Failure unless `f` has what a Patchwork dump has and the tools read."""
    def need(ok, what):
        if not ok:
            raise Failure(f"{path}: not a Patchwork dump (no {what})")

    version = f.attrs.get("code_version", b"")
    version = version.decode(errors="replace") if isinstance(version, bytes) else str(version)
    need(version.startswith("patchwork"), "code_version 'patchwork ...'")
    for name in ("num_levels", "num_components", "time"):
        need(name in f.attrs, f"attribute {name}")
    need("Chombo_global" in f and "SpaceDim" in f["Chombo_global"].attrs,
         "Chombo_global/SpaceDim")
    for c in range(int(f.attrs["num_components"])):
        need(f"component_{c}" in f.attrs, f"attribute component_{c}")
    for l in range(int(f.attrs["num_levels"])):
        g = f.get(f"level_{l}")
        need(g is not None, f"group level_{l}")
        for name in ("dx", "prob_domain"):
            need(name in g.attrs, f"level_{l} attribute {name}")
        for name in ("boxes", "data:offsets=0", "data:datatype=0"):
            need(name in g, f"level_{l}/{name}")


def text(value):
    """An HDF5 string attribute as str (h5py gives bytes or str)."""
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def component_names(f):
    return [text(f.attrs[f"component_{c}"]) for c in range(int(f.attrs["num_components"]))]


def prob_lo(f):
    """The domain's physical lower corner (Chombo_global/prob_lo; 0 in files without)."""
    dim = int(f["Chombo_global"].attrs["SpaceDim"])
    lo = f["Chombo_global"].attrs.get("prob_lo")
    return [float(x) for x in lo] if lo is not None and len(lo) == dim else [0.0] * dim


def spacing(f, level):
    """Level `level`'s cell size per direction: its dx (the x spacing) times each
    direction's aspect from Chombo_global/prob_lo and prob_hi (cubic cells in files
    without prob_hi)."""
    dim = int(f["Chombo_global"].attrs["SpaceDim"])
    dx = float(f[f"level_{level}"].attrs["dx"])
    hi = f["Chombo_global"].attrs.get("prob_hi")
    if hi is None or len(hi) != dim:
        return [dx] * dim
    lo = prob_lo(f)
    pd = f["level_0"].attrs["prob_domain"]
    n = [int(pd[f"hi_{a}"]) - int(pd[f"lo_{a}"]) + 1 for a in "ijk"[:dim]]
    h0 = [(float(hi[d]) - lo[d]) / n[d] for d in range(dim)]
    return [dx * h0[d] / h0[0] for d in range(dim)]


def damaged(path, e):
    """The Failure for a dump that opened but failed to read (a damaged dataset)."""
    return Failure(f"{path}: damaged dump, reading it failed ({type(e).__name__}: "
                   f"{one_line(e)})")

