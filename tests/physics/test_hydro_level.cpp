// Hydro's time-step bound over a level: one reduction for all its patches, the same bits
// as the least of the patches' own bounds, in 2D and 3D.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

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

}  // namespace
