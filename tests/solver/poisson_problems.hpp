// Poisson problems with exact solutions for the solver tests, and a hash of a field's
// bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>

#include "solver/mg_config.hpp"

namespace pw::testing {

constexpr double kPi = 3.14159265358979323846;
using Fn = std::function<double(double, double, double)>;

struct Problem {
  int dim = 3;
  int n = 16;
  int max_grid = 8;
  bool periodic = true;
  PoissonBc bc;  // for the non-periodic faces
  Fn f, exact;
  MgConfig cfg;
};

/// pb with a NaN in f near the domain's lower corner (the first cells of a unit domain
/// of at most 16 cells a side, far from the refined regions of the composite tests).
inline Problem with_nan_in_f(Problem pb) {
  const Fn f = pb.f;
  pb.f = [f](double x, double y, double z) {
    return x < 0.06 && y < 0.06 && z < 0.06 ? std::nan("") : f(x, y, z);
  };
  return pb;
}

inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline Problem periodic_sines(int dim) {
  Problem pb;
  pb.dim = dim;
  const double k2 = dim * 4 * kPi * kPi;
  pb.exact = [dim](double x, double y, double z) {
    return std::sin(2 * kPi * x) * std::sin(2 * kPi * y) *
           (dim == 3 ? std::sin(2 * kPi * z) : 1.0);
  };
  pb.f = [pb, k2](double x, double y, double z) { return -k2 * pb.exact(x, y, z); };
  return pb;
}

inline Problem dirichlet_sines(int dim) {
  // phi = 2 + sin(pi x) sin(pi y) (sin(pi z)): the value 2 on every face.
  Problem pb;
  pb.dim = dim;
  pb.periodic = false;
  for (int d = 0; d < 3; ++d)
    pb.bc.lo[d] = pb.bc.hi[d] = {BcKind::dirichlet, 2.0};
  const double k2 = dim * kPi * kPi;
  auto s = [dim](double x, double y, double z) {
    return std::sin(kPi * x) * std::sin(kPi * y) * (dim == 3 ? std::sin(kPi * z) : 1.0);
  };
  pb.exact = [s](double x, double y, double z) { return 2.0 + s(x, y, z); };
  pb.f = [s, k2](double x, double y, double z) { return -k2 * s(x, y, z); };
  return pb;
}

}  // namespace pw::testing
