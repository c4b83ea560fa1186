// Zoltan's RCB, RIB and HSFC as balancers: every patch gets an owner, loads stay within
// IMBALANCE_TOL, repeated calls agree, space and weights are respected. Balancers are
// made through the registry, as the app makes them; in a build without Zoltan these
// tests skip, except the one that checks the names still explain themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "balance/balancer.hpp"
#include "tests/balance/balance_testing.hpp"

using namespace pw;
using pw::testing::loads;

namespace {

#if defined(PATCHWORK_HAVE_ZOLTAN) && PATCHWORK_HAVE_ZOLTAN
constexpr bool kHaveZoltan = true;
#else
constexpr bool kHaveZoltan = false;
#endif

#define PW_NEED_ZOLTAN()                                                          \
  if (!kHaveZoltan)                                                               \
  GTEST_SKIP() << "this build has no Zoltan (install libtrilinos-zoltan-dev and " \
                  "reconfigure)"

const char* const kMethods[] = {"zoltan_rcb", "zoltan_rib", "zoltan_hsfc"};

Deck deck_for(const std::string& method, const std::string& extra = "") {
  return Deck::parse("[balance]\nmethod = \"" + method + "\"\n" + extra, "zoltan.toml");
}

std::unique_ptr<Balancer> zoltan(const std::string& method) {
  return make_balancer(deck_for(method), SplitRules{3, 8, 8});
}

/// nx x ny x nz patches of 8^3 cells at level `level`, shifted by `offset` cells.
std::vector<PatchMeta> grid(int nx, int ny, int nz, IntVect offset = {0, 0, 0},
                            double cost = 512) {
  std::vector<PatchMeta> v;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const IntVect lo = IntVect{8 * i, 8 * j, 8 * k} + offset;
        v.push_back({Box{lo, lo + IntVect::uniform(7)}, 0, -1, cost});
      }
  return v;
}

/// A row whose first patch is as costly as the other 63 together.
std::vector<PatchMeta> heavy_first_row() {
  auto patches = grid(64, 1, 1, {0, 0, 0}, 1.0);
  patches[0].cost = 63.0;
  return patches;
}

}  // namespace

TEST(ZoltanRegistry, NamesAreKnownAndSayWhenZoltanIsMissing) {
  for (const char* name : kMethods) {
    EXPECT_TRUE(balancer_registry().count(name)) << name;
    if (kHaveZoltan) {
      EXPECT_EQ(zoltan(name)->name(), name);
    } else {
      try {
        zoltan(name);
        ADD_FAILURE() << name << " was made without Zoltan";
      } catch (const UserError& e) {
        EXPECT_NE(std::string(e.what()).find(std::string(name) + " needs Zoltan"),
                  std::string::npos)
            << e.what();
      }
    }
  }
}

TEST(ZoltanRegistry, RejectsAnImbalanceToleranceBelowOne) {
  PW_NEED_ZOLTAN();
  const Deck deck = deck_for("zoltan_rcb", "[balance.zoltan_rcb]\nimbalance_tol = 0.9\n");
  EXPECT_THROW(make_balancer(deck, SplitRules{}), UserError);
}

class ZoltanEach : public ::testing::TestWithParam<const char*> {};

TEST_P(ZoltanEach, GivesEveryPatchAnOwnerWithinTheImbalanceTolerance) {
  PW_NEED_ZOLTAN();
  const auto patches = grid(16, 16, 16);  // 4096 equal patches
  const int p = 16;
  const Plan plan = zoltan(GetParam())->plan(patches, RankInfo::uniform(p));
  ASSERT_EQ(plan.owner.size(), patches.size());
  for (size_t i = 0; i < patches.size(); ++i) {
    EXPECT_EQ(plan.boxes[i], patches[i].box);
    EXPECT_EQ(plan.level[i], patches[i].level);
    EXPECT_EQ(plan.source[i], int(i));
    EXPECT_GE(plan.owner[i], 0);
    EXPECT_LT(plan.owner[i], p);
  }
  const auto l = loads(plan, patches, p);
  const double avg = std::accumulate(l.begin(), l.end(), 0.0) / p;
  EXPECT_LE(*std::max_element(l.begin(), l.end()) / avg, 1.1);
}

TEST_P(ZoltanEach, GivesTheSamePlanOnRepeatedCalls) {
  PW_NEED_ZOLTAN();
  auto patches = grid(12, 9, 7);
  for (size_t i = 0; i < patches.size(); ++i)
    patches[i].cost = double(1 + (i * 37) % 11);
  const RankInfo ranks = RankInfo::uniform(10);
  const Plan first = zoltan(GetParam())->plan(patches, ranks);
  const auto again = zoltan(GetParam());
  for (int n = 0; n < 3; ++n)
    EXPECT_EQ(again->plan(patches, ranks).owner, first.owner);
}

TEST_P(ZoltanEach, MovesTheCutByWeight) {
  PW_NEED_ZOLTAN();
  // A row of 64 patches, the first 32 three times as costly: an even cut by weight falls
  // near patch 21, not at 32 as by count.
  auto patches = grid(64, 1, 1, {0, 0, 0}, 1.0);
  for (int i = 0; i < 32; ++i)
    patches[i].cost = 3.0;
  const Plan plan = zoltan(GetParam())->plan(patches, RankInfo::uniform(2));
  const auto l = loads(plan, patches, 2);
  EXPECT_LE(std::max(l[0], l[1]), 64 * 1.1);
}

TEST(ZoltanHsfc, LeavesAHeavyPatchAlone) {
  PW_NEED_ZOLTAN();
  const auto patches = heavy_first_row();
  const Plan plan = zoltan("zoltan_hsfc")->plan(patches, RankInfo::uniform(2));
  const auto l = loads(plan, patches, 2);
  EXPECT_DOUBLE_EQ(l[plan.owner[0]], 63.0);
  EXPECT_DOUBLE_EQ(l[1 - plan.owner[0]], 63.0);
}

TEST(ZoltanRcbRib, MissTheMedianByAtMostHalfTheHeaviestPatch) {
  PW_NEED_ZOLTAN();
  // Zoltan's median search stops within half the heaviest weight of the target (it
  // reaches 93 | 33 here, not 63 | 63): a limit of RCB and RIB to know when comparing.
  const auto patches = heavy_first_row();
  for (const char* method : {"zoltan_rcb", "zoltan_rib"}) {
    const Plan plan = zoltan(method)->plan(patches, RankInfo::uniform(2));
    const auto l = loads(plan, patches, 2);
    EXPECT_LE(std::max(l[0], l[1]), 63.0 + 63.0 / 2) << method;
  }
}

TEST_P(ZoltanEach, GivesFasterRanksProportionallyMore) {
  PW_NEED_ZOLTAN();
  const auto patches = grid(16, 16, 1, {0, 0, 0}, 1.0);
  RankInfo ranks = RankInfo::uniform(2);
  ranks.speed = {3.0, 1.0};
  const Plan plan = zoltan(GetParam())->plan(patches, ranks);
  const auto l = loads(plan, patches, 2);
  // Targets 192 and 64 patches, within IMBALANCE_TOL = 1.1 of each.
  EXPECT_LE(l[0], 192 * 1.1);
  EXPECT_LE(l[1], 64 * 1.1);
}

INSTANTIATE_TEST_SUITE_P(ZoltanMethods, ZoltanEach, ::testing::ValuesIn(kMethods),
                         [](const auto& info) { return std::string(info.param); });

TEST(ZoltanRcbRib, PlacesLevelsInOneFrame) {
  PW_NEED_ZOLTAN();
  // Level-0 clusters near x = 100 and x = 400 (level-0 cells), and level-2 patches
  // (refinement 4) inside the first whose index-space x (384..416) is the second's: in a
  // common frame the first cluster and its fine patches make one rank, the second the
  // other (it costs double, so the halves weigh the same). RCB and RIB cut space by
  // planes; HSFC's curve need not keep a cluster whole, but shares the frame code.
  const auto a = grid(4, 4, 4, {96, 0, 0});
  auto fine = grid(4, 4, 4, {384, 0, 0});
  for (PatchMeta& m : fine) {
    m.level = 2;
    m.refinement = 4;
  }
  const auto b = grid(4, 4, 4, {384, 0, 0}, 1024);
  std::vector<PatchMeta> patches = a;
  patches.insert(patches.end(), fine.begin(), fine.end());
  patches.insert(patches.end(), b.begin(), b.end());
  const size_t first_b = a.size() + fine.size();
  for (const char* method : {"zoltan_rcb", "zoltan_rib"}) {
    const Plan plan = zoltan(method)->plan(patches, RankInfo::uniform(2));
    for (size_t i = 0; i < patches.size(); ++i)
      EXPECT_EQ(plan.owner[i], plan.owner[i < first_b ? 0 : first_b])
          << method << " " << i;
    EXPECT_NE(plan.owner[0], plan.owner[first_b]) << method;
  }
}

TEST(ZoltanRcb, SeparatesTwoDistantClustersOnTwoRanks) {
  PW_NEED_ZOLTAN();
  auto patches = grid(5, 5, 2);
  const auto far = grid(5, 5, 2, {1000, 300, 0});
  patches.insert(patches.end(), far.begin(), far.end());
  const Plan plan = zoltan("zoltan_rcb")->plan(patches, RankInfo::uniform(2));
  const size_t half = patches.size() / 2;
  for (size_t i = 0; i < patches.size(); ++i)
    EXPECT_EQ(plan.owner[i], plan.owner[i < half ? 0 : half]) << i;
  EXPECT_NE(plan.owner[0], plan.owner[half]);
}

TEST(ZoltanRcb, NeedsNoZoltanCallForOneRankOrNoPatches) {
  PW_NEED_ZOLTAN();
  const auto patches = grid(3, 3, 3);
  EXPECT_EQ(zoltan("zoltan_rcb")->plan(patches, RankInfo::uniform(1)).owner,
            std::vector<int>(patches.size(), 0));
  EXPECT_TRUE(zoltan("zoltan_rcb")->plan({}, RankInfo::uniform(4)).owner.empty());
}
