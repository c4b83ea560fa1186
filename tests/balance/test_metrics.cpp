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

TEST(Metrics, UnequalSpeedsAreTakenAgainstTheTimeOfAPerfectBalance) {
  // Work 4, 2, 2 on ranks of speed 1, 1, 0.5: times 4, 2, 4. A perfect balance takes
  // T = 8 / 2.5 = 3.2 on every rank. (The mean time, 10/3, would give 1.2.)
  const LoadMetrics m = load_metrics({4, 2, 2}, {1, 1, 0.5});
  EXPECT_DOUBLE_EQ(m.imbalance, 1.25);  // 4 / 3.2
  EXPECT_DOUBLE_EQ(m.estimated_balance, 0.8);
  EXPECT_NEAR(m.uintah_i, 0.2, 1e-15);
  EXPECT_DOUBLE_EQ(m.idle, 0.0);
  // Times relative to T: 1.25, 0.625, 1.25 -> sqrt((0.0625 + 0.140625 + 0.0625) / 2).
  EXPECT_NEAR(m.std, std::sqrt(0.265625 / 2), 1e-15);
}

TEST(Metrics, IdleCountsRanksWhateverTheirSpeed) {
  // Work 6, 0 on speeds 3, 1: T = 6 / 4 = 1.5, the loaded rank takes 2.
  const LoadMetrics m = load_metrics({6, 0}, {3, 1});
  EXPECT_DOUBLE_EQ(m.idle, 0.5);
  EXPECT_DOUBLE_EQ(m.imbalance, 2.0 / 1.5);
  EXPECT_DOUBLE_EQ(m.estimated_balance, 0.75);
}

TEST(Metrics, EqualSpeedsGiveThePapersAverageLoad) {
  const std::vector<double> work = {20, 8, 8, 8, 8, 8};
  const LoadMetrics a = load_metrics(work);
  const LoadMetrics b = load_metrics(work, std::vector<double>(6, 2.0));
  EXPECT_DOUBLE_EQ(b.imbalance, a.imbalance);
  EXPECT_DOUBLE_EQ(b.std, a.std);
  EXPECT_DOUBLE_EQ(b.estimated_balance, a.estimated_balance);
}

TEST(Metrics, PercentShowsOneRankIn65536) {
  EXPECT_EQ(percent(1.0 / 65536), "0.0015");
  EXPECT_EQ(percent(65535.0 / 65536), "99.9985");
  EXPECT_EQ(percent(1.0), "100.0000");
  EXPECT_EQ(percent(0.0), "0.0000");
}
