// Per-cell kernels moving data between levels: conservative limited linear interpolation
// (coarse to fine) and volume averaging (fine to coarse).
#pragma once

#include <type_traits>

#include "amr/fab.hpp"
#include "amr/field3.hpp"
#include "amr/interpolate.hpp"

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

/// Fill the fine cells of coarse cell (ic, jc, kc) that lie in `box` with the coarse
/// value plus slopes (MC-limited when `limit`, else central) times each fine centre's
/// offset: the r^dim fine values average exactly to the coarse one, and linear data is
/// reproduced. Reads the coarse neighbours in the first `dim` directions only. Slopes
/// are found once per coarse cell.
/// A is Array4 or FabRef.
template <class A>
KOKKOS_INLINE_FUNCTION void interp_coarse_cell(const A& crse, const A& fine, int ic,
                                               int jc, int kc, int c, const IntVect& r,
                                               int dim, const Box& box,
                                               bool limit = true) {
  const IntVect ci{ic, jc, kc};
  const double u0 = crse(ic, jc, kc, c);
  double slope[3] = {0.0, 0.0, 0.0};
  for (int d = 0; d < dim; ++d) {
    const IntVect e = IntVect::unit(d);
    const double um = crse(ic - e[0], jc - e[1], kc - e[2], c);
    const double up = crse(ic + e[0], jc + e[1], kc + e[2], c);
    slope[d] = limit ? mc_slope(um, u0, up) : 0.5 * (up - um);
  }
  const IntVect lo = max(ci * r, box.lo);
  const IntVect hi = min(ci * r + r - IntVect::uniform(1), box.hi);
  for (int k = lo[2]; k <= hi[2]; ++k) {
    const double zk = slope[2] * ((k - kc * r[2] + 0.5) / r[2] - 0.5);
    for (int j = lo[1]; j <= hi[1]; ++j) {
      const double yj = slope[1] * ((j - jc * r[1] + 0.5) / r[1] - 0.5);
      for (int i = lo[0]; i <= hi[0]; ++i)
        fine(i, j, k, c) = u0 + slope[0] * ((i - ic * r[0] + 0.5) / r[0] - 0.5) + yj + zk;
    }
  }
}

/// The value of fine cell (ii, jj, kk) of a coarse cell (offsets within it) from the
/// coarse value u0 and slopes s per coarse width: the expression of interp_coarse_cell
/// and interp_whole_block, so the same bits. R: IntVect or FixedRatio.
template <class R>
KOKKOS_FORCEINLINE_FUNCTION double linear_child(double u0, const double s[3], int ii,
                                                int jj, int kk, const R& r) {
  const double zk = s[2] * ((kk + 0.5) / r[2] - 0.5);
  const double yj = s[1] * ((jj + 0.5) / r[1] - 0.5);
  return u0 + s[0] * ((ii + 0.5) / r[0] - 0.5) + yj + zk;
}

/// Components of a conserved gas state, in this order from its first: density, the
/// three momenta, total energy (Interp::gas_state).
constexpr int gas_state_ncomp = 5;

/// A gas state's coarse values u0 and MC-limited slopes s (per coarse width, zero
/// beyond the first DIM directions), components c0 .. c0 + 4 of coarse cell (ic, jc, kc).
/// Then, when a fine cell of the coarse cell would get a density or internal energy
/// E - |m|^2 / (2 rho) that is not positive, the slopes are zeroed: every fine cell
/// takes the coarse state. Slopes limited one component at a time keep each within its
/// neighbours, but not the internal energy, the difference of two of them: beside fast,
/// cold gas a fine cell came out with a negative pressure. The internal energy of the
/// fine cells is a concave function of their offset (|m|^2 / rho is convex), so its
/// least value is at a corner of the coarse cell's block of fine cells, and only the
/// 2^DIM corner cells are tested (all of them at ratio 2), the same whether the block is
/// filled whole or in part.
template <int DIM, class A, class R>
KOKKOS_FORCEINLINE_FUNCTION void gas_slopes(const A& crse, int ic, int jc, int kc, int c0,
                                            const R& r, double u0[gas_state_ncomp],
                                            double s[gas_state_ncomp][3]) {
  constexpr int nc = gas_state_ncomp;
  for (int c = 0; c < nc; ++c) {
    u0[c] = crse(ic, jc, kc, c0 + c);
    for (int d = 0; d < 3; ++d) {
      s[c][d] = 0.0;
      if (d >= DIM) continue;
      const int e0 = d == 0, e1 = d == 1, e2 = d == 2;
      s[c][d] = mc_slope(crse(ic - e0, jc - e1, kc - e2, c0 + c), u0[c],
                         crse(ic + e0, jc + e1, kc + e2, c0 + c));
    }
  }
  bool positive = true;
  const int step[3] = {r[0] > 1 ? r[0] - 1 : 1, r[1] > 1 ? r[1] - 1 : 1,
                       r[2] > 1 ? r[2] - 1 : 1};
  for (int kk = 0; kk < r[2]; kk += step[2])
    for (int jj = 0; jj < r[1]; jj += step[1])
      for (int ii = 0; ii < r[0]; ii += step[0]) {
        double q[nc];
        for (int c = 0; c < nc; ++c)
          q[c] = linear_child(u0[c], s[c], ii, jj, kk, r);
        positive = positive && q[0] > 0.0 &&
                   q[4] - 0.5 * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) / q[0] > 0.0;
      }
  if (!positive)
    for (int c = 0; c < nc; ++c)
      s[c][0] = s[c][1] = s[c][2] = 0.0;
}

/// Fill the fine cells of coarse cell (ic, jc, kc) that lie in `box` with the gas state
/// of components c0 .. c0 + 4 (gas_slopes): MC-limited linear where the fine cells keep a
/// positive internal energy, the coarse state elsewhere. Conservative either way.
template <int DIM, class A, class R>
KOKKOS_INLINE_FUNCTION void interp_gas_cell(const A& crse, const A& fine, int ic, int jc,
                                            int kc, int c0, const R& r, const Box& box) {
  constexpr int nc = gas_state_ncomp;
  double u0[nc], s[nc][3];
  gas_slopes<DIM>(crse, ic, jc, kc, c0, r, u0, s);
  const IntVect lo = max(IntVect{ic * r[0], jc * r[1], kc * r[2]}, box.lo);
  const IntVect hi = min(
      IntVect{ic * r[0] + r[0] - 1, jc * r[1] + r[1] - 1, kc * r[2] + r[2] - 1}, box.hi);
  for (int k = lo[2]; k <= hi[2]; ++k)
    for (int j = lo[1]; j <= hi[1]; ++j)
      for (int i = lo[0]; i <= hi[0]; ++i)
        for (int c = 0; c < nc; ++c)
          fine(i, j, k, c0 + c) =
              linear_child(u0[c], s[c], i - ic * r[0], j - jc * r[1], k - kc * r[2], r);
}

/// interp_gas_cell for a coarse cell whose r^3 fine cells all lie in the region, with
/// the ratio known at compile time (FixedRatio: the loops unroll); the same bits.
template <int DIM, class A, class R>
KOKKOS_FORCEINLINE_FUNCTION void interp_gas_block(const A& crse, const A& fine, int ic,
                                                  int jc, int kc, int c0, const R& r) {
  constexpr int nc = gas_state_ncomp;
  double u0[nc], s[nc][3];
  gas_slopes<DIM>(crse, ic, jc, kc, c0, r, u0, s);
  for (int kk = 0; kk < r[2]; ++kk)
    for (int jj = 0; jj < r[1]; ++jj)
      for (int ii = 0; ii < r[0]; ++ii)
        for (int c = 0; c < nc; ++c)
          fine(ic * r[0] + ii, jc * r[1] + jj, kc * r[2] + kk, c0 + c) =
              linear_child(u0[c], s[c], ii, jj, kk, r);
}

/// The conservative quadratic interpolant of coarse cell (ic, jc, kc) from its 3^dim
/// neighbourhood, averaged over each fine cell in `box`: in local coordinates x_d in
/// [-1/2, 1/2], u0 + sum_d (s_d x_d + q_d (x_d^2 - 1/12)) + sum_{d<e} m_de x_d x_e, whose
/// coarse-cell average is u0 and which reproduces the cell averages of any quadratic.
template <class A>
KOKKOS_INLINE_FUNCTION void interp_quadratic_cell(const A& crse, const A& fine, int ic,
                                                  int jc, int kc, int c, const IntVect& r,
                                                  int dim, const Box& box) {
  const IntVect ci{ic, jc, kc};
  const double u0 = crse(ic, jc, kc, c);
  double s[3] = {0, 0, 0}, q[3] = {0, 0, 0}, m[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int d = 0; d < dim; ++d) {
    const IntVect e = IntVect::unit(d);
    const double um = crse(ic - e[0], jc - e[1], kc - e[2], c);
    const double up = crse(ic + e[0], jc + e[1], kc + e[2], c);
    s[d] = 0.5 * (up - um);
    q[d] = 0.5 * (up - 2.0 * u0 + um);
    for (int d2 = 0; d2 < d; ++d2) {
      const IntVect f = IntVect::unit(d2);
      const IntVect pp = ci + e + f, pm = ci + e - f, mp = ci - e + f, mm = ci - e - f;
      m[d2][d] = 0.25 * (crse(pp[0], pp[1], pp[2], c) - crse(pm[0], pm[1], pm[2], c) -
                         crse(mp[0], mp[1], mp[2], c) + crse(mm[0], mm[1], mm[2], c));
    }
  }
  const IntVect lo = max(ci * r, box.lo);
  const IntVect hi = min(ci * r + r - IntVect::uniform(1), box.hi);
  for (int k = lo[2]; k <= hi[2]; ++k)
    for (int j = lo[1]; j <= hi[1]; ++j)
      for (int i = lo[0]; i <= hi[0]; ++i) {
        const IntVect fi{i, j, k};
        double x[3], v = u0;
        for (int d = 0; d < 3; ++d)
          x[d] = (fi[d] - ci[d] * r[d] + 0.5) / r[d] - 0.5;
        for (int d = 0; d < dim; ++d) {
          // Mean of x^2 over the fine cell: its centre squared plus width^2 / 12.
          const double x2 = x[d] * x[d] + 1.0 / (12.0 * r[d] * r[d]);
          v += s[d] * x[d] + q[d] * (x2 - 1.0 / 12.0);
          for (int d2 = 0; d2 < d; ++d2)
            v += m[d2][d] * x[d2] * x[d];
        }
        fine(i, j, k, c) = v;
      }
}

/// A refinement ratio known at compile time, read as an IntVect is: kernels templated on
/// it unroll their loops over the fine cells of a coarse cell.
template <int R0, int R1, int R2>
struct FixedRatio {
  KOKKOS_INLINE_FUNCTION constexpr int operator[](int d) const {
    return d == 0 ? R0 : d == 1 ? R1 : R2;
  }
  KOKKOS_INLINE_FUNCTION constexpr int product() const { return R0 * R1 * R2; }
};

/// interp_coarse_cell for a coarse cell whose r^3 fine cells all lie in the region. With
/// the ratio known at compile time (FixedRatio) the loops over the fine cells unroll and
/// their offsets are constants; an IntVect ratio works too. The same values in the same
/// order, so the same bits.
template <int DIM, class A, class R>
KOKKOS_FORCEINLINE_FUNCTION void interp_whole_block(const A& crse, const A& fine, int ic,
                                                    int jc, int kc, int c, const R& r,
                                                    bool limit) {
  const double u0 = crse(ic, jc, kc, c);
  double slope[3] = {0.0, 0.0, 0.0};
  for (int d = 0; d < DIM; ++d) {
    const int e0 = d == 0, e1 = d == 1, e2 = d == 2;
    const double um = crse(ic - e0, jc - e1, kc - e2, c);
    const double up = crse(ic + e0, jc + e1, kc + e2, c);
    slope[d] = limit ? mc_slope(um, u0, up) : 0.5 * (up - um);
  }
  for (int kk = 0; kk < r[2]; ++kk) {
    const double zk = slope[2] * ((kk + 0.5) / r[2] - 0.5);
    for (int jj = 0; jj < r[1]; ++jj) {
      const double yj = slope[1] * ((jj + 0.5) / r[1] - 0.5);
      for (int ii = 0; ii < r[0]; ++ii)
        fine(ic * r[0] + ii, jc * r[1] + jj, kc * r[2] + kk, c) =
            u0 + slope[0] * ((ii + 0.5) / r[0] - 0.5) + yj + zk;
    }
  }
}

/// Coarse cell (i, j, k)'s fine cells in `region`, components [n0, n1) by KIND (one run
/// of interpolate_regions): the linear kinds and gas states through their whole-block
/// kernels where all the cell's fine cells lie in the region (R a FixedRatio:
/// unrolled), through the per-cell ones elsewhere (a region thinner than a coarse cell).
template <int DIM, Interp KIND, class R>
KOKKOS_FORCEINLINE_FUNCTION void interp_region_cell(const FabRef& crse,
                                                    const FabRef& fine, const Box& region,
                                                    int i, int j, int k, int n0, int n1,
                                                    const R& r) {
  const IntVect rv{r[0], r[1], r[2]};
  if constexpr (KIND == Interp::quadratic) {
    for (int m = n0; m < n1; ++m)
      interp_quadratic_cell(crse, fine, i, j, k, m, rv, DIM, region);
  } else {
    const IntVect lo{i * r[0], j * r[1], k * r[2]};
    const IntVect hi{lo[0] + r[0] - 1, lo[1] + r[1] - 1, lo[2] + r[2] - 1};
    const bool whole = region.contains(lo) && region.contains(hi);
    if constexpr (KIND == Interp::gas_state) {
      if (whole)
        interp_gas_block<DIM>(crse, fine, i, j, k, n0, r);
      else
        interp_gas_cell<DIM>(crse, fine, i, j, k, n0, rv, region);
    } else {
      constexpr bool limit = KIND == Interp::conservative_linear;
      for (int m = n0; m < n1; ++m) {
        if (whole)
          interp_whole_block<DIM>(crse, fine, i, j, k, m, r, limit);
        else
          interp_coarse_cell(crse, fine, i, j, k, m, rv, DIM, region, limit);
      }
    }
  }
}

/// f(std::integral_constant<Interp, kind>{}): kernels templated on the kind.
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void with_kind(Interp kind, const F& f) {
  switch (kind) {
    case Interp::conservative_linear:
      f(std::integral_constant<Interp, Interp::conservative_linear>{});
      return;
    case Interp::linear:
      f(std::integral_constant<Interp, Interp::linear>{});
      return;
    case Interp::quadratic:
      f(std::integral_constant<Interp, Interp::quadratic>{});
      return;
    case Interp::gas_state:
      f(std::integral_constant<Interp, Interp::gas_state>{});
      return;
  }
}

/// f(std::integral_constant<int, DIM>, r) with r the ratio as a FixedRatio for the usual
/// ratios, whose loops over a coarse cell's fine cells then unroll (the coarse-fine
/// interpolation was 9% of the 3D benchmark's time with the ratio read at run time),
/// else as the IntVect.
template <class F>
void with_ratio(int dim, const IntVect& ratio, const F& f) {
  using D2 = std::integral_constant<int, 2>;
  using D3 = std::integral_constant<int, 3>;
  if (dim == 3 && ratio == IntVect{2, 2, 2})
    f(D3{}, FixedRatio<2, 2, 2>{});
  else if (dim == 2 && ratio == IntVect{2, 2, 1})
    f(D2{}, FixedRatio<2, 2, 1>{});
  else if (dim == 3 && ratio == IntVect{4, 4, 4})
    f(D3{}, FixedRatio<4, 4, 4>{});
  else if (dim == 2 && ratio == IntVect{4, 4, 1})
    f(D2{}, FixedRatio<4, 4, 1>{});
  else if (dim == 3)
    f(D3{}, ratio);
  else
    f(D2{}, ratio);
}

/// The mean of the fine cells under each coarse cell i0 .. i1 of row (j, k), component
/// c, into crse. R: IntVect or FixedRatio (the same sum in the same order, so the same
/// bits). The fine values are reached from one pointer at constant offsets, so that the
/// loop over the row vectorizes: through per-value index arithmetic it stayed scalar, a
/// chain of dependent adds per coarse cell (4% of a 3D run with 16^3 patches).
template <class R>
KOKKOS_FORCEINLINE_FUNCTION void average_row(const FabRef& fine, const FabRef& crse,
                                             int j, int k, int i0, int i1, int c,
                                             const R& r) {
  const double* f = &fine(i0 * r[0], j * r[1], k * r[2], c);
  double* out = &crse(i0, j, k, c);
  const long sj = fine.c0.sj, sk = fine.c0.sk;
  const double n = double(r.product());
  PW_INDEPENDENT_ITERATIONS
  for (int x = 0; x <= i1 - i0; ++x) {
    const double* q = f + long(x) * r[0];
    double s = 0.0;
    for (int kk = 0; kk < r[2]; ++kk)
      for (int jj = 0; jj < r[1]; ++jj)
        for (int ii = 0; ii < r[0]; ++ii)
          s += q[ii + jj * sj + kk * sk];
    out[x] = s / n;
  }
}

}  // namespace pw
