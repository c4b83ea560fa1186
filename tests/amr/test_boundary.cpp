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
