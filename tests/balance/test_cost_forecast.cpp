// Region forecasts: exponential smoothing with alpha = 2/(T+1), costs spread over
// regions, unseen regions at their level's average.
#include <gtest/gtest.h>

#include "balance/cost_forecast.hpp"

using namespace pw;

TEST(CostForecast, SmoothsExponentiallyWithTheWindowsAlpha) {
  RegionForecast f(IntVect{8, 8, 1}, 20);
  EXPECT_DOUBLE_EQ(f.alpha(), 2.0 / 21.0);
  const Box patch{{0, 0, 0}, {7, 7, 0}};  // one region
  EXPECT_LT(f.predict(0, patch), 0);      // nothing observed yet
  f.observe(0, patch, 10.0);
  EXPECT_DOUBLE_EQ(f.predict(0, patch), 10.0);
  f.observe(0, patch, 31.0);
  EXPECT_DOUBLE_EQ(f.predict(0, patch), 2.0 / 21.0 * 31.0 + 19.0 / 21.0 * 10.0);
}

TEST(CostForecast, SpreadsAPatchOverItsRegionsAndCarriesOverToNewPatches) {
  RegionForecast f(IntVect{8, 8, 1}, 20);
  f.observe(1, Box{{0, 0, 0}, {15, 7, 0}}, 6.0);  // two regions of 3 each
  EXPECT_DOUBLE_EQ(f.predict(1, Box{{8, 0, 0}, {15, 7, 0}}), 3.0);
  // A new patch over one known region and one unseen: the unseen one at the level
  // average.
  EXPECT_DOUBLE_EQ(f.predict(1, Box{{8, 0, 0}, {23, 7, 0}}), 6.0);
  // A level never observed takes the average of all regions.
  EXPECT_DOUBLE_EQ(f.predict(2, Box{{0, 0, 0}, {7, 7, 0}}), 3.0);
}
