"""ParaView's filters leave out the coarse cells under finer levels of a dump's .xmf:
Integrate Variables gives each field's total over the valid cells, the run summary's
`totals` (which counting the hidden cells too would miss), and a Slice through the
refined patches integrates to the valid cells' values on the plane, found from the dump's
boxes (not from its vtkGhostType). Run with pvbatch; exits 77 (skip) when ParaView's
Python or h5py is missing.
Arguments: DUMP.h5 [z of a slice plane, 3D only] ..."""
import json
import os
import sys

try:
    from paraview.simple import IntegrateVariables, Slice, XDMFReader, servermanager
    import h5py
    import numpy as np
except ImportError as e:
    print(f"skipped: ParaView's Python or h5py is not available ({e})")
    sys.exit(77)


def close(a, b, scale, what):
    """a equals b to round-off in sums of terms whose magnitudes add up to scale."""
    assert abs(a - b) <= 1e-12 * scale, f"{what}: {a!r} != {b!r}"


def levels(f):
    """Per level: dim, dx, prob_lo, boxes (lo, hi as int arrays of dim), the data per box
    (component-major arrays shaped [c][k][j][i] or [c][j][i]) and each box's covered
    mask, from the next finer level's boxes coarsened by its ratio."""
    dim = int(f["Chombo_global"].attrs["SpaceDim"])
    prob_lo = np.array(f["Chombo_global"].attrs["prob_lo"], dtype=float)
    ncomp = int(f.attrs["num_components"])
    axes = "ijk"[:dim]
    out = []
    for l in range(int(f.attrs["num_levels"])):
        g = f[f"level_{l}"]
        boxes = g["boxes"][:]
        lo = np.array([[b[f"lo_{a}"] for a in axes] for b in boxes], dtype=np.int64)
        hi = np.array([[b[f"hi_{a}"] for a in axes] for b in boxes], dtype=np.int64)
        data, off = g["data:datatype=0"][:], g["data:offsets=0"][:]
        fabs = []
        for p in range(len(boxes)):
            shape = (ncomp,) + tuple((hi[p] - lo[p] + 1)[::-1])
            fabs.append(data[off[p] : off[p + 1]].reshape(shape))
        out.append(dict(dx=float(g.attrs["dx"]), ratio=int(g.attrs["ref_ratio"]), lo=lo,
                        hi=hi, fabs=fabs))
    for l, lev in enumerate(out):
        lev["covered"] = [np.zeros(fab.shape[1:], dtype=bool) for fab in lev["fabs"]]
        if l + 1 == len(out):
            continue
        r = lev["ratio"]
        for flo, fhi in zip(out[l + 1]["lo"], out[l + 1]["hi"]):
            clo, chi = flo // r, fhi // r
            for p in range(len(lev["lo"])):
                a, b = np.maximum(clo, lev["lo"][p]), np.minimum(chi, lev["hi"][p])
                if np.any(a > b):
                    continue
                sl = tuple(slice(a[d] - lev["lo"][p][d], b[d] - lev["lo"][p][d] + 1)
                           for d in range(dim))[::-1]
                lev["covered"][p][sl] = True
    return dim, prob_lo, ncomp, out


def integral(source, name):
    iv = IntegrateVariables(Input=source)
    iv.UpdatePipeline()
    array = servermanager.Fetch(iv).GetCellData().GetArray(name)
    assert array is not None, f"ParaView's integral has no {name}"
    return array.GetValue(0)


def check(h5, slice_z):
    xmf = h5[:-3] + ".xmf"
    with open(os.path.join(os.path.dirname(h5), "plt_summary.json")) as s:
        totals = {t["component"]: t["final"] for t in json.load(s)["totals"]}
    with h5py.File(h5, "r") as f:
        dim, prob_lo, ncomp, levs = levels(f)
        names = [f.attrs[f"component_{c}"].decode() for c in range(ncomp)]
    hidden = sum(int(m.sum()) for lev in levs for m in lev["covered"])
    assert hidden > 0, f"{h5}: no cell is under a finer level; the test needs some"
    reader = XDMFReader(FileNames=[xmf])
    # The domain where it is: a 2D run in the x-y plane, one unit thick in z (VTK's XDMF
    # reader put 2D meshes in its y-z plane).
    reader.UpdatePipeline()
    bounds = reader.GetDataInformation().GetBounds()
    with h5py.File(h5, "r") as f:
        hi = np.array(f["Chombo_global"].attrs["prob_hi"], dtype=float)
    want = [v for d in range(3) for v in
            ((prob_lo[d], hi[d]) if d < dim else (0.0, 1.0))]
    for got, w in zip(bounds, want):
        close(got, w, max(1.0, abs(w)), f"{xmf}: bounds {bounds}, expected {want}")
    tested = False  # some field is not zero on the hidden cells
    for c, name in enumerate(names):
        hidden_sum = sum(np.abs(fab[c][m]).sum() * lev["dx"] ** dim for lev in levs
                         for fab, m in zip(lev["fabs"], lev["covered"]))
        scale = sum(np.abs(fab[c]).sum() * lev["dx"] ** dim for lev in levs
                    for fab in lev["fabs"])
        close(integral(reader, name), totals[name], scale, f"{xmf}: integral of {name}")
        tested |= hidden_sum > 1e-6 * scale
    assert tested, f"{h5}: every field is zero on the hidden cells, so they test nothing"
    print(f"{xmf}: {len(names)} integrals equal the run's totals ({hidden} hidden cells)")
    if slice_z is None:
        return
    cut = Slice(Input=reader)
    cut.SliceType = "Plane"
    cut.SliceType.Origin = [0.0, 0.0, slice_z]
    cut.SliceType.Normal = [0.0, 0.0, 1.0]
    refined_cut = False
    for c, name in enumerate(names):
        exact, scale = 0.0, 0.0
        for l, lev in enumerate(levs):
            k = int(np.floor((slice_z - prob_lo[2]) / lev["dx"]))
            for p, fab in enumerate(lev["fabs"]):
                if lev["lo"][p][2] <= k <= lev["hi"][p][2]:
                    kk = k - lev["lo"][p][2]
                    visible = ~lev["covered"][p][kk]
                    exact += fab[c][kk][visible].sum() * lev["dx"] ** 2
                    scale += np.abs(fab[c][kk]).sum() * lev["dx"] ** 2
                    refined_cut |= l > 0
        close(integral(cut, name), exact, scale, f"{xmf}: integral of {name} on z = {slice_z}")
    assert refined_cut, f"{h5}: the plane z = {slice_z} misses the refined levels"
    print(f"{xmf}: the slice z = {slice_z} integrates to the valid cells' values")


args = sys.argv[1:]
i = 0
while i < len(args):
    z = None
    if i + 1 < len(args) and not args[i + 1].endswith(".h5"):
        z = float(args[i + 1])
    check(args[i], z)
    i += 1 if z is None else 2
