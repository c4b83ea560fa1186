// What a restart demands of a checkpoint's hierarchy before it trusts it
// (amr/io/checkpoint_checks.hpp), checked on small hand-made layouts and clocks: each
// kind of damage is refused with the level and what is wrong, and good ones pass.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "amr/io/checkpoint_checks.hpp"

using namespace pw;

namespace {

/// A periodic 32x32 level 0, ratio 2, blocking factor 4.
AmrConfig config(bool periodic = true) {
  AmrConfig c;
  c.geom0.dim = 2;
  c.geom0.domain = Box(IntVect{0, 0, 0}, IntVect{31, 31, 0});
  c.geom0.periodic[0] = c.geom0.periodic[1] = periodic;
  c.geom0.periodic[2] = false;
  c.max_level = 1;
  c.ref_ratio = {2};
  c.blocking_factor = 4;
  return c;
}

Box box2(int ilo, int jlo, int ihi, int jhi) {
  return Box(IntVect{ilo, jlo, 0}, IntVect{ihi, jhi, 0});
}

LevelLayout layout(const BoxList& boxes) {
  return LevelLayout{boxes, std::vector<int>(boxes.size(), 0)};
}

/// Level 0 as one box, level 1 as `fine`.
std::vector<LevelLayout> two_levels(const BoxList& coarse, const BoxList& fine) {
  return {layout(coarse), layout(fine)};
}

/// The message check_layouts throws, or "".
std::string layout_error(const std::vector<LevelLayout>& l, const AmrConfig& c) {
  try {
    check_layouts(l, c, 2);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

std::string clock_error(const RestoreState& s, int step) {
  try {
    check_clocks(s, step);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

RestoreState clocks(double t0, double t1) {
  RestoreState s;
  s.clocks = {{t0 - 0.1, t0, 3, 2}, {t1 - 0.05, t1, 6, 4}};
  return s;
}

}  // namespace

TEST(CheckpointChecks, AcceptsAlignedDisjointNestedBoxes) {
  const BoxList coarse = {box2(0, 0, 15, 31), box2(16, 0, 31, 31)};
  EXPECT_EQ(layout_error(two_levels(coarse, {box2(16, 16, 23, 23), box2(24, 16, 31, 23)}),
                         config()),
            "");
}

TEST(CheckpointChecks, RefusesBoxesOutsideUnalignedOrOverlapping) {
  const BoxList coarse = {box2(0, 0, 31, 31)};
  const AmrConfig c = config();
  EXPECT_NE(layout_error(two_levels(coarse, {box2(60, 0, 67, 7)}), c)
                .find("level_1: box 0 ([(60,0,0) (67,7,0)]) is empty or outside"),
            std::string::npos);
  EXPECT_NE(layout_error(two_levels(coarse, {box2(17, 16, 24, 23)}), c)
                .find("level_1: box 0 ([(17,16,0) (24,23,0)]) is not aligned to "
                      "amr.blocking_factor (4)"),
            std::string::npos);
  EXPECT_NE(
      layout_error(two_levels(coarse, {box2(16, 16, 23, 23), box2(20, 20, 27, 27)}), c)
          .find("level_1: boxes 0 ([(16,16,0) (23,23,0)]) and 1"),
      std::string::npos);
  EXPECT_NE(layout_error({layout({box2(0, 0, 31, 31), box2(0, 0, 15, 15)})}, c)
                .find("level_0: boxes 0"),
            std::string::npos);
}

TEST(CheckpointChecks, RefusesAFineBoxNotNestedInTheCoarseLevel) {
  // Level 0 covers only its left half: a fine box over the right half, or at its edge
  // without the interpolation's margin, is not nested.
  const BoxList coarse = {box2(0, 0, 15, 31)};
  const AmrConfig c = config(false);
  EXPECT_NE(layout_error(two_levels(coarse, {box2(40, 8, 47, 15)}), c)
                .find("level_1: box 0 ([(40,8,0) (47,15,0)]) is not properly nested"),
            std::string::npos);
  EXPECT_NE(layout_error(two_levels(coarse, {box2(24, 8, 31, 15)}), c).find("nested"),
            std::string::npos);
  EXPECT_EQ(layout_error(two_levels(coarse, {box2(8, 8, 15, 15)}), c), "");
}

TEST(CheckpointChecks, NestingWrapsAroundAPeriodicDomainAndStopsAtAPhysicalOne) {
  // A fine box at the left edge: its margin lies across the boundary, on the level-0
  // box at the right edge when periodic, outside the domain (no demand) when not.
  const BoxList coarse = {box2(0, 0, 7, 31), box2(24, 0, 31, 31)};
  const BoxList fine = {box2(0, 8, 7, 15)};
  EXPECT_EQ(layout_error(two_levels(coarse, fine), config(true)), "");
  EXPECT_EQ(layout_error(two_levels(coarse, fine), config(false)), "");
  // Periodic, but nothing at the right edge: the wrapped margin is uncovered.
  EXPECT_NE(
      layout_error(two_levels({box2(0, 0, 7, 31)}, fine), config(true)).find("nested"),
      std::string::npos);
}

TEST(CheckpointChecks, AcceptsConsistentClocks) {
  EXPECT_EQ(clock_error(clocks(0.5, 0.5), 3), "");
  // Fine time accumulated in substeps: equal to round-off.
  EXPECT_EQ(clock_error(clocks(0.3, 0.1 + 0.1 + 0.1), 3), "");
}

TEST(CheckpointChecks, RefusesNonFiniteUnorderedOrDisagreeingTimesAndBadSteps) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  RestoreState s = clocks(0.5, 0.5);
  s.clocks[1].t_new = nan;
  EXPECT_NE(clock_error(s, 3).find("level_1: t_old = 0.45 and t_new = nan"),
            std::string::npos);
  EXPECT_NE(clock_error(clocks(inf, inf), 3).find("expected finite times"),
            std::string::npos);
  s = clocks(0.5, 0.5);
  s.clocks[0].t_old = 0.6;
  EXPECT_NE(
      clock_error(s, 3).find("level_0: t_old = 0.59999999999999998 and t_new = 0.5"),
      std::string::npos);
  EXPECT_NE(clock_error(clocks(0.5, 0.75), 3).find("level_1: t_new = 0.75 differs"),
            std::string::npos);
  EXPECT_NE(clock_error(clocks(0.5, 0.5), -1).find("checkpoint: step is -1"),
            std::string::npos);
  EXPECT_NE(clock_error(clocks(0.5, 0.5), 4).find("level_0: steps is 3"),
            std::string::npos);
  s = clocks(0.5, 0.5);
  s.clocks[1].steps = -2;
  EXPECT_NE(clock_error(s, 3).find("level_1: steps is -2"), std::string::npos);
  s = clocks(0.5, 0.5);
  s.clocks[1].last_regrid_step = 7;
  EXPECT_NE(clock_error(s, 3).find("level_1: last_regrid_step is 7"), std::string::npos);
  s = clocks(0.5, 0.5);
  s.regrids = -1;
  EXPECT_NE(clock_error(s, 3).find("checkpoint: regrids is -1"), std::string::npos);
}
