// Per-face and per-cell functions of the advection module: the stages of the unsplit CTU
// Godunov scheme (Colella 1990; Saltzman 1994 in 3D), the conservative update, initial
// data, the time-step bound and tagging. Each is launched by one line of advection.cpp.
#pragma once

#include "amr/fab.hpp"
#include "amr/level_geom.hpp"
#include "amr/physics.hpp"
#include "physics/velocity_fields.hpp"

namespace pw {

/// One component of a scratch array over a box of faces, reached by global (i, j, k).
struct Scratch3 {
  using View = Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::MemoryUnmanaged>;
  View v;
  IntVect lo;
  KOKKOS_INLINE_FUNCTION double& operator()(int i, int j, int k) const {
    return v(k - lo[2], j - lo[1], i - lo[0]);
  }
};

KOKKOS_INLINE_FUNCTION double abs_of(double a) {
  return a < 0.0 ? -a : a;
}

/// Monotonized-central limited slope (van Leer 1977) from three consecutive cell values.
KOKKOS_INLINE_FUNCTION double mc_slope(double am, double a0, double ap) {
  const double dl = a0 - am, dr = ap - a0;
  if (dl * dr <= 0.0) return 0.0;  // extremum: no slope
  const double dc = 0.5 * (ap - am);
  const double lim = 2.0 * (abs_of(dl) < abs_of(dr) ? abs_of(dl) : abs_of(dr));
  if (abs_of(dc) <= lim) return dc;
  return dc > 0.0 ? lim : -lim;
}

/// Upwind cell of the D-face (i, j, k): the lo-side cell (i - e_D) when the face velocity
/// is
/// >= 0, the hi-side cell otherwise. Writes it to (iu, ju, ku).
template <int D>
KOKKOS_INLINE_FUNCTION void upwind_cell(double vn, int i, int j, int k, int& iu, int& ju,
                                        int& ku) {
  const int s = vn < 0.0 ? 0 : 1;
  iu = i - (D == 0 ? s : 0);
  ju = j - (D == 1 ? s : 0);
  ku = k - (D == 2 ? s : 0);
}

/// Predicted state at t + dt/2 on the D-face (i, j, k), from the upwind cell only (the
/// normal predictor): phi +- (1 -+ vel dt/dx)/2 * slope. The slope of the upwind cell is
/// computed here: each face needs exactly one, so storing slopes would save no work.
template <int D>
KOKKOS_INLINE_FUNCTION void predict_face(int i, int j, int k, const Scratch3& pf,
                                         const Array4& u, int c, const FaceVelocity& vel,
                                         double dtdx) {
  constexpr int di = D == 0, dj = D == 1, dk = D == 2;
  const double vn = vel.normal<D>(i, j, k);
  int iu, ju, ku;
  upwind_cell<D>(vn, i, j, k, iu, ju, ku);
  const double a0 = u(iu, ju, ku, c);
  const double slope =
      mc_slope(u(iu - di, ju - dj, ku - dk, c), a0, u(iu + di, ju + dj, ku + dk, c));
  const double side = vn < 0.0 ? -0.5 : 0.5;  // toward the face from the cell centre
  pf(i, j, k) = a0 + side * (1.0 - abs_of(vn) * dtdx) * slope;
}

/// Transport across the upwind cell (i, j, k) in direction T, in the advective form AMReX
/// uses: the cell-averaged T velocity times the difference of the T-face states. With the
/// discretely divergence-free velocity this keeps a constant exactly constant.
template <int T>
KOKKOS_INLINE_FUNCTION double transverse_term(int i, int j, int k, const Scratch3& pt,
                                              const FaceVelocity& vel) {
  constexpr int ti = T == 0, tj = T == 1, tk = T == 2;
  const double vbar =
      0.5 * (vel.normal<T>(i + ti, j + tj, k + tk) + vel.normal<T>(i, j, k));
  return vbar * (pt(i + ti, j + tj, k + tk) - pt(i, j, k));
}

/// 3D only: the D-face state corrected by the T-direction transport over dt/3 in its
/// upwind cell (the first corner-coupling stage of Saltzman's CTU).
template <int D, int T>
KOKKOS_INLINE_FUNCTION void transverse_third(int i, int j, int k, const Scratch3& out,
                                             const Scratch3& pd, const Scratch3& pt,
                                             const FaceVelocity& vel, double dt3_dxt) {
  int iu, ju, ku;
  upwind_cell<D>(vel.normal<D>(i, j, k), i, j, k, iu, ju, ku);
  out(i, j, k) = pd(i, j, k) - dt3_dxt * transverse_term<T>(iu, ju, ku, pt, vel);
}

/// Flux through the D-face (i, j, k): the predicted state corrected by the transverse
/// transport over dt/2 in the upwind cell, times the face velocity. q1, q2 are the T1-
/// and T2-face states (in 3D each already corrected by the other transverse direction);
/// T2 < 0 in 2D, where the z terms do not exist (so k +- 1 is never read).
template <int D, int T1, int T2>
KOKKOS_INLINE_FUNCTION void ctu_flux(int i, int j, int k, const Array4& flux, int c,
                                     const Scratch3& pd, const Scratch3& q1,
                                     const Scratch3& q2, const FaceVelocity& vel,
                                     double hdt_dx1, double hdt_dx2) {
  const double vn = vel.normal<D>(i, j, k);
  int iu, ju, ku;
  upwind_cell<D>(vn, i, j, k, iu, ju, ku);
  double st = pd(i, j, k) - hdt_dx1 * transverse_term<T1>(iu, ju, ku, q1, vel);
  if constexpr (T2 >= 0) st -= hdt_dx2 * transverse_term<T2>(iu, ju, ku, q2, vel);
  flux(i, j, k, c) = vn * st;
}

/// u_new = u_old - dt/dx_d (F_hi - F_lo) summed over the DIM directions. Reads u_old only
/// at (i, j, k), so u_new may alias u_old.
template <int DIM>
KOKKOS_INLINE_FUNCTION void conservative_update(int i, int j, int k, int c,
                                                const Array4& u_new, const Array4& u_old,
                                                const Array4& fx, const Array4& fy,
                                                const Array4& fz, double dtdx,
                                                double dtdy, double dtdz) {
  double du = dtdx * (fx(i + 1, j, k, c) - fx(i, j, k, c)) +
              dtdy * (fy(i, j + 1, k, c) - fy(i, j, k, c));
  if constexpr (DIM == 3) du += dtdz * (fz(i, j, k + 1, c) - fz(i, j, k, c));
  u_new(i, j, k, c) = u_old(i, j, k, c) - du;
}

/// 1 / max_d (|vel_d| / dx_d) of cell (i, j, k), with the larger of its two face speeds
/// in each direction; 1e300 where the fluid is at rest. Unsplit CTU with the full corner
/// coupling is stable up to a Courant number of 1 in each direction (Colella 1990,
/// Saltzman 1994), which is also the estimate of AMReX's Advection_AmrCore.
KOKKOS_INLINE_FUNCTION double cell_transit_time(int i, int j, int k, int dim,
                                                const FaceVelocity& vel, double inv_dx,
                                                double inv_dy, double inv_dz) {
  const double ux = abs_of(vel.normal<0>(i, j, k)),
               ux1 = abs_of(vel.normal<0>(i + 1, j, k));
  const double uy = abs_of(vel.normal<1>(i, j, k)),
               uy1 = abs_of(vel.normal<1>(i, j + 1, k));
  const double rx = (ux > ux1 ? ux : ux1) * inv_dx, ry = (uy > uy1 ? uy : uy1) * inv_dy;
  double rate = rx > ry ? rx : ry;
  if (dim == 3 && abs_of(vel.w) * inv_dz > rate) rate = abs_of(vel.w) * inv_dz;
  return rate > 0.0 ? 1.0 / rate : 1e300;
}

/// The profile of component 0 at time 0 (cell-centre values, not cell averages: the error
/// that makes is O(dx^2) and exact solutions are evaluated the same way).
struct InitialProfile {
  enum Kind { gaussian, sine };
  Kind kind = gaussian;
  bool blob_3d = false;  // 3D gaussian: a ball (true) or a z column like AMReX's (false)
  double background = 1.0, amplitude = 1.0;
  double inv_width2 = 100.0;
  double blob[3] = {0.5, 0.75, 0.5};

  KOKKOS_INLINE_FUNCTION double operator()(const double x[3], int dim) const {
    if (kind == sine) {
      double p = 1.0;
      for (int d = 0; d < dim; ++d)
        p *= kmath::sin(2.0 * kmath::pi * x[d]);
      return background + amplitude * p;
    }
    const int nd = (dim == 3 && blob_3d) ? 3 : 2;
    double r2 = 0.0;
    for (int d = 0; d < nd; ++d)
      r2 += (x[d] - blob[d]) * (x[d] - blob[d]);
    return background + amplitude * kmath::exp(-r2 * inv_width2);
  }
};

/// Cell (i, j, k) at time t: the initial profile at the departure point of its centre
/// (wrapped into the domain in periodic directions); component c is scaled by (c + 1).
KOKKOS_INLINE_FUNCTION void initial_cell(int i, int j, int k, const Array4& u, int ncomp,
                                         const LevelGeom& g, const InitialProfile& p,
                                         const VelocityField& f, double t) {
  double x[3] = {g.center(0, i), g.center(1, j), g.center(2, k)};
  if (t != 0.0) {
    f.departure_point(t, g.dim, x);
    for (int d = 0; d < g.dim; ++d) {
      if (!g.periodic[d]) continue;
      const double lo = g.face(d, g.domain.lo[d]);
      const double len = (g.domain.hi[d] - g.domain.lo[d] + 1) * g.dx[d];
      x[d] -= len * kmath::floor((x[d] - lo) / len);
    }
  }
  const double phi = p(x, g.dim);
  for (int c = 0; c < ncomp; ++c)
    u(i, j, k, c) = (c + 1) * phi;
}

KOKKOS_INLINE_FUNCTION void tag_above(int i, int j, int k, const TagArray& tags,
                                      const Array4& u, double threshold) {
  if (u(i, j, k, 0) > threshold) tags(i, j, k) = 1;
}

/// Tag where the largest undivided central difference |u(+1) - u(-1)|/2 of component 0
/// over the used directions exceeds `threshold`. Reads one ghost cell in each used
/// direction.
KOKKOS_INLINE_FUNCTION void tag_gradient(int i, int j, int k, int dim,
                                         const TagArray& tags, const Array4& u,
                                         double threshold) {
  double g = 0.5 * abs_of(u(i + 1, j, k, 0) - u(i - 1, j, k, 0));
  const double gy = 0.5 * abs_of(u(i, j + 1, k, 0) - u(i, j - 1, k, 0));
  if (gy > g) g = gy;
  if (dim == 3) {
    const double gz = 0.5 * abs_of(u(i, j, k + 1, 0) - u(i, j, k - 1, 0));
    if (gz > g) g = gz;
  }
  if (g > threshold) tags(i, j, k) = 1;
}

}  // namespace pw
