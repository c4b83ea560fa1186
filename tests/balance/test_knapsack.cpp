// Knapsack: largest-first greedy plus swaps reaches the optimum of small examples and
// near-perfect balance on many patches; the round-robin baseline deals patches in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "balance/knapsack.hpp"
#include "balance/round_robin.hpp"
#include "tests/balance/balance_testing.hpp"

using namespace pw;
using pw::testing::loads;

namespace {

std::vector<PatchMeta> with_costs(const std::vector<double>& costs) {
  std::vector<PatchMeta> v;
  for (size_t i = 0; i < costs.size(); ++i)
    v.push_back({Box{{int(i), 0, 0}, {int(i), 0, 0}}, 0, -1, costs[i]});
  return v;
}

}  // namespace

TEST(Knapsack, SwapsReachTheOptimumGreedyMisses) {
  // Greedy alone gives {8, 5, 4} | {7, 6} = 17 | 13; the optimum is 15 | 15.
  const auto patches = with_costs({8, 7, 6, 5, 4});
  const Plan plan = Knapsack().plan(patches, RankInfo::uniform(2));
  const auto l = loads(plan, patches, 2);
  EXPECT_DOUBLE_EQ(*std::max_element(l.begin(), l.end()), 15.0);
}

TEST(Knapsack, BalancesManyPatchesToWithinOnePercent) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(1.0, 100.0);
  std::vector<double> costs(2000);
  for (double& c : costs)
    c = dist(rng);
  const auto patches = with_costs(costs);
  const Plan plan = Knapsack().plan(patches, RankInfo::uniform(16));
  const auto l = loads(plan, patches, 16);
  const double avg = std::accumulate(l.begin(), l.end(), 0.0) / 16;
  EXPECT_LT(*std::max_element(l.begin(), l.end()) / avg, 1.01);
  ASSERT_EQ(plan.boxes.size(), patches.size());
  for (size_t i = 0; i < plan.boxes.size(); ++i)
    EXPECT_EQ(plan.boxes[i], patches[i].box);
}

TEST(Knapsack, FasterRanksTakeProportionallyMore) {
  const auto patches = with_costs(std::vector<double>(300, 1.0));
  RankInfo ranks = RankInfo::uniform(2);
  ranks.speed = {2.0, 1.0};
  const Plan plan = Knapsack().plan(patches, ranks);
  const auto l = loads(plan, patches, 2);
  EXPECT_DOUBLE_EQ(l[0], 200.0);
  EXPECT_DOUBLE_EQ(l[1], 100.0);
}

TEST(RoundRobin, DealsPatchesInOrder) {
  const auto patches = with_costs({5, 1, 1, 1, 1});
  const Plan plan = RoundRobin().plan(patches, RankInfo::uniform(3));
  EXPECT_EQ(plan.owner, (std::vector<int>{0, 1, 2, 0, 1}));
}
