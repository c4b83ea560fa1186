// Hydro over a level: the time-step bound is one reduction for all its patches, the same
// bits as the least of the patches' own bounds; the initial data, and an inflow face's
// exact ghost cells, fill every patch in one launch, the same bits as each alone; in 2D
// and 3D.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "amr/deck.hpp"
#include "amr/launch_counter.hpp"
#include "physics/hydro.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;

namespace {

void check_level_dt(int dim) {
  // A blast off the centre: one patch holds the least bound, the others larger ones.
  const std::string center = dim == 2 ? "[0.3, 0.6]" : "[0.3, 0.6, 0.7]";
  const std::string cells = dim == 2 ? "[32, 32]" : "[32, 32, 32]";
  const Deck deck = Deck::parse(
      "[domain]\ndim = " + std::to_string(dim) + "\nn_cell = " + cells +
          "\n[hydro]\nproblem = \"blast\"\n[blast]\nradius = 0.1\ncenter = " + center +
          "\n",
      "t.toml");
  const Hydro hydro(deck, dim);
  const LevelGeom g = pw::testing::unit_geom(dim, 32);
  LevelLayout layout;
  layout.boxes = chop(g.domain, IntVect::in_dims(dim, 8, 1), IntVect::uniform(1));
  layout.owner.assign(layout.boxes.size(), 0);
  const LevelData u("u", layout, g, hydro.ncomp(),
                    IntVect::in_dims(dim, hydro.nghost(), 0), 0);
  double least = std::numeric_limits<double>::infinity(), most = 0.0;
  for (size_t p = 0; p < layout.size(); ++p) {
    hydro.initial_data(g, u[p].box, u[p].array(), 0.0);
    const double dt = hydro.stable_dt(g, layout.boxes[p], u[p].array(), 0.0, Scratch());
    least = std::min(least, dt);
    most = std::max(most, dt);
  }
  ASSERT_LT(least, 0.5 * most);  // the bound varies over the patches
  u.interiors();                 // built once per layout, not per call
  u.refs();
  Kokkos::fence();
  LaunchCounter counter;
  const double level = hydro.stable_dt_level(g, u, 0.0, Scratch());
  EXPECT_EQ(counter.launches(), 1);
  EXPECT_EQ(level, least);
}

TEST(HydroLevel, StableDtIsOneReductionAndTheLeastOfThePatches2D) {
  check_level_dt(2);
}

TEST(HydroLevel, StableDtIsOneReductionAndTheLeastOfThePatches3D) {
  check_level_dt(3);
}

/// Every value (ghosts included) of every owned patch of a and b is the same double.
void expect_same_bits(const LevelData& a, const LevelData& b, const std::string& what) {
  for (size_t p = 0; p < a.size(); ++p) {
    const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a[p].data);
    const auto y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b[p].data);
    ASSERT_EQ(x.size(), y.size());
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(double)), 0)
        << what << ", patch " << p;
  }
}

void check_initial_data_launches(int dim) {
  // ShockPool's slanted front through a walled domain; every face's ghost cells take
  // the exact state, as an inflow face's do at each fill, at a time when the front has
  // moved.
  const std::string cells = dim == 2 ? "[32, 32]" : "[32, 32, 32]";
  const std::string in =
      dim == 2 ? "[\"inflow\", \"inflow\"]" : "[\"inflow\", \"inflow\", \"inflow\"]";
  const std::string out =
      dim == 2 ? "[\"outflow\", \"outflow\"]" : "[\"outflow\", \"outflow\", \"outflow\"]";
  const std::string walls = dim == 2 ? "[false, false]" : "[false, false, false]";
  const std::string normal = dim == 2 ? "[1.0, 0.5]" : "[1.0, 0.5, 0.25]";
  const Deck deck = Deck::parse(
      "[domain]\ndim = " + std::to_string(dim) + "\nn_cell = " + cells +
          "\nperiodic = " + walls + "\n[hydro]\nproblem = \"shockpool\"\nbc_lo = " + in +
          "\nbc_hi = " + out + "\n[shockpool]\nnormal = " + normal + "\nposition = 0.4\n",
      "t.toml");
  const Hydro hydro(deck, dim);
  LevelGeom g = pw::testing::unit_geom(dim, 32);
  for (int d = 0; d < 3; ++d)
    g.periodic[d] = false;
  LevelLayout layout;
  // Patches of unequal sizes, some inside, some on one or more faces; every third on
  // another rank (this one, 0, holds no data for it: a launch must skip it).
  layout.boxes = chop(g.domain, IntVect::in_dims(dim, 12, 1), IntVect::uniform(1));
  for (size_t p = 0; p < layout.size(); ++p)
    layout.owner.push_back(p % 3 == 1 ? 1 : 0);
  const IntVect ghost = IntVect::in_dims(dim, hydro.nghost(), 0);
  LevelData one("one", layout, g, hydro.ncomp(), ghost, 0);
  // Sharing one's plans (the sets of interiors and ghost cells), as a level's old and
  // new states do.
  LevelData all = one.like("all");
  one.set_val(0.0);
  all.set_val(0.0);
  const double time = 0.07;
  for (size_t p = 0; p < layout.size(); ++p)
    if (one.owns(p)) hydro.initial_data(g, layout.boxes[p], one[p].array(), 0.0);
  all.interiors();  // built once per layout, not per call
  all.refs();
  Kokkos::fence();
  {
    LaunchCounter counter;
    hydro.initial_data(g, all.interiors(), all.refs(), 0.0);
    EXPECT_EQ(counter.launches(), 1);
  }
  expect_same_bits(one, all, "interiors");
  // Each face alone, then all of them in one launch (at a later time, so that every
  // ghost cell changes), against a launch per patch and face.
  const unsigned every_face = (1u << (2 * dim)) - 1;
  std::vector<unsigned> masks;
  for (int f = 0; f < 2 * dim; ++f)
    masks.push_back(1u << f);
  masks.push_back(every_face);
  for (const unsigned faces : masks) {
    const double t = faces == every_face ? 0.11 : time;
    long ghost_cells = 0;  // beyond the masked faces, each counted once
    for (size_t p = 0; p < layout.size(); ++p) {
      if (!one.owns(p)) continue;
      for (int d = 0; d < dim; ++d)
        for (int side = 0; side < 2; ++side) {
          const Box ghosts = ghosts_beyond(g, one[p].box, d, side);
          if ((faces >> (2 * d + side) & 1) && !ghosts.empty())
            hydro.initial_data(g, ghosts, one[p].array(), t);
        }
      const Box& b = one[p].box;
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
            const int q[3] = {i, j, k};
            bool beyond = false;
            for (int d = 0; d < dim; ++d)
              beyond = beyond || ((faces & 1u << 2 * d) && q[d] < g.domain.lo[d]) ||
                       ((faces & 1u << (2 * d + 1)) && q[d] > g.domain.hi[d]);
            ghost_cells += beyond;
          }
    }
    const BoxSet& beyond = all.ghosts_beyond_faces(faces);
    ASSERT_GT(ghost_cells, 0);
    // No cell twice: a launch must not have two work items write one cell.
    EXPECT_EQ(beyond.cells(), ghost_cells) << "faces " << faces;
    Kokkos::fence();
    LaunchCounter counter;
    hydro.initial_data(g, beyond, all.refs(), t);
    EXPECT_EQ(counter.launches(), 1);
    expect_same_bits(one, all, "the ghost cells beyond faces " + std::to_string(faces));
  }
}

TEST(HydroLevel, InitialDataAndInflowFacesFillEveryPatchInOneLaunchAsEachAlone2D) {
  check_initial_data_launches(2);
}

TEST(HydroLevel, InitialDataAndInflowFacesFillEveryPatchInOneLaunchAsEachAlone3D) {
  check_initial_data_launches(3);
}

}  // namespace
