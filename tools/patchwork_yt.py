"""yt fields for Patchwork's hydro dumps: import this next to yt and call
add_gas_fields(ds) after yt.load. yt's Chombo reader names the conserved components
("chombo", "density"), ("chombo", "X-momentum"), ..., ("chombo", "energy-density") but
derives nothing from them for a plain Chombo file; this adds ("gas", "density"),
("gas", "velocity_x|y|z"), ("gas", "pressure") and ("gas", "specific_thermal_energy"),
with the ratio of specific heats recorded in the dump's deck (hydro.gamma, default 1.4).

    import yt, patchwork_yt
    ds = yt.load("output/plt_00100.h5")
    patchwork_yt.add_gas_fields(ds)
    yt.SlicePlot(ds, "z", ("gas", "pressure")).save()
"""
import h5py

HYDRO = ("density", "X-momentum", "Y-momentum", "Z-momentum", "energy-density")


def deck_gamma(path):
    """hydro.gamma as the dump's deck recorded it (1.4 when the deck left the default)."""
    with h5py.File(path, "r") as f:
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
    # The dumps carry no units yet (code units, dimensionless), so neither do these.
    rho_u = vel_u = p_u = e_u = "dimensionless"

    def density(field, data):
        return data[("chombo", "density")]

    def velocity(axis):
        def f(field, data):
            return data[("chombo", f"{axis.upper()}-momentum")] / data[("chombo", "density")]
        return f

    def pressure(field, data):
        rho = data[("chombo", "density")]
        m2 = sum(data[("chombo", f"{a}-momentum")] ** 2 for a in "XYZ")
        return (gamma - 1.0) * (data[("chombo", "energy-density")] - 0.5 * m2 / rho)

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
