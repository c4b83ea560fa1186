// Per-cell kernels moving data between levels: conservative limited linear interpolation
// (coarse to fine) and volume averaging (fine to coarse).
#pragma once

#include "amr/fab.hpp"

namespace pw {

/// Monotonized-central slope (per cell width) from three consecutive values.
KOKKOS_INLINE_FUNCTION double mc_slope(double um, double u0, double up) {
  const double dl = u0 - um, dr = up - u0, dc = 0.5 * (up - um);
  if (dl * dr <= 0.0) return 0.0;
  const double adl = dl < 0 ? -dl : dl, adr = dr < 0 ? -dr : dr, adc = dc < 0 ? -dc : dc;
  const double lim = 2.0 * (adl < adr ? adl : adr);
  const double mag = adc < lim ? adc : lim;
  return dc > 0 ? mag : -mag;
}

/// Value of fine cell (i, j, k) from the coarse cell holding it plus limited slopes times the
/// fine centre's offset: the r^dim fine values average exactly to the coarse one, and linear
/// data is reproduced. Reads the coarse neighbours in the first `dim` directions only.
KOKKOS_INLINE_FUNCTION double interp_cell(const Array4& crse, int i, int j, int k, int c,
                                          const IntVect& r, int dim) {
  const IntVect f{i, j, k};
  const IntVect ci = coarsen(f, r);
  double u = crse(ci[0], ci[1], ci[2], c);
  const double u0 = u;
  for (int d = 0; d < dim; ++d) {
    const IntVect e = IntVect::unit(d);
    const double um = crse(ci[0] - e[0], ci[1] - e[1], ci[2] - e[2], c);
    const double up = crse(ci[0] + e[0], ci[1] + e[1], ci[2] + e[2], c);
    const double offset = (f[d] - ci[d] * r[d] + 0.5) / r[d] - 0.5;
    u += mc_slope(um, u0, up) * offset;
  }
  return u;
}

/// Mean of the fine cells under coarse cell (ic, jc, kc).
KOKKOS_INLINE_FUNCTION double average_cell(const Array4& fine, int ic, int jc, int kc, int c,
                                           const IntVect& r) {
  double s = 0.0;
  for (int kk = 0; kk < r[2]; ++kk)
    for (int jj = 0; jj < r[1]; ++jj)
      for (int ii = 0; ii < r[0]; ++ii)
        s += fine(ic * r[0] + ii, jc * r[1] + jj, kc * r[2] + kk, c);
  return s / double(r.product());
}

}  // namespace pw
