// Geometry units: Box arithmetic, differences, chopping and periodic images.
#include <gtest/gtest.h>

#include "amr/box_list.hpp"

using namespace pw;

TEST(Box, CoarsenRefineRoundTripAndNegativeIndices) {
  const IntVect r{2, 2, 1};
  Box b{{-3, 0, 0}, {4, 7, 0}};
  Box c = coarsen(b, r);
  EXPECT_EQ(c, Box({-2, 0, 0}, {2, 3, 0}));
  EXPECT_TRUE(refine(c, r).contains(b));
  EXPECT_EQ(coarsen(refine(c, r), r), c);
  EXPECT_EQ(b.num_cells(), 8 * 8);
}

TEST(Box, DifferenceCoversExactlyTheRest) {
  Box a{{0, 0, 0}, {9, 9, 9}};
  Box b{{3, 4, 5}, {12, 6, 7}};
  BoxList d = difference(a, b);
  EXPECT_EQ(num_cells(d), a.num_cells() - (a & b).num_cells());
  for (size_t i = 0; i < d.size(); ++i) {
    EXPECT_FALSE(intersects(d[i], b));
    EXPECT_TRUE(a.contains(d[i]));
    for (size_t j = i + 1; j < d.size(); ++j)
      EXPECT_FALSE(intersects(d[i], d[j]));
  }
}

TEST(Box, ChopRespectsMaxSizeAndBlocking) {
  Box b{{0, 0, 0}, {95, 39, 0}};
  BoxList pieces = chop(b, {32, 32, 1}, {8, 8, 1});
  EXPECT_EQ(num_cells(pieces), b.num_cells());
  for (const Box& p : pieces) {
    for (int d = 0; d < 2; ++d) {
      EXPECT_LE(p.size()[d], 32);
      EXPECT_EQ(p.size()[d] % 8, 0);
      EXPECT_EQ(p.lo[d] % 8, 0);
    }
  }
}

TEST(Box, PeriodicShiftsCountImages) {
  Box dom{{0, 0, 0}, {15, 15, 0}};
  bool per2[3] = {true, true, false};
  EXPECT_EQ(periodic_shifts(dom, per2).size(), 8u);
  bool per3[3] = {true, true, true};
  EXPECT_EQ(periodic_shifts(Box({0, 0, 0}, {15, 15, 15}), per3).size(), 26u);
  bool none[3] = {false, false, false};
  EXPECT_TRUE(periodic_shifts(dom, none).empty());
}
