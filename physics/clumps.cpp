#include "physics/clumps.hpp"

#include <cmath>
#include <cstdint>

#include "physics/deck_values.hpp"

namespace pw {

namespace {

using deck_values::positive;

/// Uniform doubles in [0, 1) from a seed, the same on every platform (splitmix64).
struct Uniform {
  std::uint64_t state;
  double operator()() {
    std::uint64_t x = (state += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return double(x >> 11) * 0x1.0p-53;
  }
};

/// The list at `key` (count * per numbers), or fail.
std::vector<double> numbers(const Deck& deck, const std::string& key, int count,
                            int per) {
  const std::string want = std::to_string(count * per) + " numbers (" +
                           std::to_string(per) + " per clump, in one flat list)";
  if (!deck.has(key))
    deck.fail(key,
              "missing: clumps.centers lists the clumps, so this key must too: " + want);
  const std::vector<double> v = deck.get<std::vector<double>>(key, {});
  if (int(v.size()) != count * per)
    deck.fail(key, "expected " + want + ", got " + std::to_string(v.size()));
  for (double x : v)
    if (!std::isfinite(x)) deck.fail(key, "expected finite numbers");
  return v;
}

}  // namespace

Clumps read_clumps(const Deck& deck, const LevelGeom& g, double default_speed) {
  Clumps clumps;
  const int dim = g.dim;
  for (int d = 0; d < dim; ++d) {
    clumps.lo[d] = g.prob_lo[d];
    clumps.len[d] = (g.domain.hi[d] - g.domain.lo[d] + 1) * g.dx[d];
    clumps.periodic[d] = g.periodic[d];
  }
  const int n = deck.get<int>("clumps.count", 8);
  if (n < 1 || n > Clumps::kMax)
    deck.fail("clumps.count", "expected 1 to " + std::to_string(Clumps::kMax) + ", got " +
                                  std::to_string(n));
  clumps.count = n;
  if (deck.has("clumps.centers")) {  // an explicit list
    const auto c = numbers(deck, "clumps.centers", n, dim);
    const auto v = numbers(deck, "clumps.velocities", n, dim);
    const auto a = numbers(deck, "clumps.amplitudes", n, 1);
    const auto w = numbers(deck, "clumps.widths", n, 1);
    for (int k = 0; k < n; ++k) {
      for (int d = 0; d < dim; ++d) {
        clumps.center[k][d] = c[size_t(k * dim + d)];
        clumps.velocity[k][d] = v[size_t(k * dim + d)];
      }
      clumps.amplitude[k] = a[size_t(k)];
      if (!(w[size_t(k)] > 0)) deck.fail("clumps.widths", "expected numbers > 0");
      clumps.inv_width2[k] = 1.0 / (w[size_t(k)] * w[size_t(k)]);
    }
  } else {  // drawn from the seed
    const int seed = deck.get<int>("clumps.seed", 1);
    const double width = positive(deck, "clumps.width", 0.05);
    const double amp = positive(deck, "clumps.amplitude", 1.0);
    const double speed = deck.get<double>("clumps.speed", default_speed);
    if (!(speed >= 0) || !std::isfinite(speed))
      deck.fail("clumps.speed", "expected a finite number >= 0");
    Uniform u{std::uint64_t(seed)};
    for (int k = 0; k < n; ++k) {
      double dir[3] = {0, 0, 0}, norm = 0;
      for (int d = 0; d < dim; ++d) {
        clumps.center[k][d] = clumps.lo[d] + (0.2 + 0.6 * u()) * clumps.len[d];
        dir[d] = u() - 0.5;
        norm += dir[d] * dir[d];
      }
      norm = std::sqrt(norm) > 0 ? std::sqrt(norm) : 1.0;
      for (int d = 0; d < dim; ++d)
        clumps.velocity[k][d] = speed * dir[d] / norm;
      clumps.amplitude[k] = amp * (0.5 + 0.5 * u());
      clumps.inv_width2[k] = 1.0 / (width * width);
    }
  }
  return clumps;
}

}  // namespace pw
