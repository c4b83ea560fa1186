// Per-face and per-cell functions of the advection module: the stages of the unsplit CTU
// Godunov scheme (Colella 1990; Saltzman 1994 in 3D), the conservative update, initial
// data, the time-step bound and tagging. Each is launched by one line of advection.cpp.
#pragma once

#include "amr/fab.hpp"
#include "amr/field3.hpp"
#include "amr/level_geom.hpp"
#include "amr/physics.hpp"
#include "physics/kmath.hpp"
#include "physics/velocity_fields.hpp"

namespace pw {

/// The CTU states of one component: the normal predictors p[d] on d-faces and the
/// transverse terms t[d] on cells (transverse_cell).
struct CtuStates {
  Field3 p[3], t[3];
};

// The per-face and per-cell functions of advance() are forced inline: a call left in the
// loop over i (GCC declines to inline the larger ones) would stop its vectorization.
//
// Upwinding below chooses between the values of the two cells beside a face by a select,
// never by an index that depends on the velocity (a gather, which does not vectorize),
// and the selects come before the arithmetic that uses them: GCC would otherwise move
// that arithmetic into branches, which it may not vectorize because it could trap.

/// Monotonized-central limited slope (van Leer 1977) from three consecutive cell values,
/// in selects rather than branches. (Not named mc_slope: amr/interp_kernels.hpp defines
/// an inline pw::mc_slope with another body, and the two must not meet in one program.)
KOKKOS_FORCEINLINE_FUNCTION double limited_slope(double am, double a0, double ap) {
  const double dl = a0 - am, dr = ap - a0;
  const double dc = 0.5 * (ap - am);
  const double lim =
      2.0 * (kmath::abs(dl) < kmath::abs(dr) ? kmath::abs(dl) : kmath::abs(dr));
  const double clipped = dc > 0.0 ? lim : -lim;
  const double s = kmath::abs(dc) <= lim ? dc : clipped;
  return dl * dr <= 0.0 ? 0.0 : s;  // extremum: no slope
}

/// Predicted state at t + dt/2 on the D-face (i, j, k), from the upwind cell only (the
/// normal predictor): phi +- (1 -+ vel dt/dx)/2 * slope, with the upwind cell's three
/// values chosen among four. Each face needs one slope, so storing slopes saves no work.
template <int D>
KOKKOS_FORCEINLINE_FUNCTION void predict_face(int i, int j, int k, const Field3& pf,
                                              const Field3& u, const FaceVelocity& vel,
                                              double dtdx) {
  constexpr int di = D == 0, dj = D == 1, dk = D == 2;
  const double vn = vel.normal<D>(i, j, k);
  const double am2 = u(i - 2 * di, j - 2 * dj, k - 2 * dk);
  const double am1 = u(i - di, j - dj, k - dk), a0 = u(i, j, k);
  const double ap1 = u(i + di, j + dj, k + dk);
  const bool hi = vn < 0.0;  // upwind cell on the hi side
  const double cm = hi ? am1 : am2, c0 = hi ? a0 : am1, cp = hi ? ap1 : a0;
  const double side = hi ? -0.5 : 0.5;  // toward the face from the cell centre
  pf(i, j, k) = c0 + side * (1.0 - kmath::abs(vn) * dtdx) * limited_slope(cm, c0, cp);
}

/// Transport across cell (i, j, k) in direction T, in the advective form AMReX uses: the
/// cell-averaged T velocity times the difference of the T-face states. With the
/// discretely divergence-free velocity this keeps a constant exactly constant.
template <int T>
KOKKOS_FORCEINLINE_FUNCTION double transverse_term(int i, int j, int k, const Field3& pt,
                                                   const FaceVelocity& vel) {
  constexpr int ti = T == 0, tj = T == 1, tk = T == 2;
  const double vbar =
      0.5 * (vel.normal<T>(i + ti, j + tj, k + tk) + vel.normal<T>(i, j, k));
  return vbar * (pt(i + ti, j + tj, k + tk) - pt(i, j, k));
}

/// The transverse term of cell (i, j, k) from the normal predictors, stored once per
/// cell: the faces of the other directions whose upwind cell this is correct their
/// states by it (2D: in the final flux; 3D: in the corner coupling, so each cell's term
/// serves two face directions).
template <int T>
KOKKOS_FORCEINLINE_FUNCTION void transverse_cell(int i, int j, int k, const Field3& out,
                                                 const Field3& pt,
                                                 const FaceVelocity& vel) {
  out(i, j, k) = transverse_term<T>(i, j, k, pt, vel);
}

/// 2D: flux through the D-face (i, j, k): the predicted state corrected by the transport
/// over dt/2 in direction T in the upwind cell (tt from transverse_cell), times the face
/// velocity.
template <int D>
KOKKOS_FORCEINLINE_FUNCTION void ctu_flux_2d(int i, int j, int k, const Field3& flux,
                                             const Field3& pd, const Field3& tt,
                                             const FaceVelocity& vel, double hdt_dxt) {
  constexpr int di = D == 0, dj = D == 1;
  const double vn = vel.normal<D>(i, j, k);
  const double th = tt(i, j, k), tl = tt(i - di, j - dj, k);
  const double tu = vn < 0.0 ? th : tl;
  flux(i, j, k) = vn * (pd(i, j, k) - hdt_dxt * tu);
}

/// 3D: the corrections that cell (i, j, k) makes to the fluxes through its D-faces (D
/// the direction other than T1 and T2) when it is their upwind cell: the transport across
/// the cell over dt/2 in direction T1 (stored in a1), then in T2 (a2). The T1-face states
/// of the cell are first corrected by the T2 transport over dt/3 in their own upwind
/// cells, and vice versa: Saltzman's corner coupling, formed here from the transverse
/// terms s.t rather than stored per face. dt3[d] = dt / (3 dx_d), hdt[d] = dt / (2 dx_d).
template <int T1, int T2>
KOKKOS_FORCEINLINE_FUNCTION void ctu_corrections(int i, int j, int k, const Field3& a1,
                                                 const Field3& a2, const CtuStates& s,
                                                 const FaceVelocity& vel,
                                                 const double dt3[3],
                                                 const double hdt[3]) {
  constexpr int i1 = T1 == 0, j1 = T1 == 1, k1 = T1 == 2;
  constexpr int i2 = T2 == 0, j2 = T2 == 1, k2 = T2 == 2;
  const Field3 &p1 = s.p[T1], &p2 = s.p[T2], &t1 = s.t[T1], &t2 = s.t[T2];
  // The cell's lo and hi T1-faces, and the T2 terms of the cells upwind of them.
  const double v1m = vel.normal<T1>(i, j, k),
               v1p = vel.normal<T1>(i + i1, j + j1, k + k1);
  const double t2m = t2(i - i1, j - j1, k - k1), t20 = t2(i, j, k);
  const double t2p = t2(i + i1, j + j1, k + k1);
  // Its T2-faces and the T1 terms of their upwind cells.
  const double v2m = vel.normal<T2>(i, j, k),
               v2p = vel.normal<T2>(i + i2, j + j2, k + k2);
  const double t1m = t1(i - i2, j - j2, k - k2), t10 = t1(i, j, k);
  const double t1p = t1(i + i2, j + j2, k + k2);
  const double u1m = v1m < 0.0 ? t20 : t2m, u1p = v1p < 0.0 ? t2p : t20;
  const double u2m = v2m < 0.0 ? t10 : t1m, u2p = v2p < 0.0 ? t1p : t10;
  // The corner-coupled face states, and the transport they give across the cell.
  const double q1m = p1(i, j, k) - dt3[T2] * u1m;
  const double q1p = p1(i + i1, j + j1, k + k1) - dt3[T2] * u1p;
  const double q2m = p2(i, j, k) - dt3[T1] * u2m;
  const double q2p = p2(i + i2, j + j2, k + k2) - dt3[T1] * u2p;
  a1(i, j, k) = hdt[T1] * (0.5 * (v1p + v1m) * (q1p - q1m));
  a2(i, j, k) = hdt[T2] * (0.5 * (v2p + v2m) * (q2p - q2m));
}

/// 3D: flux through the D-face (i, j, k): the predicted state minus the corrections a1,
/// then a2, of the upwind cell (ctu_corrections), times the face velocity.
template <int D>
KOKKOS_FORCEINLINE_FUNCTION void ctu_flux(int i, int j, int k, const Field3& flux,
                                          const Field3& pd, const Field3& a1,
                                          const Field3& a2, const FaceVelocity& vel) {
  constexpr int di = D == 0, dj = D == 1, dk = D == 2;
  const double vn = vel.normal<D>(i, j, k);
  const double a1h = a1(i, j, k), a1l = a1(i - di, j - dj, k - dk);
  const double a2h = a2(i, j, k), a2l = a2(i - di, j - dj, k - dk);
  const bool hi = vn < 0.0;  // upwind cell on the hi side
  const double c1 = hi ? a1h : a1l, c2 = hi ? a2h : a2l;
  flux(i, j, k) = vn * ((pd(i, j, k) - c1) - c2);
}

/// u_new = u_old - dt/dx_d (F_hi - F_lo) summed over the DIM directions, for one
/// component. Reads u_old only at (i, j, k), so u_new may alias u_old.
template <int DIM>
KOKKOS_FORCEINLINE_FUNCTION void conservative_update(
    int i, int j, int k, const Field3& u_new, const Field3& u_old, const Field3& fx,
    const Field3& fy, const Field3& fz, double dtdx, double dtdy, double dtdz) {
  double du =
      dtdx * (fx(i + 1, j, k) - fx(i, j, k)) + dtdy * (fy(i, j + 1, k) - fy(i, j, k));
  if constexpr (DIM == 3) du += dtdz * (fz(i, j, k + 1) - fz(i, j, k));
  u_new(i, j, k) = u_old(i, j, k) - du;
}

/// 1 / max_d (|vel_d| / dx_d) of cell (i, j, k), with the larger of its two face speeds
/// in each direction; 1e300 where the fluid is at rest. Unsplit CTU with the full corner
/// coupling is stable up to a Courant number of 1 in each direction (Colella 1990,
/// Saltzman 1994), which is also the estimate of AMReX's Advection_AmrCore.
KOKKOS_INLINE_FUNCTION double cell_transit_time(int i, int j, int k, int dim,
                                                const FaceVelocity& vel, double inv_dx,
                                                double inv_dy, double inv_dz) {
  const double ux = kmath::abs(vel.normal<0>(i, j, k)),
               ux1 = kmath::abs(vel.normal<0>(i + 1, j, k));
  const double uy = kmath::abs(vel.normal<1>(i, j, k)),
               uy1 = kmath::abs(vel.normal<1>(i, j + 1, k));
  const double rx = (ux > ux1 ? ux : ux1) * inv_dx, ry = (uy > uy1 ? uy : uy1) * inv_dy;
  double rate = rx > ry ? rx : ry;
  if (dim == 3 && kmath::abs(vel.w) * inv_dz > rate) rate = kmath::abs(vel.w) * inv_dz;
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
template <class A>  // Array4 or FabRef
KOKKOS_INLINE_FUNCTION void initial_cell(int i, int j, int k, const A& u, int ncomp,
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

template <class Tags, class U>
KOKKOS_INLINE_FUNCTION void tag_above(int i, int j, int k, const Tags& tags, const U& u,
                                      double threshold) {
  if (u(i, j, k, 0) > threshold) tags(i, j, k) = 1;
}

/// Tag where the largest undivided central difference |u(+1) - u(-1)|/2 of component 0
/// over the used directions exceeds `threshold`. Reads one ghost cell in each used
/// direction.
template <class Tags, class U>
KOKKOS_INLINE_FUNCTION void tag_gradient(int i, int j, int k, int dim, const Tags& tags,
                                         const U& u, double threshold) {
  double g = 0.5 * kmath::abs(u(i + 1, j, k, 0) - u(i - 1, j, k, 0));
  const double gy = 0.5 * kmath::abs(u(i, j + 1, k, 0) - u(i, j - 1, k, 0));
  if (gy > g) g = gy;
  if (dim == 3) {
    const double gz = 0.5 * kmath::abs(u(i, j, k + 1, 0) - u(i, j, k - 1, 0));
    if (gz > g) g = gz;
  }
  if (g > threshold) tags(i, j, k) = 1;
}

/// Answer-neutral extra work for a cell: `iters` dependent multiply-adds when `phi`
/// exceeds `above` (the caller stores the result where nothing reads it, so it cannot be
/// skipped).
KOKKOS_INLINE_FUNCTION double extra_work(double phi, double above, int iters) {
  double x = phi;
  if (phi > above)
    for (int n = 0; n < iters; ++n)
      x = x * 0.999999 + 1e-6;
  return x;
}

}  // namespace pw
