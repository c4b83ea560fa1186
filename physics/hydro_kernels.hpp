// Per-cell and per-face functions of the hydro module: the ideal-gas equation of state,
// slope limiters, the primitive-variable MUSCL-Hancock predictor, and the HLLC and HLLE
// Riemann solvers (Toro, "Riemann Solvers and Numerical Methods for Fluid Dynamics",
// 3rd ed., sections 10.4-10.6 and 14.4), for the kernels of hydro_update.hpp.
#pragma once

#include <Kokkos_Core.hpp>

#include "amr/field3.hpp"
#include "physics/kmath.hpp"

namespace pw {

/// Conserved components: density, three momenta (a 2D run carries the z momentum as a
/// passive quantity), total energy density, then the passive scalars (density times the
/// scalar). Primitive slots: density, three velocities, pressure, then the scalars.
namespace hydro_index {
constexpr int rho = 0, mom = 1, energy = 4, nbase = 5;
constexpr int vel = 1, pres = 4;
constexpr int max_scalars = 8;
constexpr int max_vars = nbase + max_scalars;
}  // namespace hydro_index

enum class Limiter { first_order, minmod, mc, van_leer };
enum class RiemannSolver { hllc, hlle };

/// What the kernels need of the module: plain data, so kernels capture it by value.
struct HydroParams {
  double gamma = 1.4;
  double density_floor = 1e-10, pressure_floor = 1e-10;
  int nscalars = 0;
  Limiter limiter = Limiter::mc;
  RiemannSolver riemann = RiemannSolver::hllc;
  // Self-gravity: the potential phi is the component after the scalars (nvars()).
  bool gravity = false;
  double four_pi_G = 0;
  KOKKOS_INLINE_FUNCTION int nvars() const { return hydro_index::nbase + nscalars; }
};

/// One Field3 per variable (conserved or primitive), indexed like hydro_index.
struct VarFields {
  Field3 v[hydro_index::max_vars];
};

/// One Field3 per component of a (the first nv).
inline VarFields fields_of(const Array4& a, int nv) {
  VarFields f;
  for (int c = 0; c < nv; ++c)
    f.v[c] = component(a, c);
  return f;
}
/// One Field3 per component of a patch's data (the first nv), in a kernel.
KOKKOS_INLINE_FUNCTION VarFields fields_of(const FabRef& a, int nv) {
  VarFields f;
  for (int c = 0; c < nv; ++c)
    f.v[c] = a.comp(c);
  return f;
}

/// The counters hydro's advance() adds to, in Physics::counter_names() order.
namespace hydro_counter {
constexpr int fallbacks = 0;        // cells reconstructed at first order
constexpr int density_floors = 1;   // updated cells whose density was raised
constexpr int pressure_floors = 2;  // updated cells whose pressure was raised
constexpr int read_floors = 3;      // old-state cells (ghosts incl.) read below a floor
constexpr int count = 4;
}  // namespace hydro_counter

/// A limited slope from the differences to the left and right neighbours, in selects
/// (no branches): a GPU warp does not diverge, and a vectorizer need not if-convert.
template <Limiter L>
KOKKOS_FORCEINLINE_FUNCTION double limit_slope(double dl, double dr) {
  const double al = kmath::abs(dl), ar = kmath::abs(dr);
  const double sgn = dl > 0 ? 1.0 : -1.0;
  double s = 0.0;
  if constexpr (L == Limiter::minmod) {
    s = sgn * kmath::min(al, ar);
  } else if constexpr (L == Limiter::mc) {
    s = sgn * kmath::min(0.5 * (al + ar), 2.0 * kmath::min(al, ar));
  } else if constexpr (L == Limiter::van_leer) {
    s = 2.0 * dl * dr / (dl + dr + (dl + dr == 0.0 ? 1.0 : 0.0));
  }
  return dl * dr > 0.0 ? s : 0.0;  // an extremum (or first order): no slope
}

/// The gas's primitive state (density, velocities, pressure) of cell (i, j, k) from the
/// conserved one, with density and pressure raised to the floors; returns 1 where a
/// floor was needed (or the state was not a number), else 0.
KOKKOS_FORCEINLINE_FUNCTION int to_primitive(const HydroParams& hp, const VarFields& u,
                                             int i, int j, int k, double* w) {
  using namespace hydro_index;
  const double r = u.v[rho](i, j, k);
  const double rf = kmath::max(r, hp.density_floor);
  const double inv = 1.0 / rf;
  double ke = 0.0;
  for (int d = 0; d < 3; ++d) {
    const double m = u.v[mom + d](i, j, k);
    w[vel + d] = m * inv;
    ke += m * w[vel + d];
  }
  const double p = (hp.gamma - 1.0) * (u.v[energy](i, j, k) - 0.5 * ke);
  w[rho] = rf;
  w[pres] = kmath::max(p, hp.pressure_floor);
  return !((r >= hp.density_floor) & (p >= hp.pressure_floor));  // NaN counts too
}

/// The change of the primitive state w per unit length along direction d for slopes dw
/// along d: A_d(w) dw, the quasi-linear form of the Euler equations in primitives (the
/// five gas variables; a scalar's is u_d ds).
KOKKOS_FORCEINLINE_FUNCTION void primitive_flux_slope(const HydroParams& hp, int d,
                                                      const double* w, const double* dw,
                                                      double* out) {
  using namespace hydro_index;
  const double un = w[vel + d];
  out[rho] += un * dw[rho] + w[rho] * dw[vel + d];
  for (int e = 0; e < 3; ++e)
    out[vel + e] += un * dw[vel + e];
  out[vel + d] += dw[pres] / w[rho];
  out[pres] += hp.gamma * w[pres] * dw[vel + d] + un * dw[pres];
}

/// Flux along direction d of the exact Euler equations for primitive state w, and the
/// conserved state, both in hydro_index's conserved order (the five gas variables).
KOKKOS_FORCEINLINE_FUNCTION void euler_flux(const HydroParams& hp, int d, const double* w,
                                            double* f, double* u) {
  using namespace hydro_index;
  const double r = w[rho], un = w[vel + d], p = w[pres];
  const double ke =
      0.5 * r * (w[vel] * w[vel] + w[vel + 1] * w[vel + 1] + w[vel + 2] * w[vel + 2]);
  const double e = p / (hp.gamma - 1.0) + ke;
  u[rho] = r;
  f[rho] = r * un;
  for (int c = 0; c < 3; ++c) {
    u[mom + c] = r * w[vel + c];
    f[mom + c] = r * w[vel + c] * un;
  }
  f[mom + d] += p;
  u[energy] = e;
  f[energy] = (e + p) * un;
}

/// Signal-speed estimates for the left and right waves (Einfeldt's: the extreme of the
/// outer states' characteristic speeds and the Roe average's), for HLLE and HLLC.
KOKKOS_FORCEINLINE_FUNCTION void wave_speeds(const HydroParams& hp, int d,
                                             const double* wl, const double* wr,
                                             double& sl, double& sr) {
  using namespace hydro_index;
  const double g = hp.gamma;
  const double cl = kmath::sqrt(g * wl[pres] / wl[rho]);
  const double cr = kmath::sqrt(g * wr[pres] / wr[rho]);
  const double ql = kmath::sqrt(wl[rho]), qr = kmath::sqrt(wr[rho]);
  const double a = ql / (ql + qr), b = 1.0 - a;
  double v2 = 0.0, hl = 0.0, hr = 0.0;
  for (int c = 0; c < 3; ++c) {
    const double v = a * wl[vel + c] + b * wr[vel + c];
    v2 += v * v;
    hl += wl[vel + c] * wl[vel + c];
    hr += wr[vel + c] * wr[vel + c];
  }
  hl = 0.5 * hl + g / (g - 1.0) * wl[pres] / wl[rho];  // specific enthalpies
  hr = 0.5 * hr + g / (g - 1.0) * wr[pres] / wr[rho];
  const double h = a * hl + b * hr;
  const double c = kmath::sqrt(kmath::max((g - 1.0) * (h - 0.5 * v2), 0.0));
  const double un = a * wl[vel + d] + b * wr[vel + d];
  sl = kmath::min(wl[vel + d] - cl, un - c);
  sr = kmath::max(wr[vel + d] + cr, un + c);
}

/// The HLLE flux along d between primitive states wl and wr (Toro 10.3 with Einfeldt's
/// speeds): positive, but it smears contacts.
KOKKOS_FORCEINLINE_FUNCTION void hlle_flux(const HydroParams& hp, int d, const double* wl,
                                           const double* wr, double* f) {
  double fl[hydro_index::nbase], fr[hydro_index::nbase];
  double ul[hydro_index::nbase], ur[hydro_index::nbase];
  euler_flux(hp, d, wl, fl, ul);
  euler_flux(hp, d, wr, fr, ur);
  double sl, sr;
  wave_speeds(hp, d, wl, wr, sl, sr);
  const double bm = kmath::min(sl, 0.0), bp = kmath::max(sr, 0.0);
  const double inv = 1.0 / (bp - bm);
  for (int c = 0; c < hydro_index::nbase; ++c)
    f[c] = (bp * fl[c] - bm * fr[c] + bp * bm * (ur[c] - ul[c])) * inv;
}

/// The HLLC flux along d between primitive states wl and wr (Toro 10.4, star states
/// 10.39, contact speed 10.37): resolves an isolated contact exactly, and carries the
/// tangential velocities with the contact. Written with selects, no early return, so
/// that a loop over faces can vectorize.
KOKKOS_FORCEINLINE_FUNCTION void hllc_flux(const HydroParams& hp, int d, const double* wl,
                                           const double* wr, double* f) {
  using namespace hydro_index;
  double sl, sr;
  wave_speeds(hp, d, wl, wr, sl, sr);
  const double rl = wl[rho], rr = wr[rho], ul = wl[vel + d], ur = wr[vel + d];
  const double ml = rl * (sl - ul), mr = rr * (sr - ur);  // mass fluxes through the waves
  const double ss = (wr[pres] - wl[pres] + ul * ml - ur * mr) / (ml - mr);
  // The side whose state or star state the face sees, and its outer wave speed.
  const bool left = ss >= 0.0;
  double w[nbase];
  for (int c = 0; c < nbase; ++c)
    w[c] = left ? wl[c] : wr[c];
  const double s = left ? sl : sr;
  double fk[nbase], uk[nbase];
  euler_flux(hp, d, w, fk, uk);
  // Supersonic: the outer state's flux (the star term drops out). Bitwise & and |, as
  // a select of two comparisons becomes a branch that keeps the loop from vectorizing.
  const bool outer = (left & (sl >= 0.0)) | (!left & (sr <= 0.0));
  const double un = w[vel + d];
  const double factor = w[rho] * (s - un) / (s - ss);  // the star density
  double us[nbase];
  us[rho] = factor;
  for (int c = 0; c < 3; ++c)
    us[mom + c] = factor * (c == d ? ss : w[vel + c]);
  us[energy] =
      factor * (uk[energy] / w[rho] + (ss - un) * (ss + w[pres] / (w[rho] * (s - un))));
  const double weight = outer ? 0.0 : s;
  for (int c = 0; c < nbase; ++c)
    f[c] = fk[c] + weight * (us[c] - uk[c]);
}

/// The gas's flux along d (five components) by solver R. A passive scalar's is the mass
/// flux times the upwind side's scalar (upwind by the mass flux's sign: HLLC's own
/// choice, and a consistent one for HLLE).
template <RiemannSolver R>
KOKKOS_FORCEINLINE_FUNCTION void riemann_flux(const HydroParams& hp, int d,
                                              const double* wl, const double* wr,
                                              double* f) {
  if constexpr (R == RiemannSolver::hlle) {
    hlle_flux(hp, d, wl, wr, f);
  } else {
    hllc_flux(hp, d, wl, wr, f);
  }
}

/// A passive scalar's flux: the mass flux times the scalar of its upwind side.
KOKKOS_FORCEINLINE_FUNCTION double scalar_flux(double mass_flux, double sl, double sr) {
  return mass_flux * (mass_flux >= 0.0 ? sl : sr);
}

/// Whether a primitive state can be used: positive density and pressure (not NaN).
KOKKOS_FORCEINLINE_FUNCTION bool admissible(const double* w) {
  return (w[hydro_index::rho] > 0.0) & (w[hydro_index::pres] > 0.0);
}

}  // namespace pw
