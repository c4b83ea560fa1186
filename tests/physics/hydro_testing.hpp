// Helpers for the hydro tests: decks for a shock tube along any axis, and the level-0
// state of a finished run on the host.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "app/simulation.hpp"
#include "tests/app/run_testing.hpp"
#include "tests/fab_testing.hpp"

namespace pw::testing {

/// x with every digit, for a deck.
inline std::string str(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

/// A tube of n cells along `axis` (4 cells across, periodic across, outflow walls
/// along), Sod's problem unless the overrides say otherwise, run to t = 0.2 at CFL 0.8.
/// max_level > 0 adds refined levels that follow the waves.
inline std::string tube_deck(int dim, int axis, int n, int max_level = 0) {
  std::string cells = "[", periodic = "[";
  for (int d = 0; d < dim; ++d) {
    cells += (d ? ", " : "") + std::to_string(d == axis ? n : 4);
    periodic += std::string(d ? ", " : "") + (d == axis ? "false" : "true");
  }
  const char* axes[] = {"x", "y", "z"};
  return "[domain]\ndim = " + std::to_string(dim) + "\nn_cell = " + cells +
         "]\nperiodic = " + periodic +
         "]\n[amr]\nmax_level = " + std::to_string(max_level) +
         "\nref_ratio = 2\nblocking_factor = 4\nmax_grid_size = 20\nregrid_interval = "
         "2\nn_error_buf = 2\n[time]\nstop_time = 0.2\nmax_step = 100000\ncfl = 0.8\n"
         "[physics]\nmodule = \"hydro\"\n[hydro]\nproblem = \"shock_tube\"\n"
         "[shock_tube]\naxis = \"" +
         std::string(axes[axis]) + "\"\n";
}

/// Run `deck` (with overrides) on this rank alone and return the simulation, finished.
inline std::unique_ptr<Simulation> run_alone(const std::string& deck,
                                             const std::vector<std::string>& overrides) {
  auto sim = std::make_unique<Simulation>(
      Deck::parse(deck, "hydro.toml", pw::testing::quiet(overrides)),
      Comm(MPI_COMM_SELF));
  sim->run(false);
  return sim;
}

/// Level l's state on the host, one HostFab per patch (single-rank runs).
inline std::vector<HostFab> level_state(const Simulation& sim, int l = 0) {
  std::vector<HostFab> fabs;
  for (const Fab& f : sim.hierarchy().level(l).u_new.fabs())
    fabs.emplace_back(f);
  return fabs;
}

/// The value of component c of cell `cell` of level 0 (single-rank runs).
inline double cell_value(const Simulation& sim, const std::vector<HostFab>& fabs,
                         const IntVect& cell, int c) {
  const Level& L = sim.hierarchy().level(0);
  for (size_t p = 0; p < L.layout.size(); ++p)
    if (L.layout.boxes[p].contains(cell)) return fabs[p](cell[0], cell[1], cell[2], c);
  return std::nan("");
}

}  // namespace pw::testing
