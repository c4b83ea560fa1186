// The Poisson workload through whole runs at 1, 2 and 4 ranks: refined levels follow the
// clumps, every level's phi solves its equation, and the answer (phi included) is bitwise
// the same at any rank count and for every balancer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "balance/balancer.hpp"
#include "tests/app/run_testing.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;
using pw::testing::run_deck;

using pw::testing::clumps_deck;

namespace {

void expect_residual_below_tolerance(const std::string& mode, const Comm& comm) {
  const Deck deck = Deck::parse(clumps_deck(2), "test.toml",
                                {"output.write=false", "poisson.solve=" + mode});
  Simulation sim(deck, comm);
  sim.run(false);
  const Hierarchy& h = sim.hierarchy();
  ASSERT_EQ(h.finest_level(), 2);
  std::vector<double> fmax, rmax;
  for (int l = 0; l <= h.finest_level(); ++l) {
    const Level& L = h.level(l);
    double f = 0, r = 0;
    for (size_t p = 0; p < L.layout.size(); ++p) {
      if (!L.owns(int(p), comm.rank())) continue;
      pw::testing::HostFab u(L.u_new[p]);
      const Box b = L.layout.boxes[p];
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
          f = std::max(f, std::abs(u(i, j, 0, 1)));
          r = std::max(r, std::abs(u(i, j, 0, 2)));
        }
    }
    fmax.push_back(comm.max(f));
    rmax.push_back(comm.max(r));
    EXPECT_GT(fmax.back(), 0.1) << "level " << l;
  }
  const double largest = *std::max_element(fmax.begin(), fmax.end());
  for (size_t l = 0; l < fmax.size(); ++l)
    EXPECT_LE(rmax[l], 1e-10 * (mode == "composite" ? largest : fmax[l]))
        << mode << ", level " << l;
  // The stored residual is what phi leaves, by a 5-point Laplacian written here: on level
  // 0, away from patch edges and from the finer level, f - lap phi - r is one constant
  // (the mean of f the solve removes) to round-off.
  const Level& L0 = h.level(0);
  const int rr = h.config().ref_ratio[0];
  BoxList under;
  for (const Box& f : h.level(1).layout.boxes)
    under.push_back(coarsen(f, IntVect{rr, rr, 1}));
  const double hx = L0.geom.dx[0], hy = L0.geom.dx[1];
  double lo = 1e300, hi = -1e300;
  long checked = 0;
  for (size_t p = 0; p < L0.layout.size(); ++p) {
    if (!L0.owns(int(p), comm.rank())) continue;
    pw::testing::HostFab u(L0.u_new[p]);
    const Box b = grow(L0.layout.boxes[p], IntVect{-1, -1, 0});
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
        const Box near = grow(Box{{i, j, 0}, {i, j, 0}}, IntVect{2, 2, 0});
        if (std::any_of(under.begin(), under.end(),
                        [&](const Box& c) { return intersects(c, near); }))
          continue;
        const double lap =
            (u(i + 1, j, 0, 0) - 2 * u(i, j, 0, 0) + u(i - 1, j, 0, 0)) / (hx * hx) +
            (u(i, j + 1, 0, 0) - 2 * u(i, j, 0, 0) + u(i, j - 1, 0, 0)) / (hy * hy);
        const double mean = u(i, j, 0, 1) - lap - u(i, j, 0, 2);
        lo = std::min(lo, mean);
        hi = std::max(hi, mean);
        ++checked;
      }
  }
  EXPECT_GT(comm.sum(checked), 100) << mode;
  EXPECT_LE(comm.max(hi) - comm.min(lo), 1e-10 * largest) << mode;
}

}  // namespace

TEST(PoissonRuns, RefinesTheClumpsAndIsTheSameOnAnyRankCount) {
  const Comm world;
  for (const std::string mode : {"composite", "levels"})
    for (int dim : {2, 3}) {
      const std::vector<std::string> o = {"poisson.solve=" + mode};
      const RunResult all = run_deck(clumps_deck(dim), world, o);
      EXPECT_EQ(all.finest_level, 2) << dim;
      // A solve at the start and after each of the 4 steps: of all levels at once, or of
      // each level (at least 3 levels each time after the first regrid).
      EXPECT_GE(all.solves, mode == "composite" ? 5 : 5 * 3 - 2) << dim;
      EXPECT_GE(all.solve_cycles, all.solves) << dim;
      for (int group : {1, 2}) {
        if (group >= world.size() || world.size() % group != 0) continue;
        MPI_Comm sub;
        MPI_Comm_split(world.raw(), world.rank() / group, world.rank(), &sub);
        const RunResult part = run_deck(clumps_deck(dim), Comm(sub), o);
        MPI_Comm_free(&sub);
        EXPECT_EQ(part.fingerprint, all.fingerprint)
            << mode << " " << dim << "D, group of " << group;
      }
    }
}

TEST(PoissonRuns, FingerprintIsIndependentOfBalancer) {
  const Comm world;
  const std::vector<std::string> base = {"amr.max_level=1", "time.max_step=3"};
  const RunResult ref = run_deck(clumps_deck(2), world, base);
  for (const auto& [name, factory] : balancer_registry()) {
    std::vector<std::string> o = base;
    o.push_back("balance.method=" + name);
    RunResult r;
    try {
      r = run_deck(clumps_deck(2), world, o);
    } catch (const UserError& e) {
      if (!pw::testing::balancer_not_built(name))
        ADD_FAILURE() << name << ": " << e.what();
      std::printf("skipping %s: %s\n", name.c_str(), e.what());
      continue;
    }
    EXPECT_EQ(r.fingerprint, ref.fingerprint) << name;
  }
}

TEST(PoissonRuns, EveryLevelsResidualIsBelowTheTolerance) {
  // The stored residual (f less its mean, minus lap phi) is at most rtol max|f| after the
  // last solve: on every level with its own f level by level, over all levels with the
  // largest f of any level in the composite solve.
  const Comm comm;
  for (const std::string mode : {"composite", "levels"})
    expect_residual_below_tolerance(mode, comm);
}
