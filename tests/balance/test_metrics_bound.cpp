// The reported imbalance and the lower bound share one normalisation (T = total cost /
// total speed): a worked example by hand, and no balancer's plan reported below the
// bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>

#include "balance/lab/lab_metrics.hpp"
#include "balance/lab/workloads.hpp"

using namespace pw;

namespace {

// Every registered balancer, sorted as the registry is.
const std::vector<std::string> kBalancers = {
    "chop_pack",   "enzo", "knapsack",    "lan",        "lan_distributed", "mlb",
    "round_robin", "sfc",  "zoltan_hsfc", "zoltan_rcb", "zoltan_rib"};

PatchMeta unit_patch(int i, double cost) {
  PatchMeta p;
  p.box = Box{{i, 0, 0}, {i, 0, 0}};
  p.cost = cost;
  return p;
}

}  // namespace

TEST(MetricsBound, OptimalPlanOnUnequalSpeedsIsReportedAtTheBound) {
  // Costs 4, 2, 2 on speeds 1, 1, 0.5. T = 8 / 2.5 = 3.2; the largest patch alone takes
  // 4 / 1 on the fastest rank, so no plan beats 4 / 3.2 = 1.25. One patch per rank: times
  // 4, 2, 4, which reaches it (the mean time, 10/3, would report 1.2).
  const std::vector<PatchMeta> patches = {unit_patch(0, 4), unit_patch(1, 2),
                                          unit_patch(2, 2)};
  const std::vector<double> speed = {1, 1, 0.5};
  EXPECT_DOUBLE_EQ(lower_bound(patches, speed), 1.25);
  const LabMetrics m = lab_metrics(patches, whole_patches(patches, {0, 1, 2}), speed);
  EXPECT_DOUBLE_EQ(m.load.imbalance, 1.25);
  EXPECT_DOUBLE_EQ(m.lower_bound, 1.25);
  EXPECT_DOUBLE_EQ(m.load.estimated_balance, 0.8);
  // Every patch on the fast rank 0: times 8, 0, 0, imbalance 8 / 3.2.
  const LabMetrics all = lab_metrics(patches, whole_patches(patches, {0, 0, 0}), speed);
  EXPECT_DOUBLE_EQ(all.load.imbalance, 2.5);
  EXPECT_NEAR(all.load.idle, 2.0 / 3, 1e-15);
}

class MetricsBoundAllBalancers : public testing::TestWithParam<std::string> {};

TEST_P(MetricsBoundAllBalancers, NoPlanIsReportedBelowTheLowerBound) {
  const std::string name = GetParam();
  WorkloadSpec spec;
  spec.kind = "clustered";
  spec.count = 300;
  spec.dim = 2;
  PatchList list = make_workload(spec);
  const SplitRules rules{list.dim, spec.blocking_factor, spec.blocking_factor};
  std::unique_ptr<Balancer> balancer;
  try {
    balancer = balancer_registry().at(name)(Deck::parse("", "--param"), rules);
  } catch (const UserError& e) {
    GTEST_SKIP() << name << " is not in this build: " << e.what();
  }
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> speeds(0.1, 4.0);
  std::uniform_int_distribution<int> owners(-1, 5);
  for (int trial = 0; trial < 12; ++trial) {
    const int p = 2 + trial % 6 + (trial >= 6 ? 60 : 0);
    RankInfo ranks = RankInfo::uniform(p);
    for (int r = 0; r < p; ++r) {
      ranks.speed[size_t(r)] = trial % 3 == 0 ? 1.0 : speeds(rng);
      ranks.group[size_t(r)] = r * 2 / p;
    }
    ranks.measured = {1.0, 5e-5, 1e-9, 0.0, 8.0};
    for (PatchMeta& patch : list.patches)
      patch.owner = std::min(owners(rng), p - 1);
    const Plan plan = balancer->plan(list.patches, ranks);
    ASSERT_EQ(check_plan(list.patches, plan, p), "") << name << " p " << p;
    const LabMetrics m = lab_metrics(list.patches, plan, ranks.speed);
    // A plan that splits patches is held to 1 only; one that keeps them whole, to the
    // bound. 1e-12: T's own rounding.
    const double bound = m.split > 0 ? 1.0 : m.lower_bound;
    EXPECT_GE(m.load.imbalance, bound * (1 - 1e-12))
        << name << " at p " << p << " trial " << trial;
    EXPECT_LE(m.load.estimated_balance, 1 + 1e-12) << name << " trial " << trial;
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, MetricsBoundAllBalancers,
                         testing::ValuesIn(kBalancers));

TEST(MetricsBound, TheListAboveIsTheRegistry) {
  // So that a balancer added to the registry is added to the property test too.
  std::vector<std::string> names;
  for (const auto& [name, factory] : balancer_registry())
    names.push_back(name);
  EXPECT_EQ(names, kBalancers);
}
