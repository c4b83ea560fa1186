// The balance metrics on hand-computed distributions.
#include <gtest/gtest.h>

#include <cmath>

#include "balance/metrics.hpp"

using namespace pw;

TEST(Metrics, LanTriggerExampleHasImbalanceTwo) {
  // Seed 000: (20, 8, 8, 8, 8, 8) has MaxLoad/AvgLoad = 20/10.
  const LoadMetrics m = load_metrics({20, 8, 8, 8, 8, 8});
  EXPECT_DOUBLE_EQ(m.imbalance, 2.0);
  EXPECT_DOUBLE_EQ(m.estimated_balance, 0.5);
  EXPECT_DOUBLE_EQ(m.uintah_i, 0.5);
  EXPECT_DOUBLE_EQ(m.idle, 0.0);
  // Relative loads 2, 0.8 x5: deviations 1, -0.2 x5 -> sqrt((1 + 5 * 0.04) / 5).
  EXPECT_NEAR(m.std, std::sqrt(1.2 / 5), 1e-15);
}

TEST(Metrics, IdleRanksCountAndEqualLoadsArePerfect) {
  const LoadMetrics m = load_metrics({12, 12, 12, 12, 12, 0});
  EXPECT_NEAR(m.idle, 1.0 / 6, 1e-15);
  EXPECT_DOUBLE_EQ(m.imbalance, 1.2);
  const LoadMetrics even = load_metrics({3, 3, 3});
  EXPECT_DOUBLE_EQ(even.imbalance, 1.0);
  EXPECT_DOUBLE_EQ(even.std, 0.0);
  EXPECT_DOUBLE_EQ(even.uintah_i, 0.0);
}

TEST(Metrics, SummaryAveragesOverSteps) {
  MetricsSummary s;
  s.add(load_metrics({2, 0}));  // imbalance 2
  s.add(load_metrics({1, 1}));  // imbalance 1
  EXPECT_EQ(s.steps, 2);
  EXPECT_DOUBLE_EQ(s.mean.imbalance, 1.5);
  EXPECT_DOUBLE_EQ(s.mean.idle, 0.25);
}
