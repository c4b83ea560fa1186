#!/usr/bin/env python3
"""yt opens Patchwork dumps: for each DUMP.h5 given, yt's Chombo frontend (through
tools/patchwork_yt.load, which places the domain at the deck's prob_lo) finds the levels
and grids h5py sees, the domain starts at prob_lo, and the field value at the centre of a
cell of the finest level equals the value h5py reads at that cell's place in
data:datatype=0. The .xmf next to
each dump is checked too: every hyperslab lies inside the HDF5 dataset it names and has as
many values as its grid has cells.

Units: a dump whose deck set [units] records them, and tools/patchwork_yt.load gives yt
exactly those (ds.length_unit, time_unit, mass_unit; the domain's width in cm); a dump
without [units] records none and loads in yt's code units (dimensionless: the domain's
width in code_length is the deck's). code_version: the dump's is the run summary's, and
names the git revision of the sources when they are a checkout. A missing file:
tools/patchwork_yt.load raises FileNotFoundError naming it (not h5py's message).

Exits 77 (ctest's skip code) when h5py or yt is absent."""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from code_version import check_code_version  # noqa: E402 (beside this file)
import xml.etree.ElementTree as ET

SKIP = 77


def check_xdmf(xmf, h5py):
    here = os.path.dirname(xmf)
    root = ET.parse(xmf).getroot()
    slabs = 0
    for item in root.iter("DataItem"):
        if item.get("ItemType") != "HyperSlab":
            continue
        sel, data = list(item)
        start, stride, count = (int(x) for x in sel.text.split())
        fname, path = data.text.strip().split(":", 1)
        assert ":" not in path, path
        with h5py.File(os.path.join(here, fname), "r") as f:
            n = f[path].shape[0]
        assert int(data.get("Dimensions")) == n, (path, n)
        assert stride == 1 and 0 <= start and start + count <= n, (path, start, count, n)
        dims = [int(x) for x in item.get("Dimensions").split()]
        assert math.prod(dims) == count, (dims, count)
        slabs += 1
    assert slabs > 0, xmf
    return slabs


def check_dump(path, yt, h5py):
    import patchwork_yt
    with h5py.File(path, "r") as f:
        dim = int(f["Chombo_global"].attrs["SpaceDim"])
        nlev = int(f.attrs["num_levels"])
        ncomp = int(f.attrs["num_components"])
        name = f.attrs["component_0"].decode()
        ngrids = sum(f[f"level_{l}/boxes"].shape[0] for l in range(nlev))
        fine = f[f"level_{nlev - 1}"]
        dx = float(fine.attrs["dx"])
        box = fine["boxes"][0]
        lo = [int(box[f"lo_{a}"]) for a in "ijk"[:dim]]
        offset = int(fine["data:offsets=0"][0])
        expected = float(fine["data:datatype=0"][offset])  # component 0, first cell
        prob_lo = [float(x) for x in f["Chombo_global"].attrs["prob_lo"]]
    assert nlev > 1, f"{path}: no refined level to check"
    ds = patchwork_yt.load(path)
    assert ds.index.max_level + 1 == nlev, (ds.index.max_level, nlev)
    assert len(ds.index.grids) == ngrids, (len(ds.index.grids), ngrids)
    left = [float(x) for x in ds.domain_left_edge.d[:dim]]
    assert left == prob_lo, f"{path}: yt's domain starts at {left}, the deck's at {prob_lo}"
    # The first cell of the finest level's first box, where the deck put it.
    centre = [prob_lo[a] + (i + 0.5) * dx for a, i in enumerate(lo)] + [0.5] * (3 - dim)
    got = float(ds.point(centre)[("chombo", name)][0])
    assert got == expected, f"{path}: yt {got} at {centre}, h5py {expected}"
    print(f"{path}: {dim}D, {nlev} levels, {ngrids} grids, {ncomp} components, "
          f"domain from {prob_lo}, {name} at {centre} = {got} (yt) = {expected} (h5py)")
    check_gas(path, ds, h5py)
    check_units(path, h5py)


def deck_units(path, h5py):
    """{"length": cm, "time": s, "mass": g} as the dump's deck set them, or {}."""
    with h5py.File(path, "r") as f:
        deck = f.attrs["deck"]
    deck = deck.decode() if isinstance(deck, bytes) else str(deck)
    out = {}
    for line in deck.splitlines():
        key, _, value = line.partition("=")
        if key.strip().startswith("units."):
            out[key.strip()[len("units."):]] = float(value)
    return out


def check_units(path, h5py):
    import patchwork_yt
    units = deck_units(path, h5py)
    with h5py.File(path, "r") as f:
        attrs = {a: float(f.attrs[a]) for a in ("length_unit", "time_unit", "mass_unit")
                 if a in f.attrs}
        dx0 = float(f["level_0"].attrs["dx"])
        pd = f["level_0"].attrs["prob_domain"]
        width = (int(pd["hi_i"]) - int(pd["lo_i"]) + 1) * dx0  # code lengths
    ds = patchwork_yt.load(path)
    if units:
        assert attrs == {f"{k}_unit": v for k, v in units.items()}, (attrs, units)
        got = {"length": ds.length_unit.to_value("cm"), "time": ds.time_unit.to_value("s"),
               "mass": ds.mass_unit.to_value("g")}
        for k, v in units.items():
            assert abs(got[k] - v) <= 1e-12 * v, f"{path}: yt's {k} unit {got[k]}, deck {v}"
        w = float(ds.domain_width[0].to_value("cm"))
        assert abs(w - width * units["length"]) <= 1e-12 * w, (w, width, units)
        print(f"{path}: units: yt's code length {got['length']:g} cm, time "
              f"{got['time']:g} s, mass {got['mass']:g} g are the deck's; domain {w:g} cm")
    else:
        assert not attrs, f"{path}: unit attributes {attrs} without [units] in the deck"
        w = ds.domain_width[0].in_base()
        assert str(w.units) == "code_length" and float(w) == width, (w, width)
        print(f"{path}: units: none recorded; yt reports code units (domain width {w})")


def check_version(paths, h5py):
    """Every dump's code_version is its run's (the summary beside it) and names the
    sources' git revision."""
    versions = set()
    for path in paths:
        with h5py.File(path, "r") as f:
            v = f.attrs["code_version"]
        v = v.decode() if isinstance(v, bytes) else str(v)
        with open(os.path.join(os.path.dirname(path), "plt_summary.json")) as s:
            assert json.load(s)["code_version"] == v, (path, v)
        versions.add(v)
    check_code_version(ROOT, versions)


def check_gas(path, ds, h5py):
    """For hydro dumps: tools/patchwork_yt.py's pressure and velocity at the most
    energetic cell of the finest level's first box equal what the conserved values h5py
    reads there give. Returns whether the dump was a hydro one."""
    import patchwork_yt
    gamma = patchwork_yt.add_gas_fields(ds)
    if gamma is None:
        return False
    with h5py.File(path, "r") as f:
        dim = int(f["Chombo_global"].attrs["SpaceDim"])
        nlev = int(f.attrs["num_levels"])
        names = [f.attrs[f"component_{c}"].decode()
                 for c in range(int(f.attrs["num_components"]))]
        fine = f[f"level_{nlev - 1}"]
        dx = float(fine.attrs["dx"])
        box = fine["boxes"][0]
        lo = [int(box[f"lo_{a}"]) for a in "ijk"[:dim]]
        size = [int(box[f"hi_{a}"]) - int(box[f"lo_{a}"]) + 1 for a in "ijk"[:dim]]
        cells = 1
        for n in size:
            cells *= n
        offset = int(fine["data:offsets=0"][0])
        values = fine["data:datatype=0"][offset:offset + cells * len(names)]
    comp = {n: values[c * cells:(c + 1) * cells] for c, n in enumerate(names)}
    cell = max(range(cells), key=lambda m: comp["energy-density"][m])  # i fastest
    index = [cell % size[0], (cell // size[0]) % size[1]] + (
        [cell // (size[0] * size[1])] if dim == 3 else [])
    centre = [(lo[d] + index[d] + 0.5) * dx for d in range(dim)] + [0.5] * (3 - dim)
    u = {n: float(comp[n][cell]) for n in names}
    m2 = sum(u[f"{a}-momentum"] ** 2 for a in "XYZ")
    p = (gamma - 1) * (u["energy-density"] - 0.5 * m2 / u["density"])
    point = ds.point(centre)
    got_p = float(point[("gas", "pressure")][0])
    got_u = float(point[("gas", "velocity_x")][0])
    assert abs(got_p - p) <= 1e-12 * abs(p), f"{path}: pressure yt {got_p}, dump {p}"
    assert got_u == u["X-momentum"] / u["density"], f"{path}: velocity_x yt {got_u}"
    print(f"{path}: hydro: at {centre} yt's pressure {got_p:.6g} and velocity_x "
          f"{got_u:.6g} are the dump's (gamma {gamma})")
    if "phi" in names:  # self-gravity: the potential by name, and not all zero
        got_phi = float(point[("chombo", "phi")][0])
        assert got_phi == u["phi"], f"{path}: phi yt {got_phi}, dump {u['phi']}"
        assert any(float(x) != 0.0 for x in comp["phi"]), f"{path}: phi is all zero"
        print(f"{path}: gravity: yt's phi {got_phi:.6g} is the dump's")
    return True


def check_missing():
    """patchwork_yt.load of a file that is not there: FileNotFoundError naming it."""
    import patchwork_yt
    missing = os.path.abspath("no_such_dump.h5")
    assert not os.path.exists(missing), missing
    try:
        patchwork_yt.load(missing)
    except FileNotFoundError as e:
        assert e.filename == missing and missing in str(e), str(e)
        assert "Unable to open file" not in str(e), str(e)  # h5py's own words
        print(f"{missing}: {e}")
    else:
        raise AssertionError(f"patchwork_yt.load({missing!r}) raised nothing")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    try:
        import h5py
    except ImportError as e:
        print(f"SKIP: h5py is not importable ({e}); install python3-h5py")
        return SKIP
    for path in sys.argv[1:]:
        xmf = os.path.splitext(path)[0] + ".xmf"
        print(f"{xmf}: {check_xdmf(xmf, h5py)} hyperslabs inside their datasets")
    try:
        import yt
    except ImportError as e:
        print(f"SKIP: yt is not importable by {sys.executable} ({e}); "
              "install python3-yt (Debian) to run this test")
        return SKIP
    yt.set_log_level(40)
    for path in sys.argv[1:]:
        check_dump(path, yt, h5py)
    check_missing()
    check_version(sys.argv[1:], h5py)
    return 0


if __name__ == "__main__":
    sys.exit(main())
