// Chop and pack with spatial packing: recursive coordinate bisection of the boxes, the
// box that straddles a cut cut as a staircase of legal pieces. It must balance as well as
// greedy packing where splitting allows it, while cutting fewer faces between ranks.
#include <gtest/gtest.h>

#include "tests/balance/balance_testing.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "amr/deck.hpp"
#include "balance/chop_pack.hpp"
#include "balance/lab/lab_metrics.hpp"
#include "balance/spatial_pack.hpp"

using namespace pw;

namespace {

using pw::testing::tiles;

/// The SplitRules a piece of `whole` must obey: in each direction it was cut, aligned to
/// and a multiple of the blocking factor, and no shorter than min_size.
::testing::AssertionResult legal(const Box& piece, const Box& whole,
                                 const SplitRules& rules) {
  for (int d = 0; d < rules.dim; ++d) {
    if (piece.size()[d] == whole.size()[d]) continue;
    const int g = rules.blocking_factor;
    if (floor_div(piece.lo[d], g) * g != piece.lo[d] || piece.size()[d] % g != 0 ||
        piece.size()[d] < rules.min_size)
      return ::testing::AssertionFailure() << piece << " of " << whole << " in " << d;
  }
  return ::testing::AssertionSuccess();
}

/// Random 3D patches aligned to 8, sides 8 to 64, on levels 0 to 2 (refinement 2).
std::vector<PatchMeta> random_patches(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> corner(-16, 16), side(1, 8), level(0, 2);
  std::vector<PatchMeta> v;
  for (int i = 0; i < n; ++i) {
    IntVect lo{8 * corner(rng), 8 * corner(rng), 8 * corner(rng)};
    IntVect size{8 * side(rng), 8 * side(rng), 8 * side(rng)};
    const int l = level(rng);
    const Box b{lo, lo + size - IntVect::uniform(1)};
    v.push_back({b, l, -1, double(b.num_cells()) * (1 << l), 1 << l});
  }
  return v;
}

/// An n x n x n grid of cubic patches of side s on level 0, cost = cells.
std::vector<PatchMeta> grid(int n, int s) {
  std::vector<PatchMeta> v;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const IntVect lo{i * s, j * s, k * s};
        const Box b{lo, lo + IntVect::uniform(s - 1)};
        v.push_back({b, 0, -1, double(b.num_cells())});
      }
  return v;
}

/// Load per rank over speed: the time each rank needs (a piece costs its cell share).
std::vector<double> times(const Plan& plan, const std::vector<PatchMeta>& patches,
                          const RankInfo& ranks) {
  std::vector<double> t(size_t(ranks.nranks), 0.0);
  const auto cost = piece_costs(plan, patches);
  for (size_t i = 0; i < cost.size(); ++i)
    t[size_t(plan.owner[i])] += cost[i] / ranks.speed[size_t(plan.owner[i])];
  return t;
}

/// Every piece inside its patch and legal, the pieces of a patch tile it, owners in
/// range.
void expect_valid(const Plan& plan, const std::vector<PatchMeta>& patches, int p,
                  const SplitRules& rules) {
  ASSERT_EQ(check_plan(patches, plan, p), "");
  std::vector<std::vector<Box>> of_patch(patches.size());
  for (size_t i = 0; i < plan.boxes.size(); ++i) {
    of_patch[size_t(plan.source[i])].push_back(plan.boxes[i]);
    EXPECT_TRUE(legal(plan.boxes[i], patches[size_t(plan.source[i])].box, rules));
  }
  for (size_t i = 0; i < patches.size(); ++i)
    EXPECT_TRUE(tiles(of_patch[i], patches[i].box)) << patches[i].box;
}

ChopPack spatial(const SplitRules& rules, double tolerance = 0.0) {
  return ChopPack(rules, tolerance, ChopPack::Packing::spatial);
}

}  // namespace

TEST(SpatialPack, StaircaseCutTilesTheBoxWithLegalPieces) {
  std::mt19937 rng(7);
  for (const SplitRules rules : {SplitRules{3, 8, 8}, SplitRules{3, 8, 16}}) {
    for (const PatchMeta& p : random_patches(60, 5)) {
      std::uniform_int_distribution<long> cells(-10, p.box.num_cells() + 10);
      for (int t = 0; t < 10; ++t) {
        const auto [lo, hi] = staircase_cut(p.box, cells(rng), {1, 2, 0}, rules);
        EXPECT_LE(lo.size(), 3u);
        EXPECT_LE(hi.size(), 3u);
        std::vector<Box> all = lo;
        all.insert(all.end(), hi.begin(), hi.end());
        EXPECT_TRUE(tiles(all, p.box)) << p.box;
        for (const Box& b : all)
          EXPECT_TRUE(legal(b, p.box, rules));
      }
    }
  }
}

TEST(SpatialPack, StaircaseCutTakesTheCellsToWithinHalfABlock) {
  // Boxes at least two blocks wide can be cut in every direction, down to one block.
  const SplitRules rules{3, 8, 8};
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> side(2, 8);
  for (int t = 0; t < 200; ++t) {
    const IntVect size{8 * side(rng), 8 * side(rng), 8 * side(rng)};
    const Box b{IntVect{-16, 8, 0}, IntVect{-16, 8, 0} + size - IntVect::uniform(1)};
    const long want = std::uniform_int_distribution<long>(0, b.num_cells())(rng);
    const auto lo =
        staircase_cut(b, want, {t % 3, (t + 1) % 3, (t + 2) % 3}, rules).first;
    long got = 0;
    for (const Box& p : lo)
      got += p.num_cells();
    EXPECT_LE(std::abs(got - want), 8 * 8 * 8 / 2) << b << " want " << want;
  }
}

TEST(SpatialPack, TouchingFacesFindsEveryPairOfTheLevelThatSharesFaces) {
  // Against every pair: disjoint boxes whose one-cell layer across an axis meets the
  // other share that layer's cells. Random lists have touching, overlapping and
  // corner-only pairs; the 2D ones lie in one z layer.
  for (unsigned seed : {1u, 2u, 3u})
    for (const bool flat : {false, true}) {
      auto patches = random_patches(400, seed);
      if (flat)
        for (PatchMeta& p : patches)
          p.box.lo[2] = p.box.hi[2] = 0;
      std::vector<std::vector<std::pair<int, long>>> want(patches.size());
      for (size_t i = 0; i < patches.size(); ++i)
        for (size_t j = 0; j < patches.size(); ++j) {
          const Box &a = patches[i].box, &b = patches[j].box;
          if (i == j || patches[i].level != patches[j].level || intersects(a, b))
            continue;
          long faces = 0;
          for (int d = 0; d < 3; ++d)
            if (const Box layer = grow(a, d, 1) & b; !layer.empty())
              faces += layer.num_cells();
          if (faces > 0) want[i].emplace_back(int(j), faces);
        }
      auto got = touching_faces(patches);
      ASSERT_EQ(got.size(), patches.size());
      long pairs = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        std::sort(got[i].begin(), got[i].end());
        EXPECT_EQ(got[i], want[i]) << "patch " << i << (flat ? " (2D)" : "");
        pairs += long(want[i].size());
      }
      EXPECT_GT(pairs, 100);  // the lists do touch
    }
}

TEST(SpatialPack, PlanTilesEachPatchWithLegalPiecesOnEveryLevel) {
  const auto patches = random_patches(300, 11);
  for (const SplitRules rules : {SplitRules{3, 8, 8}, SplitRules{3, 8, 16}})
    for (int p : {1, 7, 64, 1000}) {
      const Plan plan = spatial(rules).plan(patches, RankInfo::uniform(p));
      expect_valid(plan, patches, p, rules);
      for (size_t i = 0; i < plan.boxes.size(); ++i)
        EXPECT_EQ(plan.level[i], patches[size_t(plan.source[i])].level);
    }
}

TEST(SpatialPack, LoadsAreWithinOnePercentOfIdealWhenBlocksAreSmallAgainstIt) {
  // A block of 8^3 cells costs at most 2048 here, under 0.5% of the ideal load at these
  // rank counts, so cuts at block granularity balance to 1%.
  const auto patches = random_patches(500, 13);
  const SplitRules rules{3, 8, 8};
  for (int p : {2, 37, 64}) {
    RankInfo ranks = RankInfo::uniform(p);
    const Plan plan = spatial(rules).plan(patches, ranks);
    expect_valid(plan, patches, p, rules);
    const auto t = times(plan, patches, ranks);
    const double mean = std::accumulate(t.begin(), t.end(), 0.0) / p;
    EXPECT_LE(*std::max_element(t.begin(), t.end()), 1.01 * mean) << p << " ranks";
  }
}

TEST(SpatialPack, FasterRanksTakeProportionallyMoreLoad) {
  const auto patches = grid(6, 16);
  RankInfo ranks = RankInfo::uniform(5);
  ranks.speed = {2.0, 1.0, 0.5, 1.0, 1.5};
  const Plan plan = spatial(SplitRules{3, 8, 8}).plan(patches, ranks);
  expect_valid(plan, patches, 5, SplitRules{3, 8, 8});
  const auto t = times(plan, patches, ranks);
  const double ideal = 6 * 6 * 6 * 16 * 16 * 16 / 6.0;  // total cost / total speed
  for (double x : t)
    EXPECT_NEAR(x, ideal, 0.01 * ideal);
}

TEST(SpatialPack, CutsFewerFacesThanGreedyPackingOnAUniformGrid) {
  // Equal patches: greedy packing deals them out in index order, so neighbours land on
  // different ranks. Bisection gives octants at 8 ranks, the least cut there is (three
  // planes through the 128^3 domain), and stays far below greedy where it must split.
  const auto patches = grid(8, 16);
  const SplitRules rules{3, 8, 8};
  for (int p : {8, 6, 27}) {
    const Plan greedy = ChopPack(rules).plan(patches, RankInfo::uniform(p));
    const Plan spat = spatial(rules).plan(patches, RankInfo::uniform(p));
    expect_valid(spat, patches, p, rules);
    const long g = comm_cut(greedy.boxes, greedy.level, greedy.owner);
    const long s = comm_cut(spat.boxes, spat.level, spat.owner);
    EXPECT_LT(2 * s, g) << p << " ranks";
    if (p == 8) EXPECT_EQ(s, 3L * 128 * 128);
    const auto t = times(spat, patches, RankInfo::uniform(p));
    const double mean = std::accumulate(t.begin(), t.end(), 0.0) / p;
    EXPECT_LE(*std::max_element(t.begin(), t.end()), 1.01 * mean) << p << " ranks";
  }
}

TEST(SpatialPack, ToleranceLetsACutMissItsShareToOpenNoFaces) {
  // Three equal patches apart from each other on 2 ranks: the exact share cuts the middle
  // one, opening 16 x 16 faces; left whole, it costs no faces but misses the share by
  // half a patch, a third of an ideal load.
  std::vector<PatchMeta> apart;
  for (int i = 0; i < 3; ++i) {
    const Box b{IntVect{32 * i, 0, 0}, IntVect{32 * i + 15, 15, 15}};
    apart.push_back({b, 0, -1, double(b.num_cells())});
  }
  const SplitRules rules{3, 8, 8};
  const RankInfo two = RankInfo::uniform(2);
  const Plan exact = spatial(rules, 0.0).plan(apart, two);
  EXPECT_EQ(exact.boxes.size(), 4u);
  EXPECT_EQ(times(exact, apart, two), (std::vector<double>{6144, 6144}));
  EXPECT_EQ(comm_cut(exact.boxes, exact.level, exact.owner), 16 * 16);
  const Plan loose = spatial(rules, 0.4).plan(apart, two);
  EXPECT_EQ(loose.boxes.size(), 3u);
  EXPECT_EQ(comm_cut(loose.boxes, loose.level, loose.owner), 0);
  const auto t = times(loose, apart, two);
  EXPECT_LE(*std::max_element(t.begin(), t.end()), 1.4 * 6144);
}

TEST(SpatialPack, SameInputGivesTheSamePlan) {
  const auto patches = random_patches(300, 17);
  const Plan a = spatial(SplitRules{3, 8, 8}).plan(patches, RankInfo::uniform(48));
  const Plan b = spatial(SplitRules{3, 8, 8}).plan(patches, RankInfo::uniform(48));
  EXPECT_EQ(a.boxes, b.boxes);
  EXPECT_EQ(a.owner, b.owner);
  EXPECT_EQ(a.source, b.source);
}

TEST(SpatialPack, DeckPackingIsReadAndAnUnknownOneRejected) {
  const SplitRules rules{3, 8, 8};
  const Deck ok = Deck::parse(
      "[balance]\nmethod = \"chop_pack\"\n[balance.chop_pack]\npacking = \"spatial\"\n",
      "ok.toml");
  const auto b = make_balancer(ok, rules);
  const auto patches = grid(4, 16);
  // The spatial plan, not the greedy one: octants.
  const Plan plan = b->plan(patches, RankInfo::uniform(8));
  EXPECT_EQ(comm_cut(plan.boxes, plan.level, plan.owner), 3L * 64 * 64);
  const Deck dflt = Deck::parse("[balance]\nmethod = \"chop_pack\"\n", "default.toml");
  make_balancer(dflt, rules);
  EXPECT_EQ(dflt.used().at("balance.chop_pack.packing"), "\"greedy\"");
  const Deck bad = Deck::parse(
      "[balance]\nmethod = \"chop_pack\"\n[balance.chop_pack]\npacking = \"nearest\"\n",
      "bad.toml");
  EXPECT_THROW(make_balancer(bad, rules), UserError);
}
