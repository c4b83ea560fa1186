// lan_distributed (Lan & Taylor, seed 001): group shares follow the groups' speeds, the
// global phase redistributes only when Gain (eq. 4) > gamma * Cost (eq. 1), moves the
// amount of Fig. 6, and neither phase separates children from their parents' group.
#include <gtest/gtest.h>

#include <numeric>

#include "amr/box_index.hpp"
#include "balance/lan_distributed.hpp"
#include "balance/sfc.hpp"

namespace pw {
namespace {

PatchMeta patch2d(int level, int i0, int j0, int size, int refinement, int owner = -1,
                  double cost_per_cell = 1.0) {
  const Box b({i0, j0, 0}, {i0 + size - 1, j0 + size - 1, 0});
  return {b, level, owner, cost_per_cell * double(b.num_cells()), refinement, -1};
}

/// Ranks 0..n-1 in groups of `size` consecutive ranks.
RankInfo grouped(int n, int size) {
  RankInfo r = RankInfo::uniform(n);
  for (int k = 0; k < n; ++k)
    r.group[size_t(k)] = k / size;
  return r;
}

/// Cost per group of a plan (a piece costs its share of its patch's cells).
std::vector<double> group_costs(const Plan& plan, const std::vector<PatchMeta>& patches,
                                const RankInfo& ranks, int ngroups) {
  std::vector<double> w(size_t(ngroups), 0.0);
  for (size_t b = 0; b < plan.boxes.size(); ++b) {
    const PatchMeta& p = patches[size_t(plan.source[b])];
    w[size_t(ranks.group[size_t(plan.owner[b])])] +=
        p.cost * double(plan.boxes[b].num_cells()) / double(p.box.num_cells());
  }
  return w;
}

/// Level-0 patches of 8x8 on a 64x64 domain, and level-1 patches (ratio 2) refining the
/// level-0 patches of the lower left quarter.
std::vector<PatchMeta> two_level_set() {
  std::vector<PatchMeta> ps;
  for (int j = 0; j < 64; j += 8)
    for (int i = 0; i < 64; i += 8)
      ps.push_back(patch2d(0, i, j, 8, 1));
  for (int j = 0; j < 64; j += 8)
    for (int i = 0; i < 64; i += 8)
      ps.push_back(patch2d(1, i, j, 8, 2));
  return ps;
}

/// Every output box of level > 0 is on a rank of the same group as the output box of the
/// next coarser level under its centre.
void expect_children_with_parents(const Plan& plan, const RankInfo& ranks) {
  for (size_t f = 0; f < plan.boxes.size(); ++f) {
    if (plan.level[f] == 0) continue;
    IntVect c = plan.boxes[f].lo + plan.boxes[f].hi;
    for (int d = 0; d < 3; ++d)
      c[d] = floor_div(c[d], 2);
    c = coarsen(c, IntVect{2, 2, 1});
    int found = 0;
    for (size_t b = 0; b < plan.boxes.size(); ++b) {
      if (plan.level[b] != plan.level[f] - 1 || !plan.boxes[b].contains(c)) continue;
      ++found;
      EXPECT_EQ(ranks.group[size_t(plan.owner[f])], ranks.group[size_t(plan.owner[b])])
          << "child " << plan.boxes[f] << " parent " << plan.boxes[b];
    }
    EXPECT_EQ(found, 1) << plan.boxes[f];
  }
}

TEST(LanDistributed, GainIsEquationFour) {
  // T * (max - min) / (groups * max).
  EXPECT_DOUBLE_EQ(group_gain(10.0, {3.0, 1.0}), 10.0 * 2.0 / (2.0 * 3.0));
  EXPECT_DOUBLE_EQ(group_gain(6.0, {2.0, 2.0, 1.0}), 6.0 * 1.0 / (3.0 * 2.0));
  EXPECT_DOUBLE_EQ(group_gain(5.0, {0.0, 0.0}), 0.0);
}

TEST(LanDistributed, FirstSplitGivesGroupsSharesProportionalToTheirSpeeds) {
  // Group 0: ranks 0, 1 at speed 1; group 1: ranks 2, 3 at speed 0.5. Nothing measured
  // yet: the proposal is taken as it is.
  const std::vector<PatchMeta> ps = two_level_set();
  RankInfo ranks = grouped(4, 2);
  ranks.speed = {1.0, 1.0, 0.5, 0.5};
  const LanDistributed ld(SplitRules{2, 4, 4});
  const auto t = ld.trace(ps, ranks);
  EXPECT_TRUE(t.decision.global_phase);
  EXPECT_TRUE(t.decision.initial);
  const std::vector<double> w = group_costs(t.plan, ps, ranks, 2);
  const double total = w[0] + w[1];
  // Shares 2/3 and 1/3, to within the cut's granularity (4 level-0 cells and the
  // whole level-1 patches, at most 1.5% of the total here).
  EXPECT_NEAR(w[0] / total, 2.0 / 3.0, 0.015);
  expect_children_with_parents(t.plan, ranks);
}

/// Four equal level-0 patches on two groups of one rank, the first three along the curve
/// on rank 0: the proposal moves the third one (512 bytes at 8 bytes per cell).
struct ThreeToOne {
  std::vector<PatchMeta> ps;
  RankInfo ranks = grouped(2, 1);
  ThreeToOne() {
    for (int i = 0; i < 4; ++i)
      ps.push_back(patch2d(0, 8 * (i % 2), 8 * (i / 2), 8, 1));
    const std::vector<int> order = sfc_order(ps, SfcCurve::hilbert);
    for (int k = 0; k < 4; ++k)
      ps[size_t(order[size_t(k)])].owner = k < 3 ? 0 : 1;
    ranks.measured = {0.0, 0.1, 1e-3, 0.05, 8.0};
  }
};

TEST(LanDistributed, RedistributesOnlyWhenGainExceedsGammaTimesCost) {
  ThreeToOne s;
  const LanDistributed ld(SplitRules{2, 8, 8}, 2.0);
  // Gain = T (3 - 1) / (2 * 3) = T / 3; Cost = 0.1 + 1e-3 * 512 + 0.05 = 0.662.
  // Gain > 2 Cost  <=>  T > 3.972.
  for (double T : {3.9, 4.05}) {
    s.ranks.measured.step_seconds = T;
    const auto t = ld.trace(s.ps, s.ranks);
    EXPECT_DOUBLE_EQ(t.decision.gain, T / 3);
    EXPECT_DOUBLE_EQ(t.decision.bytes, 512.0);
    EXPECT_DOUBLE_EQ(t.decision.cost, 0.1 + 1e-3 * 512 + 0.05);
    const std::vector<double> w = group_costs(t.plan, s.ps, s.ranks, 2);
    if (T < 3.972) {
      EXPECT_FALSE(t.decision.redistributed) << T;
      EXPECT_EQ(w, (std::vector<double>{192, 64})) << T;
    } else {
      EXPECT_TRUE(t.decision.redistributed) << T;
      EXPECT_EQ(w, (std::vector<double>{128, 128})) << T;
    }
  }
}

TEST(LanDistributed, TimesTheNetworkOnlyWhenTheDecisionHangsOnIt) {
  // The same decision as above with alpha and beta from the probe instead of the fields.
  ThreeToOne s;
  int calls = 0;
  s.ranks.measured.alpha = s.ranks.measured.beta = 0;
  s.ranks.measured.probe_network = [&] {
    ++calls;
    return std::make_pair(0.1, 1e-3);
  };
  const LanDistributed ld(SplitRules{2, 8, 8}, 2.0);
  s.ranks.measured.step_seconds = 4.05;
  auto t = ld.trace(s.ps, s.ranks);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(t.decision.probed);
  EXPECT_DOUBLE_EQ(t.decision.cost, 0.1 + 1e-3 * 512 + 0.05);
  EXPECT_TRUE(t.decision.redistributed);
  // Gain 1.0 <= gamma * delta (2 * 0.5): no cost can make it worth it, no probe.
  s.ranks.measured.step_seconds = 3.0;
  s.ranks.measured.overhead_seconds = 0.5;
  t = ld.trace(s.ps, s.ranks);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(t.decision.probed);
  EXPECT_FALSE(t.decision.redistributed);
}

TEST(LanDistributed, GammaScalesTheBar) {
  ThreeToOne s;
  s.ranks.measured.step_seconds = 3.0;  // gain 1.0 against cost 0.662
  EXPECT_TRUE(LanDistributed(SplitRules{2, 8, 8}, 1.5)
                  .trace(s.ps, s.ranks)
                  .decision.redistributed);
  EXPECT_FALSE(LanDistributed(SplitRules{2, 8, 8}, 1.6)
                   .trace(s.ps, s.ranks)
                   .decision.redistributed);
}

TEST(LanDistributed, MovesHalfTheDifferenceBetweenTwoEqualGroups) {
  // Fig. 6: about (W_A - W_B) / (2 W_A) x W_A^0 moves from A to B; with level 0 only,
  // (10 - 6) / 2 = 2 of 16 equal patches.
  std::vector<PatchMeta> ps;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i)
      ps.push_back(patch2d(0, 8 * i, 8 * j, 8, 1));
  const std::vector<int> order = sfc_order(ps, SfcCurve::hilbert);
  for (int k = 0; k < 16; ++k)
    ps[size_t(order[size_t(k)])].owner = k < 10 ? 0 : 1;
  RankInfo ranks = grouped(2, 1);
  ranks.measured = {1.0, 0.0, 0.0, 0.0, 8.0};
  const auto t = LanDistributed(SplitRules{2, 8, 8}).trace(ps, ranks);
  ASSERT_TRUE(t.decision.redistributed);
  EXPECT_DOUBLE_EQ(t.decision.bytes, 2 * 64 * 8.0);
  int moved = 0;
  for (size_t b = 0; b < t.plan.boxes.size(); ++b)
    moved += t.plan.owner[b] != ps[size_t(t.plan.source[b])].owner;
  EXPECT_EQ(moved, 2);
  EXPECT_EQ(group_costs(t.plan, ps, ranks, 2), (std::vector<double>{512, 512}));
}

TEST(LanDistributed, RedistributionKeepsChildrenWithTheirParents) {
  // Everything on group 0 (ranks 0, 1) at first; the redistribution must take families
  // across whole (a cut root's children go with the piece under their centre).
  std::vector<PatchMeta> ps = two_level_set();
  for (size_t i = 0; i < ps.size(); ++i)
    ps[i].owner = int(i % 2);
  RankInfo ranks = grouped(4, 2);
  ranks.measured = {1.0, 0.0, 0.0, 0.0, 8.0};
  const auto t = LanDistributed(SplitRules{2, 4, 4}).trace(ps, ranks);
  ASSERT_TRUE(t.decision.redistributed);
  const std::vector<double> w = group_costs(t.plan, ps, ranks, 2);
  EXPECT_NEAR(w[0] / (w[0] + w[1]), 0.5, 0.015);
  expect_children_with_parents(t.plan, ranks);
}

TEST(LanDistributed, CutsAFamilyWiderThanAShareBetweenWholeChildren) {
  // One level-0 patch refined all over: the only family must be cut at the groups'
  // boundary, each child going with the piece under its centre.
  std::vector<PatchMeta> ps = {patch2d(0, 0, 0, 32, 1)};
  for (int j = 0; j < 64; j += 8)
    for (int i = 0; i < 64; i += 8)
      ps.push_back(patch2d(1, i, j, 8, 2));
  const RankInfo ranks = grouped(4, 2);
  const auto t = LanDistributed(SplitRules{2, 4, 4}).trace(ps, ranks);
  const std::vector<double> w = group_costs(t.plan, ps, ranks, 2);
  EXPECT_NEAR(w[0] / (w[0] + w[1]), 0.5, 0.01);
  expect_children_with_parents(t.plan, ranks);
}

TEST(LanDistributed, LocalPhaseKeepsEveryPatchInItsGroup) {
  // Levels 1 and 2 only (level 0 is mid-step): patches stay in their owner's group, new
  // ones go to their parent owner's group, and each group is balanced inside.
  std::vector<PatchMeta> ps;
  for (int j = 0; j < 64; j += 8)
    for (int i = 0; i < 64; i += 8) {
      PatchMeta p = patch2d(1, i, j, 8, 2);
      p.owner = i < 32 ? 0 : -1;  // the left half all on rank 0, the right half new
      p.parent_owner = i < 32 ? 1 : 3;
      ps.push_back(p);
    }
  const RankInfo ranks = grouped(4, 2);
  const auto t = LanDistributed(SplitRules{2, 4, 4}).trace(ps, ranks);
  EXPECT_FALSE(t.decision.global_phase);
  std::vector<double> load(4, 0.0);
  for (size_t b = 0; b < t.plan.boxes.size(); ++b) {
    const PatchMeta& p = ps[size_t(t.plan.source[b])];
    EXPECT_EQ(ranks.group[size_t(t.plan.owner[b])], p.box.lo[0] < 32 ? 0 : 1);
    load[size_t(t.plan.owner[b])] += double(t.plan.boxes[b].num_cells());
  }
  // Inside each group Lan's scheme reaches its threshold (MaxLoad <= 1.25 AvgLoad).
  EXPECT_LE(std::max(load[0], load[1]), 1.25 * 0.5 * (load[0] + load[1]));
  EXPECT_LE(std::max(load[2], load[3]), 1.25 * 0.5 * (load[2] + load[3]));
}

TEST(LanDistributed, OneGroupIsLanLevelByLevel) {
  const std::vector<PatchMeta> ps = two_level_set();
  const RankInfo ranks = RankInfo::uniform(3);
  const auto t = LanDistributed(SplitRules{2, 4, 4}).trace(ps, ranks);
  EXPECT_FALSE(t.decision.global_phase);
  for (int level = 0; level < 2; ++level) {
    std::vector<double> load(3, 0.0);
    for (size_t b = 0; b < t.plan.boxes.size(); ++b)
      if (t.plan.level[b] == level)
        load[size_t(t.plan.owner[b])] += double(t.plan.boxes[b].num_cells());
    const double avg = std::accumulate(load.begin(), load.end(), 0.0) / 3;
    EXPECT_LE(*std::max_element(load.begin(), load.end()), 1.25 * avg) << level;
  }
}

TEST(LanDistributed, FactoryChecksGammaAndThreshold) {
  const SplitRules rules{2, 8, 8};
  EXPECT_THROW(LanDistributed::from_deck(
                   Deck::parse("[balance.lan_distributed]\ngamma = 0.0\n", "t"), rules),
               UserError);
  EXPECT_THROW(
      LanDistributed::from_deck(
          Deck::parse("[balance.lan_distributed]\nthreshold = 0.9\n", "t"), rules),
      UserError);
  EXPECT_EQ(LanDistributed::from_deck(Deck::parse("", "t"), rules)->name(),
            "lan_distributed");
}

}  // namespace
}  // namespace pw
