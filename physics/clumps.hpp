// Moving Gaussian "clumps": the right-hand side of the Poisson workload, and the
// over-densities of the hydro module's collapsing clouds. Plain data, captured by
// kernels.
#pragma once

#include "amr/deck.hpp"
#include "amr/level_geom.hpp"
#include "physics/velocity_fields.hpp"

namespace pw {

struct Clumps {
  static constexpr int kMax = 64;
  int count = 0;
  double center[kMax][3] = {};  // at t = 0
  double velocity[kMax][3] = {};
  double amplitude[kMax] = {};
  double inv_width2[kMax] = {};
  double lo[3] = {0, 0, 0}, len[3] = {1, 1, 1};  // the domain, for periodic images
  bool periodic[3] = {false, false, false};

  /// Sum of the clumps at point x and time t; in a periodic direction each clump counts
  /// at its nearest image. With mv: mv[d] += the sum of each clump's value times its
  /// velocity (the momentum of gas whose density the clumps are).
  KOKKOS_INLINE_FUNCTION double operator()(const double x[3], int dim, double t,
                                           double* mv = nullptr) const {
    double f = 0.0;
    for (int c = 0; c < count; ++c) {
      double r2 = 0.0;
      for (int d = 0; d < dim; ++d) {
        double dx = x[d] - (center[c][d] + velocity[c][d] * t);
        if (periodic[d]) dx -= len[d] * kmath::floor(dx / len[d] + 0.5);
        r2 += dx * dx;
      }
      const double v = amplitude[c] * kmath::exp(-r2 * inv_width2[c]);
      f += v;
      if (mv)
        for (int d = 0; d < dim; ++d)
          mv[d] += v * velocity[c][d];
    }
    return f;
  }
};

/// Deck section [clumps] (defaults in brackets): count [8] (at most 64), seed [1],
/// width [0.05] (Gaussian e-folding radius), amplitude [1.0] (the largest; each clump
/// draws one in [amplitude/2, amplitude]), speed [default_speed] (each clump moves at
/// this speed in a random direction); or explicit lists centers (count x dim numbers),
/// velocities, amplitudes, widths. Centres are drawn in the middle 60% of each
/// direction of g's domain. UserError naming the key on a bad value.
Clumps read_clumps(const Deck& deck, const LevelGeom& g, double default_speed);

}  // namespace pw
