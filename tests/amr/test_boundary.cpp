// Outflow walls copy the nearest interior cell outward (zero gradient), corners included,
// and leave periodic directions alone.
#include <gtest/gtest.h>

#include "amr/boundary.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;

TEST(Boundary, OutflowCopiesNearestInteriorCellIncludingCorners) {
  LevelGeom g;
  g.dim = 2;
  g.domain = Box{{0, 0, 0}, {7, 7, 0}};
  g.periodic[0] = false;
  g.periodic[1] = true;
  g.periodic[2] = false;
  Fab fab("u", Box{{-2, -2, 0}, {3, 9, 0}}, 1);  // touches the lo-x wall and both y ends
  auto value = [](int i, int j, int, int) { return 10.0 * i + j; };
  pw::testing::set(fab, [](int, int, int, int) { return -1.0; });
  pw::testing::set(fab, value, Box{{0, -2, 0}, {3, 9, 0}});  // interior + periodic ghosts
  fill_outflow(g, fab);
  pw::testing::HostFab h(fab);
  for (int j = -2; j <= 9; ++j) {
    for (int i = -2; i < 0; ++i)
      EXPECT_EQ(h(i, j, 0), value(0, j, 0, 0)) << i << "," << j;
    for (int i = 0; i <= 3; ++i)
      EXPECT_EQ(h(i, j, 0), value(i, j, 0, 0));
  }
}

namespace {

/// A 2D level 0..7 x 0..7 with walls in x (periodic in y) and a fab reaching two cells
/// beyond both x walls.
struct WallCase {
  LevelGeom g;
  Fab fab{"u", Box{{-2, 0, 0}, {9, 3, 0}}, 4};
  WallCase() {
    g.dim = 2;
    g.domain = Box{{0, 0, 0}, {7, 7, 0}};
    g.dx[0] = 0.5;
    g.periodic[0] = false;
  }
};

}  // namespace

TEST(Boundary, EachKindExtendsDataAsItsRuleSaysPerComponentAndFace) {
  WallCase w;
  const double dx = w.g.dx[0];
  // u = 1 + 3 x (x at cell centres): Dirichlet and Neumann values taken from it make
  // the ghosts continue the line exactly.
  auto line = [&](int i) { return 1.0 + 3.0 * (i + 0.5) * dx; };
  const double x_hi = 8 * dx;
  BcSet bcs(4);
  bcs[0] = ComponentBc::all({BcKind::dirichlet, 0.0});
  bcs[0].lo[0] = {BcKind::dirichlet, 1.0};
  bcs[0].hi[0] = {BcKind::dirichlet, 1.0 + 3.0 * x_hi};
  bcs[1].lo[0] = {BcKind::neumann, -3.0};  // outward derivative: -du/dx on the lo face
  bcs[1].hi[0] = {BcKind::neumann, 3.0};
  bcs[2] = ComponentBc::all({BcKind::reflect_even, 0.0});
  bcs[3] = ComponentBc::all({BcKind::reflect_odd, 0.0});
  pw::testing::set(w.fab, [](int, int, int, int) { return -99.0; });
  // The reflections see a profile in y as well (constant values along a wall for the
  // Dirichlet and Neumann components).
  pw::testing::set(
      w.fab,
      [&](int i, int j, int, int c) { return line(i) + (c >= 2 ? 10.0 * j : 0.0); },
      Box{{0, 0, 0}, {7, 3, 0}});
  fill_physical_boundary(w.g, w.fab, bcs);
  pw::testing::HostFab h(w.fab);
  for (int j = 0; j <= 3; ++j)
    for (int m = 1; m <= 2; ++m) {
      const int lo = -m, hi = 7 + m;  // ghosts; their mirrors are m - 1 inside
      const int mlo = m - 1, mhi = 8 - m;
      for (int c = 0; c < 2; ++c) {
        EXPECT_NEAR(h(lo, j, 0, c), line(lo), 1e-13) << c;
        EXPECT_NEAR(h(hi, j, 0, c), line(hi), 1e-13) << c;
      }
      EXPECT_EQ(h(lo, j, 0, 2), h(mlo, j, 0, 2));
      EXPECT_EQ(h(hi, j, 0, 2), h(mhi, j, 0, 2));
      EXPECT_EQ(h(lo, j, 0, 3), -h(mlo, j, 0, 3));
      EXPECT_EQ(h(hi, j, 0, 3), -h(mhi, j, 0, 3));
    }
}

TEST(Boundary, KindsParseFromTheirDeckNames) {
  BcKind k = BcKind::outflow;
  EXPECT_TRUE(parse_bc_kind("neumann", k));
  EXPECT_EQ(k, BcKind::neumann);
  EXPECT_TRUE(parse_bc_kind("reflect_odd", k));
  EXPECT_EQ(k, BcKind::reflect_odd);
  EXPECT_TRUE(parse_bc_kind("fixed", k));
  EXPECT_EQ(k, BcKind::fixed);
  EXPECT_FALSE(parse_bc_kind("periodic", k));
}

TEST(Boundary, FixedFillsEveryGhostWithItsValue) {
  WallCase w;
  BcSet bcs(4, ComponentBc::all({BcKind::outflow, 0.0}));
  bcs[1].lo[0] = {BcKind::fixed, 2.5};
  bcs[1].hi[0] = {BcKind::fixed, -4.0};
  pw::testing::set(
      w.fab, [](int i, int j, int, int c) { return i + 10.0 * j + c; },
      Box{{0, 0, 0}, {7, 3, 0}});
  fill_physical_boundary(w.g, w.fab, bcs);
  pw::testing::HostFab h(w.fab);
  for (int j = 0; j <= 3; ++j)
    for (int m = 1; m <= 2; ++m) {
      EXPECT_EQ(h(-m, j, 0, 1), 2.5);
      EXPECT_EQ(h(7 + m, j, 0, 1), -4.0);
      EXPECT_EQ(h(-m, j, 0, 0), h(0, j, 0, 0));  // the other components: outflow
    }
}
