"""ParaView's XDMF reader opens the .xmf of a dump: one block per patch of every level, the
cell count of all levels, the field and vtkGhostType arrays, and field values equal to the
HDF5 data. Run with pvbatch (ParaView's Python); exits 77 (skip) when it is missing."""
import sys

try:
    from paraview.simple import XDMFReader, UpdatePipeline, servermanager
    import h5py
except ImportError as e:
    print(f"skipped: ParaView's Python or h5py is not available ({e})")
    sys.exit(77)


def check(xmf, h5):
    reader = XDMFReader(FileNames=[xmf])
    UpdatePipeline()
    data = servermanager.Fetch(reader)
    blocks, cells, values = 0, 0, []
    it = data.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        block = it.GetCurrentDataObject()
        blocks += 1
        cells += block.GetNumberOfCells()
        cd = block.GetCellData()
        assert cd.GetArray("vtkGhostType") is not None, "no vtkGhostType array"
        phi = cd.GetArray("phi0")
        assert phi is not None, "no phi0 array"
        values.extend(phi.GetValue(i) for i in range(phi.GetNumberOfTuples()))
        it.GoToNextItem()
    with h5py.File(h5, "r") as f:
        levels = range(int(f.attrs["num_levels"]))
        patches = sum(len(f[f"level_{l}/boxes"]) for l in levels)
        ncells = sum(int(f[f"level_{l}/data:offsets=0"][-1]) for l in levels)
        stored = sorted(float(x) for l in levels for x in f[f"level_{l}/data:datatype=0"][:])
    assert blocks == patches, f"{xmf}: {blocks} blocks, {patches} patches"
    assert cells == ncells, f"{xmf}: {cells} cells, {ncells} in the dump"
    assert sorted(values) == stored, f"{xmf}: field values differ from the HDF5 data"
    print(f"{xmf}: {blocks} blocks, {cells} cells, values match")


for path in sys.argv[1:]:
    check(path[:-3] + ".xmf", path)
