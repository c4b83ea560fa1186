#include "physics/blast_samples.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "physics/hydro_problems.hpp"

namespace pw {
namespace {

/// Coordinate d of the domain's sample q (cell q / n, sample q % n of it).
double coord(const LevelGeom& g, int d, long q, int n) {
  const long i = q >= 0 ? q / n : -((-q + n - 1) / n);
  return sample_coordinate(g, d, int(i), int(q - i * n), n);
}

/// The samples along d that may lie within [c - r, c + r], of the level's lattice
/// continued beyond the domain.
std::pair<long, long> span(const LevelGeom& g, int d, double c, double r, int n) {
  const double h = g.dx[d] / n;
  return {long(std::floor((c - r - g.prob_lo[d]) / h)) - 1,
          long(std::ceil((c + r - g.prob_lo[d]) / h)) + 1};
}

}  // namespace

double sampled_ball_volume(const LevelGeom& g, const double c[3], double r, int n) {
  const int dim = g.dim;
  const auto [x0, x1] = span(g, 0, c[0], r, n);
  const auto [y0, y1] = span(g, 1, c[1], r, n);
  const auto [z0, z1] = dim == 3 ? span(g, 2, c[2], r, n) : std::pair<long, long>{0, 0};
  const double h = g.dx[0] / n;
  double x[3] = {0.0, 0.0, 0.0};
  const auto inside = [&](long q) {
    x[0] = coord(g, 0, q, n);
    return in_ball(x, dim, c, r);
  };
  long count = 0;
  for (long qz = z0; qz <= z1; ++qz) {
    if (dim == 3) x[2] = coord(g, 2, qz, n);
    for (long qy = y0; qy <= y1; ++qy) {
      x[1] = coord(g, 1, qy, n);
      // Along x the samples inside are one run about the centre: its ends from the chord,
      // then moved until the test the initial data makes agrees (rounding).
      double rest = (x[1] - c[1]) * (x[1] - c[1]);
      if (dim == 3) rest += (x[2] - c[2]) * (x[2] - c[2]);
      const double a = rest < r * r ? std::sqrt(r * r - rest) : 0.0;
      const double at = (c[0] - g.prob_lo[0]) / h - 0.5;  // the centre in samples
      long lo = std::clamp(long(std::ceil(at - a / h)), x0, x1 + 1);
      long hi = std::clamp(long(std::floor(at + a / h)), x0 - 1, x1);
      while (lo > x0 && inside(lo - 1))
        --lo;
      while (lo <= hi && !inside(lo))
        ++lo;
      while (hi < x1 && inside(hi + 1))
        ++hi;
      while (hi >= lo && !inside(hi))
        --hi;
      count += std::max(0L, hi - lo + 1);
    }
  }
  double v = double(count);
  for (int d = 0; d < dim; ++d)
    v *= g.dx[d] / n;
  return v;
}

}  // namespace pw
