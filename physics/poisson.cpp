#include "physics/poisson.hpp"

#include <cmath>
#include <cstdint>

#include "amr/amr_config.hpp"
#include "solver/mg_config.hpp"

namespace pw {

namespace {

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

double positive(const Deck& deck, const std::string& key, double def) {
  const double x = deck.get<double>(key, def);
  if (!(x > 0.0) || !std::isfinite(x))
    deck.fail(key, "expected a finite number > 0, got " + to_toml(x));
  return x;
}

/// The list at `key` (count * per numbers), or fail.
std::vector<double> numbers(const Deck& deck, const std::string& key, int count,
                            int per) {
  const std::vector<double> v = deck.get<std::vector<double>>(key, {});
  if (int(v.size()) != count * per)
    deck.fail(key, "expected " + std::to_string(count * per) + " numbers (" +
                       std::to_string(per) + " per clump), got " +
                       std::to_string(v.size()));
  for (double x : v)
    if (!std::isfinite(x)) deck.fail(key, "expected finite numbers");
  return v;
}

}  // namespace

PoissonWorkload::PoissonWorkload(const Deck& deck, int dim) : dim_(dim) {
  const AmrConfig amr = read_amr_config(deck);
  const LevelGeom& g = amr.geom0;
  dx0_ = g.dx[0];
  for (int d = 0; d < dim; ++d) {
    clumps_.lo[d] = g.prob_lo[d];
    clumps_.len[d] = (g.domain.hi[d] - g.domain.lo[d] + 1) * g.dx[d];
    clumps_.periodic[d] = g.periodic[d];
  }
  const int n = deck.get<int>("clumps.count", 8);
  if (n < 1 || n > Clumps::kMax)
    deck.fail("clumps.count", "expected 1 to " + std::to_string(Clumps::kMax) + ", got " +
                                  std::to_string(n));
  clumps_.count = n;
  if (deck.has("clumps.centers")) {  // an explicit list
    const auto c = numbers(deck, "clumps.centers", n, dim);
    const auto v = numbers(deck, "clumps.velocities", n, dim);
    const auto a = numbers(deck, "clumps.amplitudes", n, 1);
    const auto w = numbers(deck, "clumps.widths", n, 1);
    for (int k = 0; k < n; ++k) {
      for (int d = 0; d < dim; ++d) {
        clumps_.center[k][d] = c[size_t(k * dim + d)];
        clumps_.velocity[k][d] = v[size_t(k * dim + d)];
      }
      clumps_.amplitude[k] = a[size_t(k)];
      if (!(w[size_t(k)] > 0)) deck.fail("clumps.widths", "expected numbers > 0");
      clumps_.inv_width2[k] = 1.0 / (w[size_t(k)] * w[size_t(k)]);
    }
  } else {  // drawn from the seed
    const int seed = deck.get<int>("clumps.seed", 1);
    const double width = positive(deck, "clumps.width", 0.05);
    const double amp = positive(deck, "clumps.amplitude", 1.0);
    const double speed = deck.get<double>("clumps.speed", 0.5);
    if (!(speed >= 0) || !std::isfinite(speed))
      deck.fail("clumps.speed", "expected a finite number >= 0");
    Uniform u{std::uint64_t(seed)};
    for (int k = 0; k < n; ++k) {
      double dir[3] = {0, 0, 0}, norm = 0;
      for (int d = 0; d < dim; ++d) {
        clumps_.center[k][d] = clumps_.lo[d] + (0.2 + 0.6 * u()) * clumps_.len[d];
        dir[d] = u() - 0.5;
        norm += dir[d] * dir[d];
      }
      norm = std::sqrt(norm) > 0 ? std::sqrt(norm) : 1.0;
      for (int d = 0; d < dim; ++d)
        clumps_.velocity[k][d] = speed * dir[d] / norm;
      clumps_.amplitude[k] = amp * (0.5 + 0.5 * u());
      clumps_.inv_width2[k] = 1.0 / (width * width);
    }
  }
  double amax = 0;
  for (int k = 0; k < n; ++k) {
    double v2 = 0;
    for (int d = 0; d < dim; ++d)
      v2 += clumps_.velocity[k][d] * clumps_.velocity[k][d];
    max_speed_ = std::max(max_speed_, std::sqrt(v2));
    amax = std::max(amax, std::abs(clumps_.amplitude[k]));
  }
  tag_threshold_ = positive(deck, "poisson.tag_threshold", 0.01) * amax * dx0_ * dx0_;
  // phi's walls are the solver's; f and res are only ever read inside the domain.
  const PoissonBc bc = read_poisson_bc(deck, g);
  bcs_ = bc.as_bcs();
  bcs_.push_back(ComponentBc());
  bcs_.push_back(ComponentBc());
}

std::vector<Interp> PoissonWorkload::interpolation() const {
  return {Interp::quadratic, Interp::conservative_linear, Interp::conservative_linear};
}

void PoissonWorkload::initial_data(const LevelGeom& g, const Box& box, const Array4& u,
                                   double time) const {
  const Clumps c = clumps_;
  const int dim = dim_;
  for_each_cell(
      "poisson::initial_data", box, KOKKOS_LAMBDA(int i, int j, int k) {
        const double x[3] = {g.center(0, i), g.center(1, j), g.center(2, k)};
        u(i, j, k, 0) = 0.0;
        u(i, j, k, 1) = c(x, dim, time);
        u(i, j, k, 2) = 0.0;
      });
}

double PoissonWorkload::stable_dt(const LevelGeom& g, const Box&, const Array4&, double,
                                  const Scratch&) const {
  double dx = g.dx[0];
  for (int d = 1; d < dim_; ++d)
    dx = std::min(dx, g.dx[d]);
  return max_speed_ > 0 ? dx / max_speed_ : 1e300;
}

void PoissonWorkload::advance(const LevelGeom& g, const Box& box, const Array4& u_old,
                              const Array4& u_new, const Array4 flux[3], double time,
                              double dt, const Scratch&, const Counters&) const {
  const Clumps c = clumps_;
  const int dim = dim_;
  const double t = time + dt;
  for_each_cell(
      "poisson::advance", box, KOKKOS_LAMBDA(int i, int j, int k) {
        const double x[3] = {g.center(0, i), g.center(1, j), g.center(2, k)};
        u_new(i, j, k, 0) = u_old(i, j, k, 0);
        u_new(i, j, k, 1) = c(x, dim, t);
        u_new(i, j, k, 2) = u_old(i, j, k, 2);
      });
  for (int d = 0; d < dim_; ++d) {
    const Array4 f = flux[d];
    for_each_cell(
        "poisson::zero_flux", faces(box, d), KOKKOS_LAMBDA(int i, int j, int k) {
          for (int n = 0; n < 3; ++n)
            f(i, j, k, n) = 0.0;
        });
  }
}

void PoissonWorkload::tag(const LevelGeom& g, const Box& box, const Array4& u,
                          const TagArray& tags, int /*level*/, double /*time*/) const {
  // |f| dx^2 = |lap phi| dx^2 once solved: the undivided Laplacian.
  const double thr = tag_threshold_ / (g.dx[0] * g.dx[0]);
  for_each_cell(
      "poisson::tag", box, KOKKOS_LAMBDA(int i, int j, int k) {
        const double f = u(i, j, k, 1);
        if ((f < 0 ? -f : f) > thr) tags(i, j, k) = 1;
      });
}

}  // namespace pw
