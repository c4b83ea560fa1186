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

  /// The primitive state at point x (dim coordinates used) and time t.
  KOKKOS_INLINE_FUNCTION void primitive(const double x[3], int dim, double gamma,
                                        double t, double* w) const {
    using namespace hydro_index;
    for (int c = 0; c < 3; ++c)
      w[vel + c] = 0.0;
    double tracer = 0.0;
    switch (kind) {
      case HydroProblemKind::shock_tube: {
        const int s = x[axis] < position ? 0 : 1;
        w[rho] = state[s][0];
        w[vel + axis] = state[s][1];
        w[pres] = state[s][2];
        tracer = s == 0 ? 1.0 : 0.0;
        break;
      }
      case HydroProblemKind::shockpool: {
        double along = 0.0;
        for (int d = 0; d < dim; ++d)
          along += normal[d] * x[d];
        const int s = along < position + speed * t ? 0 : 1;
        w[rho] = state[s][0];
        for (int d = 0; d < dim; ++d)
          w[vel + d] = state[s][1] * normal[d];
        w[pres] = state[s][2];
        tracer = s == 0 ? 1.0 : 0.0;
        break;
      }
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
        w[rho] = rho0;
        w[pres] = p0;
        for (int d = 0; d < 3; ++d)
          w[vel + d] = velocity[d];
        break;
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

  /// The cell average of the conserved state of cell (i, j, k) of level g at time t from
  /// n^dim samples at sub-cell centres, into u.
  KOKKOS_INLINE_FUNCTION void cell_average(const LevelGeom& g, int i, int j, int k,
                                           double gamma, double t, int n,
                                           const Array4& u) const {
    using namespace hydro_index;
    double sum[max_vars] = {};
    const int nv = nbase + nscalars;
    const int nk = g.dim == 3 ? n : 1;
    const int idx[3] = {i, j, k};
    for (int c = 0; c < n * n * nk; ++c) {
      const int sub[3] = {c % n, (c / n) % n, c / (n * n)};
      double x[3];
      for (int d = 0; d < 3; ++d)
        x[d] = sample_coordinate(g, d, idx[d], sub[d], n);
      double w[max_vars], f[max_vars], uc[max_vars];
      primitive(x, g.dim, gamma, t, w);
      HydroParams hp;
      hp.gamma = gamma;
      hp.nscalars = nscalars;
      euler_flux(hp, 0, w, f, uc);  // the gas's conserved state
      for (int v = nbase; v < nv; ++v)
        uc[v] = w[rho] * w[v];
      for (int v = 0; v < nv; ++v)
        sum[v] += uc[v];
    }
    const double inv = 1.0 / (n * n * nk);
    for (int v = 0; v < nv; ++v)
      u(i, j, k, v) = sum[v] * inv;
  }
};

}  // namespace pw
