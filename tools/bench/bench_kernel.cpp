// Benchmark (not a test) of the advection kernel alone, without ghost fill, regrid or
// sync: one patch of n^3 cells (default 32) advanced repeatedly, its data in cache; or,
// with a third argument m, a level of m^3 such patches advanced in one launch per call
// (the run's level-wide update), its data (about 100 MB at m = 4, n = 32) far larger than
// a core's L2, as a run's level is. Ghost cells hold the initial data; nothing fills
// them. Prints the median time per call and cell-updates/s.
//   build/tools/bench/bench_kernel [n] [calls] [m]
#include <fmt/format.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "amr/deck.hpp"
#include "physics/advection.hpp"

namespace {

int positive_argument(int argc, char** argv, int i, int fallback, const char* name) {
  if (argc <= i) return fallback;
  size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(argv[i], &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != std::string(argv[i]).size() || v < 1)
    throw std::invalid_argument(fmt::format(
        "bench_kernel: {} must be a positive integer, got '{}'", name, argv[i]));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const int n = positive_argument(argc, argv, 1, 32, "n");
    const int repeats = positive_argument(argc, argv, 2, 21, "calls");
    const int m = positive_argument(argc, argv, 3, 1, "m");
    const bool level = argc > 3;
    if (argc > 4)
      throw std::invalid_argument("bench_kernel: at most 3 arguments: n calls m");
    if (long(m) * n > 4096)
      throw std::invalid_argument(
          "bench_kernel: m * n must be at most 4096 cells a side");
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
    for (int d = 0; d < 3; ++d)
      flux[d] = pw::LevelData("flux", layout, g, 1, pw::IntVect{}, 0, d);
    for (size_t p = 0; p < layout.size(); ++p)
      adv.initial_data(g, u[p].box, u[p].array(), 0.0);
    const pw::Scratch scratch("scratch", size_t(adv.scratch_size(layout.boxes[0])));
    const double dt = 0.5 * adv.stable_dt_level(g, u, 0.0, scratch);
    const pw::LevelUpdate update{u, u_new, {&flux[0], &flux[1], &flux[2]}, scratch};
    const pw::Array4 fl[3] = {flux[0][0].array(), flux[1][0].array(), flux[2][0].array()};
    auto call = [&] {
      if (level)
        adv.advance_level(g, update, 0.0, dt, pw::Counters());
      else
        adv.advance(g, g.domain, u[0].array(), u_new[0].array(), fl, 0.0, dt, scratch,
                    pw::Counters());
    };
    call();  // untimed: the first level update builds the patches' device references
    std::vector<double> secs;
    for (int r = 0; r < repeats; ++r) {
      Kokkos::fence();
      const double t0 = MPI_Wtime();
      call();
      Kokkos::fence();
      secs.push_back(MPI_Wtime() - t0);
    }
    std::sort(secs.begin(), secs.end());
    const double median = secs[secs.size() / 2];
    const std::string what = level ? fmt::format("a level of {}^3 patches of {}^3", m, n)
                                   : fmt::format("one {}^3 patch", n);
    fmt::print(
        "advection kernel, {}, {} calls: median {:.3f} ms, {:.1f} M cell-updates/s\n",
        what, repeats, 1e3 * median, g.domain.num_cells() / median / 1e6);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    rc = 2;
  }
  MPI_Finalize();
  return rc;
}
