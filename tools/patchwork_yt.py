"""yt and Patchwork's dumps: load(path) opens a dump with its code units and its domain
where the deck put it, and add_gas_fields(ds) adds the gas fields of hydro dumps.

load: yt's Chombo frontend places the domain's lower corner at the origin whatever the
file says (it reads prob_domain and dx, not prob_lo). load opens the dump through a
subclass of yt's ChomboDataset that adds Chombo_global's prob_lo (domain.prob_lo of the
deck) to the domain's edges and every grid's: positions in yt are the deck's.

load: yt's Chombo frontend reads no units from a file and assumes 1 cm, 1 g and 1 s. A dump
whose deck set [units] records them (root attributes length_unit, time_unit, mass_unit, in
cgs); load passes them to yt as units_override, so ds.length_unit etc. are the deck's.
A dump without [units] has dimensionless code units: load gives yt unit_system="code",
so quantities are in code_length, code_time and code_mass (yt's placeholder of 1 cm, 1 s
and 1 g underneath means nothing physical).

add_gas_fields(ds) after load: yt's Chombo reader names the conserved components
("chombo", "density"), ("chombo", "X-momentum"), ..., ("chombo", "energy-density") but
derives nothing from them for a plain Chombo file; this adds ("gas", "density"),
("gas", "velocity_x|y|z"), ("gas", "pressure") and ("gas", "specific_thermal_energy"),
with the ratio of specific heats recorded in the dump's deck (hydro.gamma, default 1.4).

    import yt, patchwork_yt
    ds = patchwork_yt.load("output/plt_00100.h5")
    patchwork_yt.add_gas_fields(ds)
    yt.SlicePlot(ds, "z", ("gas", "pressure")).save()
"""
import errno
import os

import h5py

HYDRO = ("density", "X-momentum", "Y-momentum", "Z-momentum", "energy-density")


UNITS = {"length_unit": "cm", "time_unit": "s", "mass_unit": "g"}


def open_file(path):
    """The dump at `path` opened with h5py; FileNotFoundError, IsADirectoryError or
    OSError naming the file and saying what is wrong (h5py's own message names neither
    plainly)."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "no such Patchwork dump", path)
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "a directory, expected a Patchwork dump",
                                path)
    try:
        return h5py.File(path, "r")
    except OSError as e:
        raise OSError(f"{path}: cannot be opened as HDF5 (not a Patchwork dump, or a "
                      f"truncated or damaged one): {e}") from None


def code_units(path):
    """{"length_unit": (value, "cm"), ...} as the dump's deck set them ([units]), or None
    when its code units are dimensionless."""
    with open_file(path) as f:
        if not all(a in f.attrs for a in UNITS):
            return None
        return {a: (float(f.attrs[a]), unit) for a, unit in UNITS.items()}


_DATASET = []  # the dataset class, made on first use (yt is imported only then)


def dataset_class():
    """yt's ChomboDataset with the domain at the dump's prob_lo."""
    if _DATASET:
        return _DATASET[0]
    import numpy as np
    from yt.frontends.chombo.data_structures import ChomboDataset, ChomboHierarchy

    class PatchworkHierarchy(ChomboHierarchy):
        def _parse_index(self):
            super()._parse_index()  # grids placed from the origin
            self.grid_left_edge += self.dataset.domain_left_edge
            self.grid_right_edge += self.dataset.domain_left_edge

    class PatchworkDataset(ChomboDataset):
        _index_class = PatchworkHierarchy

        def _prob_lo(self):
            g = self._handle["Chombo_global/"]
            if "prob_lo" not in g.attrs:
                return 0.0
            return np.asarray(g.attrs["prob_lo"], dtype="float64")[:self.dimensionality]

        def _calc_left_edge(self):
            return super()._calc_left_edge() + self._prob_lo()

        def _calc_right_edge(self):
            return super()._calc_right_edge() + self._prob_lo()

        @classmethod
        def _is_valid(cls, filename, *args, **kwargs):
            return False  # yt.load keeps choosing its own class; load() picks this one

    _DATASET.append(PatchworkDataset)
    return PatchworkDataset


def load(path, **kwargs):
    """The dump as a yt dataset with its code units and its domain where the deck put it
    (see above); `kwargs` go to the dataset and win over what the dump says. A missing
    file is a FileNotFoundError naming it (see open_file)."""
    units = code_units(path)
    if units:
        kwargs.setdefault("units_override", units)
    else:
        kwargs.setdefault("unit_system", "code")
    return dataset_class()(path, **kwargs)


def deck_gamma(path):
    """hydro.gamma as the dump's deck recorded it (1.4 when the deck left the default)."""
    with open_file(path) as f:
        deck = f.attrs.get("deck", b"")
    deck = deck.decode() if isinstance(deck, bytes) else str(deck)
    for line in deck.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "hydro.gamma":
            return float(value)
    return 1.4


def is_hydro(ds):
    names = {f[1] for f in ds.field_list if f[0] == "chombo"}
    return all(n in names for n in HYDRO)


def add_gas_fields(ds):
    """Register the gas fields on ds (a no-op for dumps of other modules); returns gamma
    or None."""
    if not is_hydro(ds):
        return None
    gamma = deck_gamma(ds.parameter_filename)
    # yt's Chombo reader gives the components no units: the values are in code units,
    # which are the deck's [units] when load() read them (else dimensionless ones).
    rho_u = "code_mass/code_length**3"
    vel_u = "code_length/code_time"
    p_u = "code_mass/(code_length*code_time**2)"
    e_u = "code_length**2/code_time**2"

    def raw(data, name):  # the stored values, without yt's (dimensionless) units
        return data[("chombo", name)].d

    # Computed on the stored values and given their units once: the values are the dump's
    # to the last bit, whatever the units.
    def density(field, data):
        return data.ds.arr(raw(data, "density"), rho_u)

    def velocity(axis):
        def f(field, data):
            return data.ds.arr(raw(data, f"{axis.upper()}-momentum") /
                               raw(data, "density"), vel_u)
        return f

    def pressure(field, data):
        rho = raw(data, "density")
        m2 = sum(raw(data, f"{a}-momentum") ** 2 for a in "XYZ")
        return data.ds.arr((gamma - 1.0) * (raw(data, "energy-density") - 0.5 * m2 / rho),
                           p_u)

    def specific_thermal_energy(field, data):
        return data[("gas", "pressure")] / ((gamma - 1.0) * data[("gas", "density")])

    ds.add_field(("gas", "density"), density, sampling_type="cell", units=rho_u,
                 force_override=True)
    for a in "xyz":
        ds.add_field(("gas", f"velocity_{a}"), velocity(a), sampling_type="cell",
                     units=vel_u, force_override=True)
    ds.add_field(("gas", "pressure"), pressure, sampling_type="cell", units=p_u,
                 force_override=True)
    ds.add_field(("gas", "specific_thermal_energy"), specific_thermal_energy,
                 sampling_type="cell", units=e_u,
                 force_override=True)
    return gamma
