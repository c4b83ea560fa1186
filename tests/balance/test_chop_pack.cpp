// Chop and pack (Morris): boxes above the ideal load are cut into whole ideal loads plus
// a leftover at legal positions, and the pieces are packed largest first onto the least
// loaded rank, which balances what whole patches cannot.
#include <gtest/gtest.h>

#include "tests/balance/balance_testing.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "amr/deck.hpp"
#include "balance/bin_pack.hpp"
#include "balance/chop_pack.hpp"

using namespace pw;

namespace {

using pw::testing::tiles;

Box box2(int x0, int y0, int x1, int y1) {
  return Box{{x0, y0, 0}, {x1, y1, 0}};
}

/// Patches whose cost is their cell count (as the app's cost model on one level).
std::vector<PatchMeta> by_cells(const std::vector<Box>& boxes) {
  std::vector<PatchMeta> v;
  for (const Box& b : boxes)
    v.push_back({b, 0, -1, double(b.num_cells())});
  return v;
}

/// Random 3D patches aligned to 8, sides 8 to 64, some at negative indices.
std::vector<PatchMeta> random_patches(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> corner(-16, 16), side(1, 8);
  std::vector<Box> boxes;
  for (int i = 0; i < n; ++i) {
    IntVect lo{8 * corner(rng), 8 * corner(rng), 8 * corner(rng)};
    IntVect size{8 * side(rng), 8 * side(rng), 8 * side(rng)};
    boxes.push_back({lo, lo + size - IntVect::uniform(1)});
  }
  return by_cells(boxes);
}

}  // namespace

TEST(ChopPack, ThreePointTwoIdealsAreCutFirstIntoTwoAndOnePointTwo) {
  const auto [lo, hi] = split_share({3, true});
  EXPECT_EQ(lo.wholes, 2);
  EXPECT_FALSE(lo.leftover);
  EXPECT_EQ(hi.wholes, 1);
  EXPECT_TRUE(hi.leftover);
  // 64 x 40 cells at 800 cells per ideal load: the first cut (x = 40) leaves 2.0 ideals
  // on the lo side, shared evenly; the 1.2 on the hi side is cut across its now longer y
  // into one ideal (33 rows of 24, the legal cut nearest 800 cells) and the leftover.
  const auto pieces =
      chop_to_ideal(box2(0, 0, 63, 39), 3.2, 1.0, SplitRules{2, 1, 1}, 0.0);
  const std::vector<Box> expected = {box2(0, 0, 19, 39), box2(20, 0, 39, 39),
                                     box2(40, 0, 63, 32), box2(40, 33, 63, 39)};
  EXPECT_EQ(pieces, expected);
}

TEST(ChopPack, PiecesAreAlignedNoSmallerThanMinSizeAndTileTheirPatch) {
  const SplitRules rules{3, 8, 16};
  for (const PatchMeta& p : random_patches(50, 3)) {
    for (double ideal_cells : {300.0, 1000.0, 4096.0, 20000.0}) {
      const auto pieces = chop_to_ideal(p.box, p.cost, ideal_cells, rules, 0.0);
      EXPECT_TRUE(tiles(pieces, p.box)) << p.box;
      if (pieces.size() == 1) continue;  // whole patches need not meet min_size here
      for (const Box& b : pieces)
        for (int d = 0; d < 3; ++d) {
          EXPECT_EQ(floor_div(b.lo[d], 8) * 8, b.lo[d]) << b;
          EXPECT_EQ(b.size()[d] % 8, 0) << b;
          EXPECT_TRUE(b.size()[d] >= 16 || b.size()[d] == p.box.size()[d]) << b;
        }
    }
  }
}

TEST(ChopPack, PlanPiecesTileEachPatchAndKeepItsLevel) {
  auto patches = random_patches(200, 5);
  for (size_t i = 0; i < patches.size(); ++i)
    patches[i].level = int(i % 3);
  const Plan plan = ChopPack(SplitRules{3, 8, 8}).plan(patches, RankInfo::uniform(64));
  EXPECT_GT(plan.boxes.size(), patches.size());  // the big patches were cut
  std::vector<std::vector<Box>> of_patch(patches.size());
  for (size_t i = 0; i < plan.boxes.size(); ++i) {
    of_patch[plan.source[i]].push_back(plan.boxes[i]);
    EXPECT_EQ(plan.level[i], patches[plan.source[i]].level);
    EXPECT_TRUE(plan.owner[i] >= 0 && plan.owner[i] < 64);
  }
  for (size_t p = 0; p < patches.size(); ++p)
    EXPECT_TRUE(tiles(of_patch[p], patches[p].box)) << patches[p].box;
}

TEST(ChopPack, BinPackingPutsTheLargestFirstOntoTheLeastLoaded) {
  // Largest first: 5 -> r0, 4 -> r1, 3 -> r1 (4 < 5), 2 -> r0 (5 < 7), 1 -> r0 (tie at 7,
  // lower rank). In index order it would instead be {0, 1, 0, 1, 0}.
  EXPECT_EQ(bin_pack({3, 5, 4, 2, 1}, {1, 1}), (std::vector<int>{1, 0, 1, 0, 0}));
  // Equal costs go out in index order.
  EXPECT_EQ(bin_pack({1, 1, 1, 1}, {1, 1}), (std::vector<int>{0, 1, 0, 1}));
}

TEST(ChopPack, BinPackingGivesEachItemToTheRankThatFinishesItFirst) {
  // Against a plain scan of all ranks, with many distinct speeds, with many ties, and
  // with one speed for all (a rank count that is not a power of two).
  std::mt19937 rng(17);
  std::uniform_int_distribution<int> small(1, 4);
  std::uniform_real_distribution<double> any(0.5, 2.0);
  for (int variant = 0; variant < 4; ++variant) {
    const bool ties = variant % 2 == 1, uniform = variant >= 2;
    std::vector<double> speed(variant == 3 ? 64 : 37), cost(500);
    for (double& s : speed)
      s = uniform ? 0.75 : ties ? 0.5 * small(rng) : any(rng);
    for (double& c : cost)
      c = ties ? small(rng) : any(rng);
    std::vector<int> order(cost.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return cost[a] > cost[b]; });
    std::vector<double> load(speed.size(), 0.0);
    std::vector<int> expected(cost.size());
    for (int i : order) {
      int best = 0;
      for (int r = 1; r < int(speed.size()); ++r)
        if (load[r] + cost[i] / speed[r] < load[best] + cost[i] / speed[best]) best = r;
      load[best] += cost[i] / speed[best];
      expected[i] = best;
    }
    EXPECT_EQ(bin_pack(cost, speed), expected) << "variant " << variant;
  }
}

TEST(ChopPack, LargestFirstIsAStableSortByDecreasingCost) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> any(-3.0, 3.0);
  const double specials[] = {0.0, -0.0, 1.0, -1.0, 1e300, -1e-300, 2.5};
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> cost(int(rng() % 300));
    for (double& c : cost)
      c = rng() % 3 == 0 ? specials[rng() % 7] : trial % 2 ? any(rng) : double(rng() % 9);
    std::vector<int> order(cost.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return cost[a] > cost[b]; });
    EXPECT_EQ(largest_first(cost), order) << "trial " << trial;
  }
}

TEST(ChopPack, SplittingReachesNinetyFivePercentWhereWholePatchesCannot) {
  // One 3.2-ideal patch among ten small ones on 4 ranks: whole, the big patch alone is
  // 3.2 ideal loads on one rank.
  std::vector<Box> boxes = {box2(0, 0, 99, 39)};
  for (int i = 0; i < 10; ++i)
    boxes.push_back(box2(10 * i, 100, 10 * i + 9, 109));
  const auto patches = by_cells(boxes);
  const RankInfo ranks = RankInfo::uniform(4);
  std::vector<double> whole_costs;
  for (const PatchMeta& p : patches)
    whole_costs.push_back(p.cost);
  const double whole = estimated_load_balance(
      whole_costs, bin_pack(whole_costs, ranks.speed), ranks.speed);
  const Plan plan = ChopPack(SplitRules{2, 1, 1}).plan(patches, ranks);
  const double split =
      estimated_load_balance(piece_costs(plan, patches), plan.owner, ranks.speed);
  EXPECT_LT(whole, 0.35);
  EXPECT_GE(split, 0.95);
}

TEST(ChopPack, BoxesWithinTheToleranceAreNotCut) {
  const Box b = box2(0, 0, 104, 9);  // 1.05 ideal loads of 1000 cells
  EXPECT_EQ(chop_to_ideal(b, 1050, 1000, SplitRules{2, 1, 1}, 0.1).size(), 1u);
  EXPECT_EQ(chop_to_ideal(b, 1050, 1000, SplitRules{2, 1, 1}, 0.0).size(), 2u);
  // 3.05 ideals within tolerance 0.1: three even pieces, no leftover.
  const auto three =
      chop_to_ideal(box2(0, 0, 304, 9), 3050, 1000, SplitRules{2, 1, 1}, 0.1);
  ASSERT_EQ(three.size(), 3u);
  for (const Box& p : three)
    EXPECT_NEAR(double(p.num_cells()), 1016.7, 10.0);
}

TEST(ChopPack, SameInputGivesTheSamePlan) {
  const auto patches = random_patches(300, 11);
  const ChopPack balancer(SplitRules{3, 8, 8});
  const Plan a = balancer.plan(patches, RankInfo::uniform(48));
  const Plan b = ChopPack(SplitRules{3, 8, 8}).plan(patches, RankInfo::uniform(48));
  EXPECT_EQ(a.boxes, b.boxes);
  EXPECT_EQ(a.owner, b.owner);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.level, b.level);
}

TEST(ChopPack, FasterRanksTakeProportionallyMoreLoad) {
  // 400 cells on speeds {2, 1, 1}: ideal 100, four pieces, two on the fast rank.
  const auto patches = by_cells({box2(0, 0, 399, 0)});
  RankInfo ranks = RankInfo::uniform(3);
  ranks.speed = {2.0, 1.0, 1.0};
  const Plan plan = ChopPack(SplitRules{2, 1, 1}).plan(patches, ranks);
  ASSERT_EQ(plan.boxes.size(), 4u);
  const auto cost = piece_costs(plan, patches);
  std::vector<double> held(3, 0.0);
  for (size_t i = 0; i < cost.size(); ++i)
    held[plan.owner[i]] += cost[i];
  EXPECT_EQ(held, (std::vector<double>{200, 100, 100}));
  EXPECT_DOUBLE_EQ(estimated_load_balance(cost, plan.owner, ranks.speed), 1.0);
}

TEST(ChopPack, SlowIdleRankDoesNotTakeWhatAFastRankFinishesSooner) {
  // The slow rank would need 4 for either item; the fast one finishes both by 2.
  EXPECT_EQ(bin_pack({1, 1}, {1.0, 0.25}), (std::vector<int>{0, 0}));
}

TEST(ChopPack, DeckToleranceIsReadAndANegativeOneRejected) {
  const SplitRules rules{3, 8, 8};
  const Deck ok = Deck::parse("[balance]\nmethod = \"chop_pack\"\n", "ok.toml");
  EXPECT_EQ(make_balancer(ok, rules)->name(), "chop_pack");
  EXPECT_EQ(ok.used().at("balance.chop_pack.tolerance"), "0.0");
  const Deck bad = Deck::parse(
      "[balance]\nmethod = \"chop_pack\"\n[balance.chop_pack]\ntolerance = -0.5\n",
      "bad.toml");
  EXPECT_THROW(make_balancer(bad, rules), UserError);
}
