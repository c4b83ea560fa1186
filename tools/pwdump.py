"""Opening a Patchwork dump for the tools: a missing file, one that is not HDF5, a
truncated one, an HDF5 file of another code, or a damaged dump is a pwcli.Failure naming
the file and what is wrong, before any tool reads from it.

    with pwdump.open_dump(path) as f:   # an h5py.File, checked
        ...

The checks (check_layout): the root attributes, Chombo_global and the level groups the
tools (and yt's Chombo reader) read, each of the type and in the range it must have; per
level, boxes that are not empty, lie inside the level's domain and do not overlap,
data:offsets=0 as the boxes give it and data:datatype=0 as long as that. Then the values
(check_data): every patch against its checksum in data:checksums (FNV-1a over its stored
bytes, as the writer computes it; about 0.05 s per MB of data) and a warning line
(pwcli.warn) for values that are NaN or infinite.
"""
import math

from pwcli import Failure, existing_file, import_or_fail, one_line, warn

H5PY_HINT = "Debian's /usr/bin/python3 has python3-h5py"


def open_dump(path, check_values=True):
    """The dump at `path` as an open h5py.File, after checking that it is one: HDF5, not
    truncated, with the root attributes, Chombo_global and the level groups the tools
    read, sound (check_layout) and, with `check_values`, its values too (check_data)."""
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
        try:
            check_layout(f, path)
            if check_values:
                check_data(f, path)
        except (KeyError, ValueError, TypeError, IndexError, OSError, RuntimeError) as e:
            # h5py: RuntimeError for some HDF5 errors (a damaged datatype)
            raise damaged(path, e) from None
    except BaseException:
        f.close()
        raise
    return f


def _integer(value):
    """An HDF5 scalar integer attribute as int, or None when it is not one."""
    import numpy as np
    v = np.asarray(value)
    return int(v) if v.shape == () and v.dtype.kind in "iu" else None


def _real(value):
    """An HDF5 scalar number as a finite float, or None when it is not one."""
    import numpy as np
    v = np.asarray(value)
    if v.shape != () or v.dtype.kind not in "iuf":
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def _reals(value, n):
    """An HDF5 array of `n` finite numbers as a list of floats, or None."""
    import numpy as np
    v = np.asarray(value)
    if v.shape != (n,) or v.dtype.kind not in "iuf" or not np.all(np.isfinite(v)):
        return None
    return [float(x) for x in v]


def check_layout(f, path):
    """Failure unless `f` has what a Patchwork dump has and the tools read: "not a
    Patchwork dump (no ...)" for what is missing, "damaged dump: ..." for what is there
    but of the wrong type, out of range or inconsistent."""
    import numpy as np

    def need(ok, what):
        if not ok:
            raise Failure(f"{path}: not a Patchwork dump (no {what})")

    def sound(ok, what):
        if not ok:
            raise Failure(f"{path}: damaged dump: {what}")

    def shown(value):
        v = text(value) if isinstance(value, bytes) else value
        s = repr(v.tolist() if hasattr(v, "tolist") else v)
        return s if len(s) <= 40 else s[:37] + "..."

    version = f.attrs.get("code_version", b"")
    version = version.decode(errors="replace") if isinstance(version, bytes) else str(version)
    need(version.startswith("patchwork"), "code_version 'patchwork ...'")
    for name in ("num_levels", "num_components", "time"):
        need(name in f.attrs, f"attribute {name}")
    need("Chombo_global" in f and "SpaceDim" in f["Chombo_global"].attrs,
         "Chombo_global/SpaceDim")
    attrs = f.attrs
    nlev = _integer(attrs["num_levels"])
    sound(nlev is not None and nlev >= 1,
          f"attribute num_levels is {shown(attrs['num_levels'])}, expected an integer >= 1")
    ncomp = _integer(attrs["num_components"])
    sound(ncomp is not None and ncomp >= 1, f"attribute num_components is "
          f"{shown(attrs['num_components'])}, expected an integer >= 1")
    sound(_real(attrs["time"]) is not None,
          f"attribute time is {shown(attrs['time'])}, expected a finite number")
    if "iteration" in attrs:
        sound(_integer(attrs["iteration"]) is not None, f"attribute iteration is "
              f"{shown(attrs['iteration'])}, expected an integer")
    for unit in ("length_unit", "time_unit", "mass_unit"):
        if unit in attrs:
            v = _real(attrs[unit])
            sound(v is not None and v > 0, f"attribute {unit} is {shown(attrs[unit])}, "
                  "expected a positive number")
    for c in range(ncomp):
        need(f"component_{c}" in attrs, f"attribute component_{c}")
        sound(isinstance(attrs[f"component_{c}"], (bytes, str)),
              f"attribute component_{c} is {shown(attrs[f'component_{c}'])}, "
              "expected a name")
    cg = f["Chombo_global"].attrs
    dim = _integer(cg["SpaceDim"])
    sound(dim in (2, 3), f"Chombo_global/SpaceDim is {shown(cg['SpaceDim'])}, expected 2 "
          "or 3")
    corner = {}
    for name in ("prob_lo", "prob_hi"):
        if name in cg:
            corner[name] = _reals(cg[name], dim)
            sound(corner[name] is not None, f"Chombo_global/{name} is {shown(cg[name])}, "
                  f"expected {dim} finite numbers")
    if len(corner) == 2:
        sound(all(lo < hi for lo, hi in zip(corner["prob_lo"], corner["prob_hi"])),
              "Chombo_global/prob_hi is not above prob_lo in every direction")

    axes = "ijk"[:dim]
    box_fields = [f"lo_{a}" for a in axes] + [f"hi_{a}" for a in axes]
    previous = None  # level l - 1's (domain lo, domain hi, dx, ref_ratio)
    for l in range(nlev):
        name = f"level_{l}"
        g = f.get(name)
        need(g is not None, f"group {name}")
        for a in ("dx", "prob_domain", "ref_ratio"):
            need(a in g.attrs, f"{name} attribute {a}")
        for a in ("boxes", "data:offsets=0", "data:datatype=0"):
            need(a in g, f"{name}/{a}")
        dx = _real(g.attrs["dx"])
        sound(dx is not None and dx > 0,
              f"{name} attribute dx is {shown(g.attrs['dx'])}, expected a positive number")
        ratio = _integer(g.attrs["ref_ratio"])
        sound(ratio is not None and ratio >= 1, f"{name} attribute ref_ratio is "
              f"{shown(g.attrs['ref_ratio'])}, expected an integer >= 1")
        pd = np.asarray(g.attrs["prob_domain"])
        ok = (pd.shape == () and pd.dtype.names is not None
              and all(k in pd.dtype.names and pd.dtype[k].kind in "iu" for k in box_fields))
        sound(ok, f"{name} attribute prob_domain is {shown(pd)}, expected a box "
              f"({', '.join(box_fields)})")
        dlo = np.array([int(pd[f"lo_{a}"]) for a in axes])
        dhi = np.array([int(pd[f"hi_{a}"]) for a in axes])
        sound(np.all(dlo <= dhi), f"{name} attribute prob_domain is empty")
        if previous is not None:
            plo, phi, pdx, r = previous
            sound(np.array_equal(dlo, plo * r) and np.array_equal(dhi, (phi + 1) * r - 1),
                  f"{name} attribute prob_domain is not level_{l - 1}'s refined by its "
                  f"ref_ratio {r}")
            sound(abs(dx * r - pdx) <= 1e-9 * pdx,
                  f"{name} attribute dx {dx:g} is not level_{l - 1}'s / ref_ratio {r}")
        previous = (dlo, dhi, dx, ratio)

        boxes = g["boxes"]
        ok = (len(boxes.shape) == 1 and boxes.dtype.names is not None
              and all(k in boxes.dtype.names and boxes.dtype[k].kind in "iu"
                      for k in box_fields))
        sound(ok, f"{name}/boxes is not a list of boxes ({', '.join(box_fields)})")
        b = boxes[()]
        n = len(b)
        lo = np.stack([b[f"lo_{a}"].astype(np.int64) for a in axes], axis=1)
        hi = np.stack([b[f"hi_{a}"].astype(np.int64) for a in axes], axis=1)
        for p in range(n):
            where = f"{name} box {p} ({lo[p].tolist()} to {hi[p].tolist()})"
            sound(np.all(lo[p] <= hi[p]), f"{where} is empty")
            sound(np.all(dlo <= lo[p]) and np.all(hi[p] <= dhi),
                  f"{where} is outside the level's domain ({dlo.tolist()} to "
                  f"{dhi.tolist()})")
        overlap = _overlapping(lo, hi)
        if overlap:
            sound(False, f"{name} boxes {overlap[0]} and {overlap[1]} overlap")

        cells = np.prod(hi - lo + 1, axis=1) if n else np.zeros(0, np.int64)
        expected = np.concatenate([[0], np.cumsum(cells * ncomp)]).astype(np.int64)
        offsets = g["data:offsets=0"]
        sound(offsets.shape == (n + 1,) and offsets.dtype.kind in "iu",
              f"{name}/data:offsets=0 has shape {offsets.shape} ({offsets.dtype}), "
              f"expected {n + 1} integers for {n} boxes")
        off = offsets[()].astype(np.int64)
        bad = np.flatnonzero(off != expected)
        if bad.size:
            e = bad[0]
            sound(False, f"{name}/data:offsets=0 does not match the boxes (entry {e} is "
                  f"{off[e]}, the boxes give {expected[e]})")
        data = g["data:datatype=0"]
        sound(len(data.shape) == 1 and data.dtype.kind == "f",
              f"{name}/data:datatype=0 has shape {data.shape} ({data.dtype}), expected "
              "a list of numbers")
        sound(data.shape[0] == expected[-1], f"{name}/data:datatype=0 has "
              f"{data.shape[0]} values, its boxes need {expected[-1]}")
        for a, kind in (("Processors", "iu"), ("data:checksums", "iu")):
            if a in g:
                d = g[a]
                sound(d.shape == (n,) and d.dtype.kind in kind,
                      f"{name}/{a} has shape {d.shape} ({d.dtype}), expected {n} "
                      "integers")
        if "Processors" in g:
            sound(n == 0 or g["Processors"][()].min() >= 0,
                  f"{name}/Processors holds a negative rank")


def _overlapping(lo, hi, chunk=256):
    """The first pair (p, q), p < q, of boxes (rows of lo, hi) that overlap, or None."""
    import numpy as np
    n = len(lo)
    for start in range(0, n, chunk):
        a = slice(start, min(n, start + chunk))
        hit = np.all((lo[a, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[a, None, :]),
                     axis=2)
        hit &= np.arange(n)[None, :] > np.arange(a.start, a.stop)[:, None]
        if hit.any():
            p, q = np.argwhere(hit)[0]
            return int(p) + start, int(q)
    return None


FNV_OFFSET = 0xcbf29ce484222325
FNV_PRIME = 0x100000001b3


def fnv1a(data, h=FNV_OFFSET):
    """FNV-1a, 64 bit, over the bytes `data`, as amr/io/checksum.cpp computes it."""
    prime, mask = FNV_PRIME, (1 << 64) - 1
    for b in data:
        h = ((h ^ b) * prime) & mask
    return h


def check_data(f, path):
    """After check_layout: Failure naming the level and patch when a patch's stored values
    fail their checksum (data:checksums; dumps without it are not checked), and one
    warning line when values are NaN or infinite."""
    import numpy as np
    nonfinite, first = 0, None
    for l in range(int(f.attrs["num_levels"])):
        g = f[f"level_{l}"]
        offsets = g["data:offsets=0"][()].astype(np.int64)
        values = g["data:datatype=0"][()]
        if "data:checksums" in g:
            sums = g["data:checksums"][()]
            raw = values.tobytes()  # the stored bytes (h5py keeps the file's byte order)
            size = values.dtype.itemsize
            for p, stored in enumerate(sums):
                if fnv1a(raw[offsets[p] * size:offsets[p + 1] * size]) != int(stored):
                    raise Failure(f"{path}: damaged dump: level_{l} patch {p} fails its "
                                  "checksum (data:checksums)")
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            nonfinite += bad.size
            if first is None:
                p = int(np.searchsorted(offsets, bad[0], side="right")) - 1
                first = f"level_{l} patch {p}"
    if nonfinite:
        what = "1 value is" if nonfinite == 1 else f"{nonfinite} values are"
        warn(f"{path}: {what} NaN or infinite (the first in {first})")


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
