// read_amr_config: the [domain], [amr] and [time] sections, read and checked key by key.
#include "amr/amr_config.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace pw {

namespace {

// Level indices are ints. Ghost cells, tag buffers and periodic images (shifted by a
// whole domain length) reach past the domain, so a level may span at most a quarter of
// int range.
constexpr long long kMaxCellsPerDirection = std::numeric_limits<int>::max() / 4;

const char* const kAxis[3] = {"x", "y", "z"};

std::string str(long long v) {
  return std::to_string(v);
}

/// One entry per direction: `key` must hold exactly `dim` values.
template <class T>
void check_per_direction(const Deck& deck, const char* key, const std::vector<T>& v,
                         int dim, const char* noun) {
  if (static_cast<int>(v.size()) != dim) {
    deck.fail(key, "expected an array of " + str(dim) + " " + noun +
                       " (one per direction, domain.dim = " + str(dim) + "), got " +
                       to_toml(v));
  }
}

void check_finite(const Deck& deck, const char* key, const std::vector<double>& v) {
  for (const double x : v)
    if (!std::isfinite(x)) deck.fail(key, "expected finite numbers, got " + to_toml(v));
}

void check_ratio(const Deck& deck, int r, const std::string& where) {
  if (r != 2 && r != 4)
    deck.fail("amr.ref_ratio", "expected 2 or 4" + where + ", got " + str(r));
}

void check_at_least(const Deck& deck, const char* key, int v, int least) {
  if (v < least) {
    const std::string what = least == 0   ? "a non-negative integer"
                             : least == 1 ? "a positive integer"
                                          : "an integer >= " + str(least);
    deck.fail(key, "expected " + what + ", got " + str(v));
  }
}

/// 0 < v <= 1 (NaN fails).
void check_fraction(const Deck& deck, const char* key, double v) {
  if (!(v > 0 && v <= 1))
    deck.fail(key, "expected a number in (0, 1], got " + to_toml(v));
}

/// Reads [domain] into g; returns n_cell for the checks that involve [amr].
std::vector<int> read_domain(const Deck& deck, LevelGeom& g) {
  const int dim = deck.get<int>("domain.dim", 2);
  if (dim != 2 && dim != 3) deck.fail("domain.dim", "expected 2 or 3, got " + str(dim));
  g.dim = dim;

  const auto n_cell = deck.require<std::vector<int>>("domain.n_cell");
  check_per_direction(deck, "domain.n_cell", n_cell, dim, "integers");
  for (const int n : n_cell) {
    if (n < 1 || n > kMaxCellsPerDirection) {
      deck.fail("domain.n_cell", "expected cell counts in [1, " +
                                     str(kMaxCellsPerDirection) + "], got " +
                                     to_toml(n_cell));
    }
  }

  const auto lo =
      deck.get<std::vector<double>>("domain.prob_lo", std::vector<double>(dim, 0.0));
  check_per_direction(deck, "domain.prob_lo", lo, dim, "numbers");
  check_finite(deck, "domain.prob_lo", lo);
  const auto hi =
      deck.get<std::vector<double>>("domain.prob_hi", std::vector<double>(dim, 1.0));
  check_per_direction(deck, "domain.prob_hi", hi, dim, "numbers");
  check_finite(deck, "domain.prob_hi", hi);
  for (int d = 0; d < dim; ++d) {
    if (!(hi[d] > lo[d])) {
      deck.fail("domain.prob_hi",
                "expected domain.prob_hi > domain.prob_lo in every direction, got " +
                    to_toml(hi) + " with domain.prob_lo = " + to_toml(lo));
    }
  }

  const auto periodic =
      deck.get<std::vector<bool>>("domain.periodic", std::vector<bool>(dim, true));
  check_per_direction(deck, "domain.periodic", periodic, dim, "booleans");

  // A 2D run is one cell thick in z, with cubic cells; z is never periodic.
  const int nz = dim == 3 ? n_cell[2] : 1;
  g.domain = Box({0, 0, 0}, {n_cell[0] - 1, n_cell[1] - 1, nz - 1});
  for (int d = 0; d < 3; ++d) {
    if (d < dim) {
      g.prob_lo[d] = lo[d];
      g.dx[d] = (hi[d] - lo[d]) / n_cell[d];
      g.periodic[d] = periodic[d];
    } else {
      g.prob_lo[d] = 0;
      g.dx[d] = g.dx[0];
      g.periodic[d] = false;
    }
  }
  return n_cell;
}

/// Reads amr.max_level and amr.ref_ratio into c, checking that the finest level's indices
/// fit.
void read_levels(const Deck& deck, const std::vector<int>& n_cell, AmrConfig& c) {
  c.max_level = deck.get<int>("amr.max_level", 0);
  check_at_least(deck, "amr.max_level", c.max_level, 0);

  std::vector<int> list;
  int single = 2;
  const bool is_list = deck.is_array("amr.ref_ratio");
  if (is_list) {
    list = deck.get<std::vector<int>>("amr.ref_ratio", {});
    if (static_cast<int>(list.size()) != c.max_level) {
      deck.fail("amr.ref_ratio",
                "expected a single integer or an array of " + str(c.max_level) +
                    " (one per level below amr.max_level = " + str(c.max_level) +
                    "), got " + to_toml(list));
    }
    for (std::size_t l = 0; l < list.size(); ++l)
      check_ratio(deck, list[l], " for every level (element " + str(l) + ")");
  } else {
    single = deck.get<int>("amr.ref_ratio", 2);
    check_ratio(deck, single, "");
  }

  // Refine level by level until max_level; with ratios >= 2 the loop ends within ~30
  // levels (by overflow of the bound) even when max_level is huge.
  std::vector<long long> n(n_cell.begin(), n_cell.end());
  for (int l = 0; l < c.max_level; ++l) {
    const int r = is_list ? list[l] : single;
    for (std::size_t d = 0; d < n.size(); ++d) {
      n[d] *= r;
      if (n[d] > kMaxCellsPerDirection) {
        deck.fail("amr.max_level", "expected at most " + str(l) + " (level " +
                                       str(l + 1) + " would have " + str(n[d]) +
                                       " cells along " + kAxis[d] + ", more than " +
                                       str(kMaxCellsPerDirection) +
                                       " for int indices), got " + str(c.max_level));
      }
    }
  }
  c.ref_ratio = is_list ? list : std::vector<int>(c.max_level, single);
}

/// Reads the box-size keys: blocking factor and max grid size, against ratios and n_cell.
void read_box_sizes(const Deck& deck, const std::vector<int>& n_cell, AmrConfig& c) {
  c.blocking_factor = deck.get<int>("amr.blocking_factor", c.blocking_factor);
  check_at_least(deck, "amr.blocking_factor", c.blocking_factor, 1);
  // Fine boxes must coarsen to whole coarse cells, so every ratio divides the factor.
  for (const int r : c.ref_ratio) {
    if (c.blocking_factor % r != 0) {
      deck.fail("amr.blocking_factor", "expected a multiple of every amr.ref_ratio (" +
                                           str(r) + "), got " + str(c.blocking_factor));
    }
  }
  for (const int n : n_cell) {
    if (n % c.blocking_factor != 0) {
      deck.fail("domain.n_cell", "expected a multiple of amr.blocking_factor (" +
                                     str(c.blocking_factor) +
                                     ") in every direction, got " + to_toml(n_cell));
    }
  }

  c.max_grid_size = deck.get<int>("amr.max_grid_size", c.max_grid_size);
  if (c.max_grid_size < 1 || c.max_grid_size % c.blocking_factor != 0) {
    deck.fail("amr.max_grid_size",
              "expected a positive multiple of amr.blocking_factor (" +
                  str(c.blocking_factor) + "), got " + str(c.max_grid_size));
  }
}

/// Cell sizes and volumes must be finite normal doubles on every level: an extent that
/// overflows (prob_hi - prob_lo = inf) or cells that underflow to 0 or to subnormals
/// would turn the state and every total into inf or NaN without a word.
void check_cell_sizes(const Deck& deck, const AmrConfig& c) {
  const auto bad = [](double x) { return !std::isnormal(x); };
  for (int l = 0; l <= c.max_level; ++l) {
    const LevelGeom g = c.geom(l);
    double volume = 1;
    for (int d = 0; d < g.dim; ++d) {
      volume *= g.dx[d];
      if (bad(g.dx[d])) {
        deck.fail(
            "domain.prob_hi",
            "expected cell sizes that are finite normal numbers on every level, got " +
                to_toml(g.dx[d]) + " along " + kAxis[d] + " on level " + str(l) +
                " ((prob_hi - prob_lo) / n_cell " + (l > 0 ? "/ the ratios " : "") +
                "with domain.prob_lo = " +
                to_toml(std::vector<double>(g.prob_lo, g.prob_lo + g.dim)) + ")");
      }
    }
    if (bad(volume)) {
      deck.fail(
          "domain.prob_hi",
          "expected cell volumes that are finite normal numbers on every level, got " +
              to_toml(volume) + " on level " + str(l));
    }
  }
}

/// The buffers are bounded by what the domain allows: beyond it they add nothing, and
/// huge ones made the clustering loop for hours (n_error_buf) or stop (n_proper).
void read_buffers(const Deck& deck, const std::vector<int>& n_cell, AmrConfig& c) {
  const Box tagged = c.geom(std::max(0, c.max_level - 1)).domain;
  int extent = 0;
  for (int d = 0; d < c.geom0.dim; ++d)
    extent = std::max(extent, tagged.size()[d]);
  c.n_error_buf = deck.get<int>("amr.n_error_buf", c.n_error_buf);
  check_at_least(deck, "amr.n_error_buf", c.n_error_buf, 0);
  if (c.n_error_buf > extent) {
    deck.fail("amr.n_error_buf",
              "expected at most " + str(extent) +
                  " (the domain's extent in cells of level " +
                  str(std::max(0, c.max_level - 1)) +
                  ", the finest level tagged: a wider buffer adds nothing), got " +
                  str(c.n_error_buf));
  }
  c.n_proper = deck.get<int>("amr.n_proper", c.n_proper);
  check_at_least(deck, "amr.n_proper", c.n_proper, 1);
  const int smallest = *std::min_element(n_cell.begin(), n_cell.end());
  if (c.n_proper > smallest) {
    deck.fail("amr.n_proper",
              "expected at most " + str(smallest) +
                  " (the smallest extent of the level-0 domain, "
                  "domain.n_cell = " +
                  to_toml(n_cell) +
                  ": a wider buffer leaves no room for a finer level), got " +
                  str(c.n_proper));
  }
}

}  // namespace

AmrConfig read_amr_config(const Deck& deck) {
  AmrConfig c;
  const std::vector<int> n_cell = read_domain(deck, c.geom0);
  read_levels(deck, n_cell, c);
  read_box_sizes(deck, n_cell, c);
  check_cell_sizes(deck, c);
  read_buffers(deck, n_cell, c);
  c.regrid_interval = deck.get<int>("amr.regrid_interval", c.regrid_interval);
  check_at_least(deck, "amr.regrid_interval", c.regrid_interval, 0);
  c.grid_eff = deck.get<double>("amr.grid_eff", c.grid_eff);
  check_fraction(deck, "amr.grid_eff", c.grid_eff);

  c.cfl = deck.get<double>("time.cfl", c.cfl);
  check_fraction(deck, "time.cfl", c.cfl);
  c.max_step = deck.get<int>("time.max_step", c.max_step);
  check_at_least(deck, "time.max_step", c.max_step, 0);
  c.stop_time = deck.get<double>("time.stop_time", c.stop_time);
  if (!(c.stop_time > 0))
    deck.fail("time.stop_time",
              "expected a positive number, got " + to_toml(c.stop_time));
  c.fixed_dt = deck.get<double>("time.fixed_dt", c.fixed_dt);
  if (!(c.fixed_dt >= 0) || std::isinf(c.fixed_dt)) {
    deck.fail("time.fixed_dt",
              "expected a finite non-negative number (0: use the CFL step), got " +
                  to_toml(c.fixed_dt));
  }
  return c;
}

}  // namespace pw
