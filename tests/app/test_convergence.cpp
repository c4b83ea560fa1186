// Convergence: a smooth blob advected once around the periodic unit square comes back
// with an L1 error that falls at second order, on a uniform grid and with a refined level
// tracking the blob.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "amr/hierarchy.hpp"
#include "app/balancer_planner.hpp"
#include "physics/registry.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;

namespace {

/// L1 error of level 0 (the composite average) after one period, against its initial
/// state. Blocking factor, patch size and regrid interval scale with n, so that every
/// resolution refines the same physical blocks at the same times: the fine region is then
/// the same region and the error ratio measures the scheme, not the tagging.
double one_period_error(int n, int max_level) {
  auto str = [](int v) { return std::to_string(v); };
  const std::string text =
      "[domain]\ndim = 2\nn_cell = [" + str(n) + ", " + str(n) +
      "]\n[amr]\nmax_level = " + str(max_level) +
      "\nref_ratio = 2\nblocking_factor = " + str(n / 4) +
      "\nmax_grid_size = " + str(n / 2) + "\nregrid_interval = " + str(n / 16) +
      "\n"
      "[advection]\nvelocity = \"uniform\"\nvelocity_uniform = [1.0, 0.5]\n"
      "blob_center = [0.5, 0.5]\nwidth = 0.15\ntag_threshold = [1.1]\n";
  const Deck deck = Deck::parse(text, "convergence.toml");
  const AmrConfig cfg = read_amr_config(deck);
  auto physics = make_physics(deck);
  BalancerPlanner planner(deck, cfg, RankInfo::uniform(1), Comm(MPI_COMM_SELF));
  const Comm self(MPI_COMM_SELF);
  Hierarchy h(cfg, *physics, planner, self);
  h.initialize();
  std::vector<pw::testing::HostFab> start;
  for (const Fab& f : h.level(0).u_new)
    start.emplace_back(f);
  // Velocity (1, 0.5) brings the blob back at t = 2; dt at CFL 0.5 on the finest level.
  const int steps = 2 * n * 3;  // dt = 1/(3n): CFL 0.5 in x on level 0
  for (int s = 0; s < steps; ++s)
    h.advance(2.0 / steps);
  EXPECT_NEAR(h.time(), 2.0, 1e-12);
  double err = 0;
  const Level& L = h.level(0);
  for (size_t p = 0; p < L.layout.size(); ++p) {
    pw::testing::HostFab end(L.u_new[p]);
    const Box b = L.layout.boxes[p];
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i)
        err += std::abs(end(i, j, 0) - start[p](i, j, 0)) * L.geom.cell_volume();
  }
  if (max_level > 0) EXPECT_EQ(h.finest_level(), max_level);
  return err;
}

void expect_second_order(int max_level, const std::vector<int>& sizes) {
  std::vector<double> err;
  for (int n : sizes)
    err.push_back(one_period_error(n, max_level));
  for (size_t k = 1; k < err.size(); ++k) {
    const double order = std::log2(err[k - 1] / err[k]);
    std::printf("max_level %d: n %d -> %d, L1 %.3e -> %.3e, order %.2f\n", max_level,
                sizes[k - 1], sizes[k], err[k - 1], err[k], order);
    EXPECT_GE(order, 1.8);
  }
}

}  // namespace

TEST(Convergence, UniformGridIsSecondOrder) {
  expect_second_order(0, {32, 64, 128});
}

TEST(Convergence, RefinedLevelTrackingTheBlobIsSecondOrder) {
  expect_second_order(1, {32, 64, 128});
}
