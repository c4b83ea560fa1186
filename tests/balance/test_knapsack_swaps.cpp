// Knapsack's swap phase, read through sorted per-rank costs, makes the very swaps of the
// plain double loop over both ranks' patches (kept here as the reference), and the plans'
// quality on the lab's workloads stays pinned.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "balance/knapsack.hpp"
#include "balance/knapsack_swaps.hpp"
#include "balance/lab/lab_metrics.hpp"
#include "balance/lab/workloads.hpp"

using namespace pw;

namespace {

/// The swap phase as it was first written: O((n/p)^2) per pass.
void reference_swaps(const std::vector<double>& cost, const std::vector<double>& speed,
                     std::vector<int>& owner, std::vector<double>& load, int max_passes) {
  const int p = int(load.size());
  std::vector<std::vector<int>> items(static_cast<size_t>(p));
  for (size_t i = 0; i < cost.size(); ++i)
    items[size_t(owner[i])].push_back(int(i));
  for (int pass = 0; pass < max_passes && p > 1; ++pass) {
    const int hi = int(std::max_element(load.begin(), load.end()) - load.begin());
    const int lo = int(std::min_element(load.begin(), load.end()) - load.begin());
    const std::vector<int>& on_hi = items[size_t(hi)];
    const std::vector<int>& on_lo = items[size_t(lo)];
    double best = std::max(load[size_t(hi)], load[size_t(lo)]);
    int best_a = -1, best_b = -1;
    for (int a : on_hi)
      for (size_t k = 0; k <= on_lo.size(); ++k) {
        const int b = k == 0 ? -1 : on_lo[k - 1];
        const double cb = b < 0 ? 0.0 : cost[size_t(b)];
        const double new_hi =
            load[size_t(hi)] + (cb - cost[size_t(a)]) / speed[size_t(hi)];
        const double new_lo =
            load[size_t(lo)] + (cost[size_t(a)] - cb) / speed[size_t(lo)];
        const double worst = std::max(new_hi, new_lo);
        if (worst < best * (1 - 1e-12)) {
          best = worst;
          best_a = a;
          best_b = b;
        }
      }
    if (best_a < 0) break;
    const double cb = best_b < 0 ? 0.0 : cost[size_t(best_b)];
    load[size_t(hi)] += (cb - cost[size_t(best_a)]) / speed[size_t(hi)];
    load[size_t(lo)] += (cost[size_t(best_a)] - cb) / speed[size_t(lo)];
    auto move = [&](int from, int to, int i) {
      std::vector<int>& f = items[size_t(from)];
      f.erase(std::lower_bound(f.begin(), f.end(), i));
      std::vector<int>& t = items[size_t(to)];
      t.insert(std::lower_bound(t.begin(), t.end(), i), i);
    };
    move(hi, lo, best_a);
    if (best_b >= 0) move(lo, hi, best_b);
  }
  for (int r = 0; r < p; ++r)
    for (int i : items[size_t(r)])
      owner[size_t(i)] = r;
}

std::vector<double> loads_of(const std::vector<double>& cost,
                             const std::vector<double>& speed,
                             const std::vector<int>& owner) {
  std::vector<double> load(speed.size(), 0.0);
  for (size_t i = 0; i < cost.size(); ++i)
    load[size_t(owner[i])] += cost[i] / speed[size_t(owner[i])];
  return load;
}

}  // namespace

TEST(KnapsackSwaps, MakesTheSwapsOfThePlainLoop) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 400; ++trial) {
    const int p = 2 + trial % 7;
    const int n = 1 + int(rng() % 120);
    // Few distinct costs (as AMR patches: cells x 2^level), or many; some zeros.
    const bool few = trial % 2 == 0;
    std::vector<double> cost(static_cast<size_t>(n)), speed(static_cast<size_t>(p), 1.0);
    for (double& c : cost)
      c = few ? double(std::vector<int>{0, 8, 64, 64, 128, 512, 512}[rng() % 7])
              : std::uniform_real_distribution<double>(0, 100)(rng);
    if (trial % 3 != 0)
      for (double& s : speed)
        s = std::vector<double>{0.5, 1, 1, 2, 0.25}[rng() % 5];
    // Start from a poor random plan, so that there are many swaps to make.
    std::vector<int> owner(static_cast<size_t>(n));
    for (int& o : owner)
      o = int(rng() % unsigned(p)) / (trial % 4 == 0 ? p : 1);
    std::vector<int> want = owner, got = owner;
    std::vector<double> want_load = loads_of(cost, speed, owner), got_load = want_load;
    reference_swaps(cost, speed, want, want_load, 1000);
    knapsack_swaps(cost, speed, got, got_load, 1000);
    ASSERT_EQ(got, want) << "trial " << trial << ", " << n << " patches, " << p
                         << " ranks";
    for (int r = 0; r < p; ++r)
      ASSERT_EQ(got_load[size_t(r)], want_load[size_t(r)]) << "trial " << trial;
  }
}

TEST(KnapsackSwaps, StopsAfterMaxPasses) {
  const std::vector<double> cost = {5, 4, 3, 2, 1, 1}, speed = {1, 1};
  std::vector<int> owner(cost.size(), 0);
  std::vector<double> load = loads_of(cost, speed, owner);
  knapsack_swaps(cost, speed, owner, load, 1);  // one move: 5 to rank 1
  EXPECT_EQ(owner, (std::vector<int>{1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(load, (std::vector<double>{11, 5}));
}

// Quality on the lab's workloads (the plans of the first, quadratic swap phase): the
// imbalance knapsack reaches, against the bound no whole-patch balancer can beat.
struct KnapsackCase {
  const char* kind;
  int count;  // patches wanted
  int ranks;
  bool speeds;     // ranks alternately at speed 1 and 0.5
  double at_most;  // imbalance
};

class KnapsackQuality : public testing::TestWithParam<KnapsackCase> {};

TEST_P(KnapsackQuality, ReachesThePinnedImbalance) {
  const KnapsackCase c = GetParam();
  WorkloadSpec spec;
  spec.kind = c.kind;
  spec.count = c.count;
  const PatchList list = make_workload(spec);
  RankInfo ranks = RankInfo::uniform(c.ranks);
  if (c.speeds)
    for (int r = 1; r < c.ranks; r += 2)
      ranks.speed[size_t(r)] = 0.5;
  const Plan plan = Knapsack().plan(list.patches, ranks);
  const LabMetrics m = lab_metrics(list.patches, plan, ranks.speed);
  EXPECT_EQ(m.split, 0);
  EXPECT_LE(m.load.imbalance, c.at_most) << "bound " << m.lower_bound;
  EXPECT_GE(m.load.imbalance, m.lower_bound);
}

// at_most: the imbalance reached when the swap phase was the plain loop, rounded up; in
// the cases with speeds the greedy phase alone leaves the figure in the comment.
INSTANTIATE_TEST_SUITE_P(
    Workloads, KnapsackQuality,
    testing::Values(KnapsackCase{"clustered", 3000, 64, false, 1.0008},
                    KnapsackCase{"clustered", 300, 3, true, 1.00013},    // 1.00075
                    KnapsackCase{"clustered", 1000, 16, true, 1.00017},  // 1.0011
                    KnapsackCase{"bubble", 3000, 64, true, 1.00007},     // 1.00087
                    // at the bound, 2.239067: the largest patch alone on a fast rank
                    KnapsackCase{"plane", 300, 256, true, 2.239068}));  // 4.48
