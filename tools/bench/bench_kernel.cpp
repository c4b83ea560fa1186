// Benchmark (not a test) of the advection kernel alone: one patch of n^3 cells (default
// 32) advanced repeatedly; prints the median time per call and cell-updates/s.
//   build/tools/bench/bench_kernel [n] [repeats]
#include <fmt/format.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "physics/advection.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const int n = argc > 1 ? std::stoi(argv[1]) : 32;
    const int repeats = argc > 2 ? std::stoi(argv[2]) : 21;
    const pw::Deck deck = pw::Deck::parse("[advection]\nvelocity = \"swirl\"\n", "bench");
    pw::Advection adv(deck, 3);
    pw::LevelGeom g;
    g.dim = 3;
    g.domain = pw::Box{{0, 0, 0}, {n - 1, n - 1, n - 1}};
    for (double& dx : g.dx)
      dx = 1.0 / n;
    const pw::Box grown = grow(g.domain, pw::IntVect::uniform(adv.nghost()));
    pw::Fab u("u", grown, 1), u_new("u_new", grown, 1), flux[3];
    for (int d = 0; d < 3; ++d)
      flux[d] = pw::Fab("flux", faces(g.domain, d), 1);
    adv.initial_data(g, grown, u.array(), 0.0);
    const pw::Array4 fl[3] = {flux[0].array(), flux[1].array(), flux[2].array()};
    const pw::Scratch scratch("scratch", size_t(adv.scratch_size(g.domain)));
    const double dt = 0.5 * adv.stable_dt(g, g.domain, u.array(), 0.0, scratch);
    std::vector<double> secs;
    for (int r = 0; r < repeats; ++r) {
      Kokkos::fence();
      const double t0 = MPI_Wtime();
      adv.advance(g, g.domain, u.array(), u_new.array(), fl, 0.0, dt, scratch,
                  pw::Counters());
      Kokkos::fence();
      secs.push_back(MPI_Wtime() - t0);
    }
    std::sort(secs.begin(), secs.end());
    const double median = secs[secs.size() / 2];
    fmt::print(
        "advection kernel, {}^3 patch, {} calls: median {:.3f} ms, {:.1f} M "
        "cell-updates/s\n",
        n, repeats, 1e3 * median, g.domain.num_cells() / median / 1e6);
  }
  MPI_Finalize();
  return 0;
}
