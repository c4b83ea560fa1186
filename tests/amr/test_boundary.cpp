// Outflow walls copy the nearest interior cell outward (zero gradient), corners included,
// and leave periodic directions alone; every kind of condition per component and face;
// a level's walls in one launch per face.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "amr/boundary.hpp"
#include "amr/launch_counter.hpp"
#include "amr/level_data.hpp"
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

namespace {

/// A level of patches of 8 cells a side over the unit square or cube (32 cells a side),
/// walls in every direction but y, a different condition on each face and component,
/// filled as a level (LevelData) and fab by fab: the same bits, in one launch per wall
/// face whatever the number of patches.
void check_level_walls(int dim) {
  LevelGeom g = pw::testing::unit_geom(dim, 32);
  g.periodic[0] = g.periodic[2] = false;
  g.periodic[1] = true;
  LevelLayout layout;
  layout.boxes = chop(g.domain, IntVect::in_dims(dim, 8, 1), IntVect::uniform(1));
  layout.owner.assign(layout.boxes.size(), 0);
  const int nc = 3;
  LevelData level("u", layout, g, nc, IntVect::in_dims(dim, 2, 0), 0);
  const BcKind kinds[] = {BcKind::outflow,   BcKind::reflect_even, BcKind::reflect_odd,
                          BcKind::dirichlet, BcKind::neumann,      BcKind::fixed};
  BcSet bcs(nc);
  for (int c = 0; c < nc; ++c)
    for (int d = 0; d < 3; ++d) {
      bcs[size_t(c)].lo[d] = {kinds[(c + 2 * d) % 6], 0.25 * c - d};
      bcs[size_t(c)].hi[d] = {kinds[(c + 2 * d + 1) % 6], 1.5 + c * d};
    }
  std::vector<Fab> alone;
  for (size_t p = 0; p < layout.size(); ++p) {
    pw::testing::set(level[p], [](int i, int j, int k, int c) {
      return std::sin(0.3 * i + 0.7 * j + 1.1 * k + 2.0 * c);
    });
    alone.emplace_back("alone", level[p].box, nc);
    Kokkos::deep_copy(alone.back().data, level[p].data);
  }
  level.fill_physical_boundary(bcs);  // builds the slabs and the condition table
  for (size_t p = 0; p < layout.size(); ++p)
    Kokkos::deep_copy(level[p].data, alone[p].data);
  Kokkos::fence();
  LaunchCounter counter;
  level.fill_physical_boundary(bcs);
  Kokkos::fence();
  EXPECT_EQ(counter.launches(), 2 * (dim - 1));  // lo and hi of each wall direction
  for (size_t p = 0; p < layout.size(); ++p) {
    fill_physical_boundary(g, alone[p], bcs);
    const pw::testing::HostFab a(level[p]), b(alone[p]);
    const Box& bx = level[p].box;
    for (int c = 0; c < nc; ++c)
      for (int k = bx.lo[2]; k <= bx.hi[2]; ++k)
        for (int j = bx.lo[1]; j <= bx.hi[1]; ++j)
          for (int i = bx.lo[0]; i <= bx.hi[0]; ++i)
            ASSERT_EQ(a(i, j, k, c), b(i, j, k, c))
                << p << ": " << i << "," << j << "," << k << " c " << c;
  }
}

}  // namespace

TEST(Boundary, ALevelIsFilledInOneLaunchPerWallFaceAsEachFabAlone2D) {
  check_level_walls(2);
}

TEST(Boundary, ALevelIsFilledInOneLaunchPerWallFaceAsEachFabAlone3D) {
  check_level_walls(3);
}
