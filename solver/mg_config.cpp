#include "solver/mg_config.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "amr/box_set.hpp"

namespace pw {

namespace {

double tolerance(const Deck& deck, const std::string& key, double def) {
  const double x = deck.get<double>(key, def);
  if (!(x >= 0.0) || !std::isfinite(x))
    deck.fail(key, "expected a finite number >= 0, got " + to_toml(x));
  return x;
}

int count(const Deck& deck, const std::string& key, int def, int least) {
  const int n = deck.get<int>(key, def);
  if (n < least)
    deck.fail(key, "expected an integer >= " + std::to_string(least) + ", got " +
                       std::to_string(n));
  return n;
}

std::string choice(const Deck& deck, const std::string& key, const std::string& def,
                   const std::string& a, const std::string& b) {
  const std::string s = deck.get<std::string>(key, def);
  if (s != a && s != b)
    deck.fail(key, "expected \"" + a + "\" or \"" + b + "\", got \"" + s + "\"");
  return s;
}

}  // namespace

MgConfig read_mg_config(const Deck& deck) {
  MgConfig c;
  c.rtol = tolerance(deck, "poisson.rtol", c.rtol);
  // At 1 or more the residual of phi = 0 already meets it: no solve would ever run.
  if (c.rtol >= 1.0)
    deck.fail("poisson.rtol",
              "expected a relative tolerance < 1, got " + to_toml(c.rtol));
  c.atol = tolerance(deck, "poisson.atol", c.atol);
  if (c.rtol == 0.0 && c.atol == 0.0)
    deck.fail("poisson.rtol", "expected poisson.rtol or poisson.atol > 0 (both are 0)");
  c.max_cycles = count(deck, "poisson.max_cycles", c.max_cycles, 1);
  c.pre_smooth = count(deck, "poisson.pre_smooth", c.pre_smooth, 0);
  c.post_smooth = count(deck, "poisson.post_smooth", c.post_smooth, 0);
  if (c.pre_smooth + c.post_smooth == 0)
    deck.fail("poisson.post_smooth",
              "expected at least one smoothing sweep (pre_smooth + post_smooth >= 1)");
  const int dim = deck.get<int>("domain.dim", 2);  // the default of read_amr_config
  c.omega = deck.get<double>("poisson.omega", dim == 3 ? 1.3 : 1.15);
  if (!(c.omega > 0.0 && c.omega < 2.0))
    deck.fail("poisson.omega", "expected a number in (0, 2), got " + to_toml(c.omega));
  c.f_cycle = choice(deck, "poisson.cycle", "V", "V", "F") == "F";
  c.linear_prolongation =
      choice(deck, "poisson.prolongation", "linear", "linear", "constant") == "linear";
  c.bottom_max_iter = count(deck, "poisson.bottom_max_iter", c.bottom_max_iter, 1);
  if (deck.has("poisson.bottom_gather_cells"))  // renamed on 2026-12-02
    deck.fail(
        "poisson.bottom_gather_cells",
        "renamed poisson.gather_cells (it now holds every grid below a level with at "
        "most that many cells, not only the bottom)");
  if (deck.has("poisson.gather_cells"))
    c.gather_cells = count(deck, "poisson.gather_cells", 0, 0);
  c.fail_on_divergence = deck.get<bool>("poisson.fail_on_divergence", false);
  c.level_cycles = count(deck, "poisson.level_cycles", c.level_cycles, 1);
  return c;
}

bool serial_launches() {
#ifdef KOKKOS_ENABLE_SERIAL
  return std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::Serial>;
#else
  return false;
#endif
}

int gather_limit(const MgConfig& cfg, int ranks) {
  if (cfg.gather_cells >= 0) return cfg.gather_cells;
  if (ranks == 1 && detail::host_exec()) return std::numeric_limits<int>::max();
  return serial_launches() ? 512 : 4096;
}

bool PoissonBc::singular(const LevelGeom& g) const {
  for (int d = 0; d < g.dim; ++d)
    if (!g.periodic[d] &&
        (lo[d].kind == BcKind::dirichlet || hi[d].kind == BcKind::dirichlet))
      return false;
  return true;
}

PoissonBc PoissonBc::homogeneous() const {
  PoissonBc h = *this;
  for (int d = 0; d < 3; ++d)
    h.lo[d].value = h.hi[d].value = 0.0;
  return h;
}

BcSet PoissonBc::as_bcs() const {
  ComponentBc c;
  for (int d = 0; d < 3; ++d) {
    c.lo[d] = lo[d];
    c.hi[d] = hi[d];
  }
  return {c};
}

PoissonBc read_poisson_bc(const Deck& deck, const LevelGeom& geom) {
  PoissonBc bc;
  for (int d = 0; d < 3; ++d)
    bc.lo[d] = bc.hi[d] = {BcKind::dirichlet, 0.0};
  for (int side = 0; side < 2; ++side) {
    const std::string key = side == 0 ? "poisson.bc_lo" : "poisson.bc_hi";
    const std::vector<std::string> def(size_t(geom.dim), "dirichlet");
    const auto kinds = deck.get<std::vector<std::string>>(key, def);
    const auto values = deck.get<std::vector<double>>(
        key + "_value", std::vector<double>(size_t(geom.dim), 0.0));
    if (int(kinds.size()) != geom.dim)
      deck.fail(key,
                "expected " + std::to_string(geom.dim) + " names (one per direction)");
    if (int(values.size()) != geom.dim)
      deck.fail(key + "_value",
                "expected " + std::to_string(geom.dim) + " numbers (one per direction)");
    for (int d = 0; d < geom.dim; ++d) {
      FaceBc& f = side == 0 ? bc.lo[d] : bc.hi[d];
      const std::string& k = kinds[size_t(d)];
      if (k == "periodic") {
        if (!geom.periodic[d])
          deck.fail(key, "\"periodic\" in direction " + std::to_string(d) +
                             ", which domain.periodic makes non-periodic");
        continue;
      }
      // A wall given on a periodic direction would be ignored without a word.
      if (geom.periodic[d] && deck.has(key))
        deck.fail(key, "\"" + k + "\" in direction " + std::to_string(d) +
                           ", which domain.periodic makes periodic: give \"periodic\"");
      if (k == "dirichlet")
        f.kind = BcKind::dirichlet;
      else if (k == "neumann")
        f.kind = BcKind::neumann;
      else
        deck.fail(key, "expected \"dirichlet\", \"neumann\" or \"periodic\", got \"" + k +
                           "\"");
      f.value = values[size_t(d)];
      if (!std::isfinite(f.value)) deck.fail(key + "_value", "expected finite numbers");
    }
  }
  return bc;
}

}  // namespace pw
