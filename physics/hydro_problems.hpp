// Initial states of the hydro module's problems: shock tube, point blast, ShockPool's
// plane shock, a travelling sound wave, a uniform flow, and with self-gravity a Jeans
// wave and collapsing clumps. Plain data, captured by
// kernels: the primitive state at a point, and cell averages of the conserved state
// from sub-cell samples (so a blast's energy and a tube's interface are deposited in
// proportion to the part of each cell they cover).
#pragma once

#include "amr/fab.hpp"
#include "amr/level_geom.hpp"
#include "physics/clumps.hpp"
#include "physics/hydro_kernels.hpp"
#include "physics/kmath.hpp"

namespace pw {

/// Samples per direction of a cell's initial data (cell_average).
constexpr int kInitialSamples = 4;

/// Coordinate d of sample s (0 .. n-1) of cell i: the expression cell_average takes,
/// shared with the host's count of a blast's samples so that both decide alike.
KOKKOS_INLINE_FUNCTION double sample_coordinate(const LevelGeom& g, int d, int i, int s,
                                                int n) {
  return g.prob_lo[d] + (i + (s + 0.5) / n) * g.dx[d];
}

/// Whether point x (dim coordinates) lies strictly inside the ball of radius r about c.
KOKKOS_INLINE_FUNCTION bool in_ball(const double x[3], int dim, const double c[3],
                                    double r) {
  double r2 = 0.0;
  for (int d = 0; d < dim; ++d)
    r2 += (x[d] - c[d]) * (x[d] - c[d]);
  return r2 < r * r;
}

enum class HydroProblemKind {
  shock_tube,
  blast,
  shockpool,
  sound_wave,
  uniform,
  jeans,
  clumps
};

struct HydroProblem {
  HydroProblemKind kind = HydroProblemKind::shock_tube;
  // shock_tube and shockpool: the axis and the position of the interface or front; the
  // left/behind (0) and right/ahead (1) states as density, velocity along the axis (the
  // normal), pressure. shockpool: the front n.x = position + speed t moves along the
  // unit normal n at `speed`.
  int axis = 0;
  double position = 0.5;
  double normal[3] = {1, 0, 0};
  double speed = 0;
  double state[2][3] = {{1.0, 0.0, 1.0}, {0.125, 0.0, 0.1}};
  // blast: energy in a sphere (a cylinder per unit length in 2D) of radius `radius`
  // about `center`, in a medium of density rho0 and pressure p0 at rest.
  double center[3] = {0.5, 0.5, 0.5};
  double radius = 0.05, energy = 1.0, rho0 = 1.0, p0 = 1e-5;
  // The volume the level's initial-data samples give the ball (those inside times their
  // volume): dividing the energy by it deposits exactly `energy` on every level, where
  // the ball's exact volume missed it by the samples' rounding (+21% or -9% for a radius
  // of a few samples). 0: the exact volume.
  double blast_volume = 0.0;
  // sound_wave: rho0 (1 + amplitude sin(2 pi k.x)) travelling along k at the sound speed
  // of (rho0, p0); uniform: rho0, p0 and `velocity`.
  double amplitude = 1e-6;
  double wavenumber[3] = {1, 0, 0};
  double velocity[3] = {0, 0, 0};
  // jeans: gas at rest, rho0 (1 + amplitude cos(2 pi k.x)) with the adiabatic pressure
  // p0 (1 + gamma amplitude cos(2 pi k.x)): a standing wave that gravity makes grow
  // (cosh) or oscillate (cos) by the Jeans dispersion relation.
  // clumps: density rho0 plus the clumps, pressure p0, the clump gas moving with its
  // clump.
  Clumps clumps;
  // Scalars: scalar s is 1 where the primitive state came from side 0 of a tube or
  // behind a front, inside the blast, or above the wave's mean; else 0.
  int nscalars = 0;

  /// Whether the state is constant on either side of a plane (side_state): a shock
  /// tube, a shockpool front, a uniform flow.
  KOKKOS_INLINE_FUNCTION bool has_sides() const {
    return kind == HydroProblemKind::shock_tube || kind == HydroProblemKind::shockpool ||
           kind == HydroProblemKind::uniform;
  }

  /// Point x's distance along a shockpool front's normal. The one expression primitive
  /// and uniform_side evaluate: each step is monotone in x[d], with its multiply and add
  /// fused or not, so uniform_side's bounds stay exact as long as both are compiled
  /// alike (the build turns fusing off: cmake/PatchworkHostArch.cmake).
  KOKKOS_INLINE_FUNCTION double along(const double x[3], int dim) const {
    double a = 0.0;
    for (int d = 0; d < dim; ++d)
      a += normal[d] * x[d];
    return a;
  }
  /// Where a shockpool front is along its normal at time t.
  KOKKOS_INLINE_FUNCTION double front_at(double t) const { return position + speed * t; }

  /// The primitive state at point x (dim coordinates used) and time t.
  KOKKOS_INLINE_FUNCTION void primitive(const double x[3], int dim, double gamma,
                                        double t, double* w) const {
    using namespace hydro_index;
    for (int c = 0; c < 3; ++c)
      w[vel + c] = 0.0;
    double tracer = 0.0;
    switch (kind) {
      case HydroProblemKind::shock_tube:
        side_state(x[axis] < position ? 0 : 1, dim, w);
        return;
      case HydroProblemKind::shockpool:
        side_state(along(x, dim) < front_at(t) ? 0 : 1, dim, w);
        return;
      case HydroProblemKind::blast: {
        const double exact = dim == 3 ? 4.0 / 3.0 * kmath::pi * radius * radius * radius
                                      : kmath::pi * radius * radius;
        const double volume = blast_volume > 0.0 ? blast_volume : exact;
        const bool in = in_ball(x, dim, center, radius);
        w[rho] = rho0;
        w[pres] = in ? (gamma - 1.0) * energy / volume : p0;
        tracer = in ? 1.0 : 0.0;
        break;
      }
      case HydroProblemKind::sound_wave: {
        double phase = 0.0, k2 = 0.0;
        for (int d = 0; d < dim; ++d) {
          phase += wavenumber[d] * x[d];
          k2 += wavenumber[d] * wavenumber[d];
        }
        const double s = amplitude * kmath::sin(2.0 * kmath::pi * phase);
        const double c0 = kmath::sqrt(gamma * p0 / rho0);
        const double inv_k = 1.0 / kmath::sqrt(k2);
        w[rho] = rho0 * (1.0 + s);
        for (int d = 0; d < dim; ++d)
          w[vel + d] = c0 * s * wavenumber[d] * inv_k;
        w[pres] = p0 + c0 * c0 * rho0 * s;
        tracer = s > 0 ? 1.0 : 0.0;
        break;
      }
      case HydroProblemKind::uniform:
        side_state(0, dim, w);
        return;
      case HydroProblemKind::jeans: {
        double phase = 0.0;
        for (int d = 0; d < dim; ++d)
          phase += wavenumber[d] * x[d];
        const double s = amplitude * kmath::cos(2.0 * kmath::pi * phase);
        w[rho] = rho0 * (1.0 + s);
        w[pres] = p0 * (1.0 + gamma * s);
        tracer = s > 0 ? 1.0 : 0.0;
        break;
      }
      case HydroProblemKind::clumps: {
        double mv[3] = {0, 0, 0};
        const double excess = clumps(x, dim, 0.0, mv);
        w[rho] = rho0 + excess;
        w[pres] = p0;
        for (int d = 0; d < dim; ++d)
          w[vel + d] = mv[d] / w[rho];
        tracer = excess / w[rho];  // the fraction of clump gas
        break;
      }
    }
    for (int s = 0; s < nscalars; ++s)
      w[nbase + s] = tracer;
  }

  /// The primitive state on side s (0 behind, 1 ahead) of a shock tube's interface or
  /// a shockpool's front, or a uniform problem's state (side 0): the problems whose
  /// state is constant on either side of a plane.
  KOKKOS_INLINE_FUNCTION void side_state(int s, int dim, double* w) const {
    using namespace hydro_index;
    for (int c = 0; c < 3; ++c)
      w[vel + c] = 0.0;
    double tracer = 0.0;
    if (kind == HydroProblemKind::uniform) {
      w[rho] = rho0;
      w[pres] = p0;
      for (int d = 0; d < 3; ++d)
        w[vel + d] = velocity[d];
    } else {
      w[rho] = state[s][0];
      if (kind == HydroProblemKind::shock_tube)
        w[vel + axis] = state[s][1];
      else
        for (int d = 0; d < dim; ++d)
          w[vel + d] = state[s][1] * normal[d];
      w[pres] = state[s][2];
      tracer = s == 0 ? 1.0 : 0.0;
    }
    for (int v = 0; v < nscalars; ++v)
      w[hydro_index::nbase + v] = tracer;
  }

  /// The side (side_state) every sample of cell idx of level g that cell_average takes
  /// lies on, or -1 when they are not all on one, or the problem has no sides. Exact,
  /// not within a margin: a sample's coordinate is monotone in its index, and its
  /// distance from the front in its coordinates (along), so the samples nearest and
  /// farthest along the normal bound every other's.
  KOKKOS_INLINE_FUNCTION int uniform_side(const LevelGeom& g, const int idx[3], double t,
                                          int n) const {
    double lo = 0.0, hi = 0.0, at = 0.0;
    switch (kind) {
      case HydroProblemKind::shock_tube:
        lo = sample_coordinate(g, axis, idx[axis], 0, n);
        hi = sample_coordinate(g, axis, idx[axis], n - 1, n);
        at = position;
        break;
      case HydroProblemKind::shockpool: {
        double lowest[3] = {}, highest[3] = {};  // the samples least and most along
        for (int d = 0; d < g.dim; ++d) {
          const double a = sample_coordinate(g, d, idx[d], 0, n);
          const double b = sample_coordinate(g, d, idx[d], n - 1, n);
          lowest[d] = normal[d] >= 0 ? a : b;
          highest[d] = normal[d] >= 0 ? b : a;
        }
        lo = along(lowest, g.dim);
        hi = along(highest, g.dim);
        at = front_at(t);
        break;
      }
      case HydroProblemKind::uniform:
        return 0;
      default:
        return -1;
    }
    return hi < at ? 0 : lo < at ? -1 : 1;
  }

  /// The conserved state of primitive state w.
  KOKKOS_INLINE_FUNCTION void conserved(const double* w, double gamma, double* uc) const {
    using namespace hydro_index;
    HydroParams hp;
    hp.gamma = gamma;
    hp.nscalars = nscalars;
    double f[max_vars];
    euler_flux(hp, 0, w, f, uc);  // the gas's conserved state
    for (int v = nbase; v < nbase + nscalars; ++v)
      uc[v] = w[rho] * w[v];
  }

  /// The cell averages on either side of a front (side_state): cell_average's sum of
  /// n^dim equal samples, in its order, so that a cell the front misses takes them bit
  /// for bit as its own samples give them. Computed once per launch.
  struct SideAverages {
    double u[2][hydro_index::max_vars] = {};
  };
  SideAverages side_averages(int dim, double gamma, int n) const {
    SideAverages a;
    if (!has_sides()) return a;
    const int nv = hydro_index::nbase + nscalars;
    const int nk = dim == 3 ? n : 1;
    for (int s = 0; s < 2; ++s) {
      double w[hydro_index::max_vars], uc[hydro_index::max_vars];
      side_state(s, dim, w);
      conserved(w, gamma, uc);
      for (int c = 0; c < n * n * nk; ++c)
        for (int v = 0; v < nv; ++v)
          a.u[s][v] += uc[v];
      const double inv = 1.0 / (n * n * nk);
      for (int v = 0; v < nv; ++v)
        a.u[s][v] *= inv;
    }
    return a;
  }

  /// The cell average of the conserved state of cell (i, j, k) of level g at time t from
  /// n^dim samples at sub-cell centres, into u; a cell whose samples all lie on one side
  /// of a front (uniform_side) takes that side's average from `sides` (an inflow face's
  /// ghost cells take them at every fill: their samples cost more than the update).
  /// A is Array4 or FabRef.
  template <class A>
  KOKKOS_INLINE_FUNCTION void cell_average(const LevelGeom& g, int i, int j, int k,
                                           double gamma, double t, int n,
                                           const SideAverages& sides, const A& u) const {
    const int nv = hydro_index::nbase + nscalars;
    const int idx[3] = {i, j, k};
    const int side = uniform_side(g, idx, t, n);
    if (side >= 0) {
      for (int v = 0; v < nv; ++v)
        u(i, j, k, v) = sides.u[side][v];
      return;
    }
    double sum[hydro_index::max_vars] = {};
    const int nk = g.dim == 3 ? n : 1;
    for (int c = 0; c < n * n * nk; ++c) {
      const int sub[3] = {c % n, (c / n) % n, c / (n * n)};
      double x[3], w[hydro_index::max_vars], uc[hydro_index::max_vars];
      for (int d = 0; d < 3; ++d)
        x[d] = sample_coordinate(g, d, idx[d], sub[d], n);
      primitive(x, g.dim, gamma, t, w);
      conserved(w, gamma, uc);
      for (int v = 0; v < nv; ++v)
        sum[v] += uc[v];
    }
    const double inv = 1.0 / (n * n * nk);
    for (int v = 0; v < nv; ++v)
      u(i, j, k, v) = sum[v] * inv;
  }
};

}  // namespace pw
