// MLB: the Gray-code hypercube phases balance a divisible load exactly and whole patches
// to within the largest one, in at most ceil(log2 p) steps that replay to the owners.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <tuple>

#include "balance/mlb.hpp"
#include "balance/mlb_phases.hpp"
#include "tests/balance/balance_testing.hpp"

using namespace pw;
using pw::testing::loads;

namespace {

/// Patches along x (curve order = index order in 1D), with costs and owners.
std::vector<PatchMeta> row(const std::vector<double>& costs,
                           const std::vector<int>& owners) {
  std::vector<PatchMeta> v;
  for (size_t i = 0; i < costs.size(); ++i)
    v.push_back({Box{{int(i), 0, 0}, {int(i), 0, 0}}, 0, owners[i], costs[i]});
  return v;
}

/// Random 3D patches on two levels, random costs in [1, max_cost] and owners in [0, p).
std::vector<PatchMeta> random_patches(int n, int p, double max_cost, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pos(0, 63), own(0, p - 1), lev(0, 1);
  std::uniform_real_distribution<double> c(1.0, max_cost);
  std::vector<PatchMeta> v;
  for (int i = 0; i < n; ++i) {
    const int l = lev(rng);
    const IntVect lo{pos(rng) * 8, pos(rng) * 8, pos(rng) * 8};
    v.push_back({Box{lo, lo + IntVect::uniform(7)}, l, own(rng), c(rng), 1 << l});
  }
  return v;
}

int ceil_log2(int p) {
  int d = 0;
  while ((1 << d) < p)
    ++d;
  return d;
}

}  // namespace

TEST(Mlb, GrayCodeEdgesJoinMirroredPositions) {
  // §3's table for d = 2: ranks 0..3 have codes 00, 01, 11, 10.
  EXPECT_EQ(mlb::gray(0), 0);
  EXPECT_EQ(mlb::gray(1), 1);
  EXPECT_EQ(mlb::gray(2), 3);
  EXPECT_EQ(mlb::gray(3), 2);
  for (int pos = 0; pos < 64; ++pos) {
    EXPECT_EQ(mlb::gray_inverse(mlb::gray(pos)), pos);
    for (int k = 0; k < 6; ++k)
      EXPECT_EQ(mlb::edge_partner(pos, k), pos ^ ((2 << k) - 1));
  }
}

TEST(Mlb, AccumulatedAndDesiredLoadsFollowTheTree) {
  const mlb::LoadTree acc = mlb::accumulate({4, 0, 2, 2});
  EXPECT_EQ(acc[0], std::vector<double>({8}));
  EXPECT_EQ(acc[1], std::vector<double>({4, 4}));
  const mlb::LoadTree want = mlb::desired(mlb::accumulate({1, 1, 1, 1}), 8);
  EXPECT_EQ(want[1], std::vector<double>({4, 4}));
  EXPECT_EQ(want[2], std::vector<double>({2, 2, 2, 2}));
  // A virtual rank (no capacity) is given nothing.
  const mlb::LoadTree three = mlb::desired(mlb::accumulate({1, 1, 1, 0}), 9);
  EXPECT_EQ(three[2], std::vector<double>({3, 3, 3, 0}));
}

TEST(Mlb, DivisibleScheduleReachesTheDesiredLoads) {
  // Phase 3 alone: position 0 holds everything; after the two edges all hold 2.
  const auto s = mlb::balance_divisible({0, 8, 8, 8, 8}, {0, 2, 4, 6, 8}, 2);
  ASSERT_EQ(s.send.size(), 2u);
  EXPECT_EQ(s.send[0], std::vector<double>({4, 0, 0, 0}));  // 1-edge: 0 -> 3
  EXPECT_EQ(s.send[1], std::vector<double>({2, 0, 0, 2}));  // 0-edge: 0 -> 1, 3 -> 2
  EXPECT_EQ(s.held[1], std::vector<double>({2, 2, 2, 2}));
}

TEST(Mlb, HandExampleMovesHalfAlongTheCoarsestEdgeFirst) {
  // Eight unit patches on rank 0 of four: 0 sends the last four to 3 (its 1-edge
  // partner), then 0 sends two to 1 and 3 passes two on to 2.
  const auto patches = row(std::vector<double>(8, 1.0), std::vector<int>(8, 0));
  const Plan plan = Mlb().plan(patches, RankInfo::uniform(4));
  EXPECT_EQ(plan.owner, std::vector<int>({0, 0, 1, 1, 2, 2, 3, 3}));
  std::vector<std::tuple<int, int, int, int>> got;
  for (const Transfer& t : plan.schedule)
    got.emplace_back(t.step, t.from, t.to, t.patch);
  const std::vector<std::tuple<int, int, int, int>> want = {
      {0, 0, 3, 4}, {0, 0, 3, 5}, {0, 0, 3, 6}, {0, 0, 3, 7},
      {1, 0, 1, 2}, {1, 0, 1, 3}, {1, 3, 2, 4}, {1, 3, 2, 5}};
  EXPECT_EQ(got, want);
}

TEST(Mlb, EqualUnitPatchesBalanceExactly) {
  for (int p : {2, 3, 6, 8, 12, 16}) {
    std::mt19937 rng(p);
    std::uniform_int_distribution<int> own(0, p - 1);
    std::vector<int> owners(10 * p);
    for (int& o : owners)
      o = own(rng);
    const auto patches = row(std::vector<double>(10 * p, 1.0), owners);
    const Plan plan = Mlb().plan(patches, RankInfo::uniform(p));
    for (double l : loads(plan, patches, p))
      EXPECT_EQ(l, 10.0) << "p = " << p;
  }
}

TEST(Mlb, IndivisibleLoadsStayWithinTheLargestPatch) {
  for (int p : {4, 7, 16, 100}) {
    const auto patches = random_patches(40 * p, p, 100.0, 11 + p);
    const Plan plan = Mlb().plan(patches, RankInfo::uniform(p));
    const auto l = loads(plan, patches, p);
    const double avg = std::accumulate(l.begin(), l.end(), 0.0) / p;
    double largest = 0;
    for (const auto& q : patches)
      largest = std::max(largest, q.cost);
    EXPECT_LE(*std::max_element(l.begin(), l.end()), avg + largest + 1e-9) << "p = " << p;
  }
}

TEST(Mlb, EveryRankCommunicatesInAtMostCeilLog2PSteps) {
  for (int p : {1, 2, 3, 5, 8, 12, 64, 100}) {
    const auto patches = random_patches(20 * p, p, 50.0, 3 + p);
    const Plan plan = Mlb().plan(patches, RankInfo::uniform(p));
    std::map<int, std::set<int>> sends, receives;
    std::map<std::pair<int, int>, std::set<int>> partners;  // (rank, step) -> partners
    for (const Transfer& t : plan.schedule) {
      ASSERT_NE(t.from, t.to);
      ASSERT_GE(t.step, 0);
      ASSERT_LT(t.step, ceil_log2(p));
      sends[t.from].insert(t.step);
      receives[t.to].insert(t.step);
      partners[{t.from, t.step}].insert(t.to);
    }
    for (const auto& [r, steps] : sends)
      EXPECT_LE(int(steps.size()), ceil_log2(p)) << "p = " << p;
    for (const auto& [r, steps] : receives)
      EXPECT_LE(int(steps.size()), ceil_log2(p)) << "p = " << p;
    // One partner per step (two for a rank that also plays a virtual one).
    const bool power_of_two = (p & (p - 1)) == 0;
    for (const auto& [key, to] : partners)
      EXPECT_LE(int(to.size()), power_of_two ? 1 : 2) << "p = " << p;
  }
}

TEST(Mlb, ReplayingTheScheduleGivesTheOwners) {
  for (int p : {3, 16, 33}) {
    auto patches = random_patches(30 * p, p, 20.0, 5 + p);
    for (size_t i = 0; i < patches.size(); i += 7)
      patches[i].owner = -1;  // new patches
    const Plan plan = Mlb().plan(patches, RankInfo::uniform(p));
    std::vector<int> at = mlb_initial_owners(patches, p);
    int step = 0;
    for (const Transfer& t : plan.schedule) {
      ASSERT_GE(t.step, step);  // ordered by step
      step = t.step;
      ASSERT_EQ(at[t.patch], t.from);
      at[t.patch] = t.to;
    }
    EXPECT_EQ(at, plan.owner);
  }
}

TEST(Mlb, PlansAreDeterministic) {
  const auto patches = random_patches(500, 24, 30.0, 9);
  const Plan a = Mlb().plan(patches, RankInfo::uniform(24));
  const Plan b = Mlb().plan(patches, RankInfo::uniform(24));
  EXPECT_EQ(a.owner, b.owner);
  ASSERT_EQ(a.schedule.size(), b.schedule.size());
  for (size_t i = 0; i < a.schedule.size(); ++i) {
    EXPECT_EQ(a.schedule[i].patch, b.schedule[i].patch);
    EXPECT_EQ(a.schedule[i].to, b.schedule[i].to);
  }
  for (size_t i = 0; i < patches.size(); ++i)
    EXPECT_EQ(a.boxes[i], patches[i].box);
}

TEST(Mlb, BalancedOwnersStayPut) {
  const auto patches =
      row(std::vector<double>(12, 1.0), {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3});
  const Plan plan = Mlb().plan(patches, RankInfo::uniform(4));
  EXPECT_TRUE(plan.schedule.empty());
  EXPECT_EQ(plan.owner, std::vector<int>({0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}));
}

TEST(Mlb, NewPatchesGoToTheirCurveNeighboursRank) {
  EXPECT_EQ(mlb_initial_owners(row({1, 1, 1, 1, 1}, {-1, 2, -1, 9, 1}), 4),
            std::vector<int>({2, 2, 2, 2, 1}));
  EXPECT_EQ(mlb_initial_owners(row({1, 1, 1, 1}, {-1, -1, -1, -1}), 2),
            std::vector<int>({0, 0, 1, 1}));
}

TEST(Mlb, MortonOrderVisitsAQuadrantAtATime) {
  // Level-1 patches of a 4x4 level-0 square, given row by row; the 2x2 quadrants come
  // one after the other.
  std::vector<PatchMeta> v;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i)
      v.push_back({Box{{2 * i, 2 * j, 0}, {2 * i + 1, 2 * j + 1, 0}}, 1, 0, 1.0, 2});
  EXPECT_EQ(morton_order(v),
            std::vector<int>({0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}));
}

TEST(Mlb, FasterRanksTakeProportionallyMore) {
  const auto patches = row(std::vector<double>(300, 1.0), std::vector<int>(300, 1));
  RankInfo ranks = RankInfo::uniform(2);
  ranks.speed = {2.0, 1.0};
  const auto l = loads(Mlb().plan(patches, ranks), patches, 2);
  EXPECT_EQ(l[0], 200.0);
  EXPECT_EQ(l[1], 100.0);
}

TEST(Mlb, RegisteredAndHopsAskForHopByHopMigration) {
  const auto patches = random_patches(60, 4, 10.0, 2);
  const Deck deck = Deck::parse("[balance]\nmethod = \"mlb\"\n", "mlb.toml");
  const auto straight = make_balancer(deck, SplitRules{});
  EXPECT_EQ(straight->name(), "mlb");
  const Deck hops =
      Deck::parse("[balance]\nmethod = \"mlb\"\nmlb.hops = true\n", "hops.toml");
  const Plan a = straight->plan(patches, RankInfo::uniform(4));
  const Plan b = make_balancer(hops, SplitRules{})->plan(patches, RankInfo::uniform(4));
  EXPECT_FALSE(a.hop_by_hop);
  EXPECT_TRUE(b.hop_by_hop);
  EXPECT_EQ(a.owner, b.owner);
  EXPECT_FALSE(b.schedule.empty());
}

TEST(Mlb, PerPositionPhasesGiveTheAllPositionsSchedule) {
  // With integer costs every sum is exact, so the plan (phases run per hypercube
  // position, as on MPI) must be the one of the reference phases run on whole vectors.
  for (int p : {2, 3, 5, 8, 13}) {
    auto patches = random_patches(25 * p, p, 40.0, 17 + p);
    for (PatchMeta& m : patches)
      m.cost = std::floor(m.cost);
    const Plan plan = Mlb().plan(patches, RankInfo::uniform(p));

    const mlb::Hypercube cube = mlb::Hypercube::make(p);
    const int n = int(patches.size()), size = cube.size();
    const std::vector<int> owner0 = mlb_initial_owners(patches, p);
    const std::vector<int> curve = morton_order(patches);
    std::vector<int> curve_pos(n), item(n);
    for (int k = 0; k < n; ++k)
      curve_pos[curve[k]] = k;
    std::iota(item.begin(), item.end(), 0);
    std::sort(item.begin(), item.end(), [&](int a, int b) {
      return std::make_pair(owner0[a], curve_pos[a]) <
             std::make_pair(owner0[b], curve_pos[b]);
    });
    std::vector<double> cost(n), leaf(size, 0.0), capacity(size, 0.0);
    std::vector<int> holder(n);
    for (int i = 0; i < n; ++i) {
      cost[i] = patches[item[i]].cost;
      holder[i] = cube.pos_of[owner0[item[i]]];
      leaf[holder[i]] += cost[i];
    }
    for (int r = 0; r < p; ++r)
      capacity[cube.pos_of[r]] = 1.0;
    const double total = mlb::accumulate(leaf)[0][0];
    const mlb::LoadTree want = mlb::desired(mlb::accumulate(capacity), total);
    std::vector<double> start(size + 1, 0.0), target(size + 1, 0.0);
    for (int q = 0; q < size; ++q) {
      start[q + 1] = start[q] + leaf[q];
      target[q + 1] = target[q] + want[cube.dims][q];
    }
    target[size] = start[size];
    const auto moves = mlb::balance_indivisible(
        cost, holder, target, mlb::balance_divisible(start, target, cube.dims),
        cube.dims);
    for (int i = 0; i < n; ++i)
      EXPECT_EQ(plan.owner[item[i]], cube.host(moves.final_pos[i])) << "p = " << p;
    std::vector<Transfer> expected;
    for (const mlb::Hop& h : moves.hops)
      if (cube.host(h.from) != cube.host(h.to))
        expected.push_back({h.step, cube.host(h.from), cube.host(h.to), item[h.item]});
    ASSERT_EQ(plan.schedule.size(), expected.size()) << "p = " << p;
    for (size_t h = 0; h < expected.size(); ++h) {
      const Transfer &a = plan.schedule[h], &b = expected[h];
      EXPECT_EQ(std::make_tuple(a.step, a.from, a.to, a.patch),
                std::make_tuple(b.step, b.from, b.to, b.patch))
          << "p = " << p << ", hop " << h;
    }
  }
}
