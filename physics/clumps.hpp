// Moving Gaussian "clumps": the right-hand side of the Poisson workload. Plain data,
// captured by kernels.
#pragma once

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
  /// at its nearest image.
  KOKKOS_INLINE_FUNCTION double operator()(const double x[3], int dim, double t) const {
    double f = 0.0;
    for (int c = 0; c < count; ++c) {
      double r2 = 0.0;
      for (int d = 0; d < dim; ++d) {
        double dx = x[d] - (center[c][d] + velocity[c][d] * t);
        if (periodic[d]) dx -= len[d] * kmath::floor(dx / len[d] + 0.5);
        r2 += dx * dx;
      }
      f += amplitude[c] * kmath::exp(-r2 * inv_width2[c]);
    }
    return f;
  }
};

}  // namespace pw
