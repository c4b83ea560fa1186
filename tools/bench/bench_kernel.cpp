// Benchmark (not a test) of the advection kernel alone, without ghost fill, regrid or
// sync: one patch of n^3 cells (default 32) advanced repeatedly, its data in cache; or,
// with a third argument m, a level of m^3 such patches advanced in one launch per call
// (the run's level-wide update), its data (about 100 MB at m = 4, n = 32) far larger than
// a core's L2, as a run's level is. Ghost cells hold the initial data; nothing fills
// them. Prints the median time per call and cell-updates/s. With --fill (a level only)
// it also times, in the same process, the level's same-level ghost fill (the periodic
// level's every ghost cell) and a copy of every cell of the level, ghosts included: what
// streaming the level's memory once costs, the floor of a pass over it. A level keeps
// its fluxes in each team's scratch, as a run's finest level does; --stored-fluxes
// stores them in the level's arrays, as a level with a finer one does.
//   build/tools/bench/bench_kernel [n] [calls] [m] [--fill] [--stored-fluxes]
#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "amr/comm.hpp"
#include "amr/deck.hpp"
#include "amr/level_data.hpp"
#include "cli/cli_numbers.hpp"
#include "physics/advection.hpp"

namespace {

int run(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);  // takes its own arguments out of argv first
  int n = 32, repeats = 21, m = 1;
  CLI::App cli{"bench_kernel: the advection kernel alone, on one patch or a level"};
  cli.add_option("n", n, "cells a side of a patch")->transform(pw::cli::int_in(1, 4096));
  cli.add_option("calls", repeats, "timed calls; the median is printed")
      ->transform(pw::cli::int_in(1, 1000000));
  CLI::Option* level_opt =
      cli.add_option("m", m, "patches a side of a level (omitted: one patch)")
          ->transform(pw::cli::int_in(1, 4096));
  bool fill = false, stored = false;
  cli.add_flag("--fill", fill,
               "also time the level's ghost fill and a copy of the whole level");
  cli.add_flag("--stored-fluxes", stored,
               "a level that stores its fluxes, as one with a finer level does (by "
               "default they stay in each team's scratch, as on a run's finest level)");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }
  const bool level = level_opt->count() > 0;
  if (stored && !level)
    throw std::invalid_argument("bench_kernel: --stored-fluxes needs a level (give m)");
  if (fill && !level)
    throw std::invalid_argument("bench_kernel: --fill needs a level (give m)");
  if (long(m) * n > 4096)
    throw std::invalid_argument("bench_kernel: m * n must be at most 4096 cells a side");
  const pw::Deck deck = pw::Deck::parse("[advection]\nvelocity = \"swirl\"\n", "bench");
  pw::Advection adv(deck, 3);
  pw::LevelGeom g;
  g.dim = 3;
  g.domain = pw::Box{{0, 0, 0}, {m * n - 1, m * n - 1, m * n - 1}};
  for (double& dx : g.dx)
    dx = 1.0 / (m * n);
  pw::LevelLayout layout;
  layout.boxes = chop(g.domain, pw::IntVect::uniform(n), pw::IntVect::uniform(1));
  layout.owner.assign(layout.boxes.size(), 0);
  const pw::IntVect ghost = pw::IntVect::uniform(adv.nghost());
  pw::LevelData u("u", layout, g, 1, ghost, 0), u_new = u.like("u_new"), flux[3];
  for (int d = 0; d < 3 && (stored || !level); ++d)
    flux[d] =
        pw::LevelData("flux", layout, g, 1, pw::IntVect{adv.flux_padding(), 0, 0}, 0, d);
  adv.initial_data(g, u.fab_boxes(), u.refs(), 0.0);  // ghosts included
  const pw::Scratch scratch("scratch", size_t(adv.scratch_size(layout.boxes[0])));
  const double dt = 0.5 * adv.stable_dt_level(g, u, 0.0, scratch);
  const pw::LevelUpdate update{u,
                               u_new,
                               {stored ? &flux[0] : nullptr, stored ? &flux[1] : nullptr,
                                stored ? &flux[2] : nullptr},
                               adv.flux_padding(),
                               scratch};
  pw::Array4 fl[3];
  for (int d = 0; d < 3 && !level; ++d)
    fl[d] = flux[d][0].array();
  auto call = [&] {
    if (level)
      adv.advance_level(g, update, 0.0, dt, pw::Counters());
    else
      adv.advance(g, g.domain, u[0].array(), u_new[0].array(), fl, 0.0, dt, scratch,
                  pw::Counters());
  };
  const pw::Comm comm;
  // The median seconds of `repeats` timed calls of f, after one untimed call (the first
  // level update builds the patches' device references, the first fill its plan).
  const auto median_seconds = [&](const auto& f) {
    f();
    std::vector<double> secs;
    for (int r = 0; r < repeats; ++r) {
      Kokkos::fence();
      const double t0 = MPI_Wtime();
      f();
      Kokkos::fence();
      secs.push_back(MPI_Wtime() - t0);
    }
    std::sort(secs.begin(), secs.end());
    return secs[secs.size() / 2];
  };
  const double median = median_seconds(call);
  const std::string what = level ? fmt::format("a level of {}^3 patches of {}^3", m, n)
                                 : fmt::format("one {}^3 patch", n);
  const double cells = double(g.domain.num_cells());
  fmt::print(
      "advection kernel, {}, {} calls: median {:.3f} ms, {:.1f} M cell-updates/s\n", what,
      repeats, 1e3 * median, cells / median / 1e6);
  if (!fill) return 0;
  // The fabs hold the level's cells and its ghost cells.
  const double fab_cells = double(u.fab_boxes().cells());
  const double ghost_cells = fab_cells - cells;
  const double fill_s = median_seconds([&] { u.fill_boundary(comm); });
  const double copy_s = median_seconds([&] { u_new.copy_from(u); });
  fmt::print(
      "ghost fill, {} ghost cells ({:.0f}% of the cells): median {:.3f} ms, {:.0f}% of "
      "the update's time, {:.2f} ns per ghost cell\n",
      ghost_cells, 100 * ghost_cells / cells, 1e3 * fill_s, 100 * fill_s / median,
      1e9 * fill_s / ghost_cells);
  fmt::print(
      "copy of the whole level ({} cells, ghosts included): median {:.3f} ms, {:.2f} ns "
      "per cell, {:.1f} GB/s read + written\n",
      fab_cells, 1e3 * copy_s, 1e9 * copy_s / fab_cells,
      2 * 8 * fab_cells / copy_s / 1e9);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    rc = run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    rc = 2;
  }
  MPI_Finalize();
  return rc;
}
