// Placement: a regrid makes each new patch on the owner its planner gives it before the
// patch is filled (LayoutPlanner::place), so that the balancing step after it need not
// move just-filled data; a patch that exists keeps its owner until that step.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>

#include "amr/diagnostics.hpp"
#include "amr/hierarchy.hpp"
#include "app/balancer_planner.hpp"
#include "physics/registry.hpp"
#include "tests/app/run_testing.hpp"

using namespace pw;
using pw::testing::run_deck;
using pw::testing::swirl_deck;

namespace {

/// The owner a box gets when it is made: a hash of the box, so that it is neither round
/// robin nor anything the hierarchy could guess.
int owner_of(const Box& b, int nranks) {
  const size_t h = std::hash<long>()(b.lo[0] * 7919L + b.lo[1] * 104729L + b.hi[0] * 31L +
                                     b.hi[1] * 1009L + b.lo[2] * 13L);
  return int(h % size_t(nranks));
}

/// Places every new box by owner_of and never moves a patch afterwards; records how many
/// new boxes it was asked about.
class HashPlanner : public LayoutPlanner {
 public:
  explicit HashPlanner(int nranks) : nranks_(nranks) {}
  int placed = 0;

  std::vector<int> place(const std::vector<LevelLayout>& levels, int level) override {
    const LevelLayout& L = levels.at(size_t(level));
    std::vector<int> out;
    for (size_t p = 0; p < L.size(); ++p) {
      // The hierarchy passes a patch that exists with its owner, a new box with -1.
      if (L.owner[p] < 0) ++placed;
      // For an existing patch an answer the hierarchy must ignore: it keeps its owner.
      out.push_back(L.owner[p] >= 0 ? (L.owner[p] + 1) % nranks_
                                    : owner_of(L.boxes[p], nranks_));
    }
    return out;
  }
  std::vector<LevelLayout> plan(const std::vector<LevelLayout>& proposed, int) override {
    return proposed;
  }
  void observe(const std::vector<LevelLayout>&,
               const std::vector<std::vector<double>>&) override {}

 private:
  int nranks_;
};

}  // namespace

TEST(Placement, NewPatchesAreMadeOnThePlannersOwnersAndExistingOnesStay) {
  const Comm world;
  const Deck deck = Deck::parse(swirl_deck(2), "placement.toml", {"output.write=false"});
  const AmrConfig cfg = read_amr_config(deck);
  const auto physics = make_physics(deck);
  HashPlanner planner(world.size());
  Hierarchy h(cfg, *physics, planner, world);
  h.initialize();
  ASSERT_EQ(h.finest_level(), 2);
  // Every box keeps the owner it was made on (the plan never moves one), so that owner
  // is the hash of the box, on every level, after every regrid.
  std::set<std::pair<int, Box>> seen;
  const auto check = [&] {
    for (int l = 0; l <= h.finest_level(); ++l) {
      const LevelLayout& L = h.level(l).layout;
      for (size_t p = 0; p < L.size(); ++p) {
        EXPECT_EQ(L.owner[p], owner_of(L.boxes[p], world.size()))
            << "level " << l << " patch " << p;
        seen.emplace(l, L.boxes[p]);
      }
    }
  };
  check();
  for (int s = 0; s < 8; ++s) {
    h.advance(h.stable_dt());
    check();
  }
  EXPECT_GT(h.regrid_count(), 4);
  EXPECT_GT(planner.placed, int(seen.size()) / 2);  // the planner was asked, not bypassed
  for (const BalanceEvent& e : h.balance_events())
    EXPECT_EQ(e.bytes_migrated, 0);
  // Owners do not change the answer.
  EXPECT_EQ(fingerprint(h),
            run_deck(swirl_deck(2), world, {"time.max_step=8"}).fingerprint);
}

/// The app's planner for the swirl deck with balance.method = `method`, on all ranks.
struct AppPlanner {
  Comm world;
  Deck deck;
  BalancerPlanner planner;
  explicit AppPlanner(const std::string& method)
      : deck(Deck::parse(swirl_deck(2), "placement.toml",
                         {"output.write=false", "balance.method=" + method})),
        planner(deck, read_amr_config(deck), RankInfo::uniform(world.size()), world) {}
};

TEST(Placement, KnapsackPlacesNewPatchesWhereItsPlanKeepsThem) {
  AppPlanner app("knapsack");
  const Comm& world = app.world;
  BalancerPlanner& planner = app.planner;
  // Level 0 as it is, level 1 just made: boxes of different sizes, all new.
  std::vector<LevelLayout> levels(2);
  levels[0].boxes = {Box{{0, 0, 0}, {15, 15, 0}}, Box{{16, 0, 0}, {31, 15, 0}},
                     Box{{0, 16, 0}, {15, 31, 0}}, Box{{16, 16, 0}, {31, 31, 0}}};
  for (size_t p = 0; p < 4; ++p)
    levels[0].owner.push_back(int(p) % world.size());
  for (int n = 0; n < 7; ++n) {
    const int w = 4 * (1 + n % 3);
    levels[1].boxes.push_back(Box{{8 * n, 0, 0}, {8 * n + w - 1, 7, 0}});
    levels[1].owner.push_back(-1);
  }
  const std::vector<int> owner = planner.place(levels, 1);
  ASSERT_EQ(owner.size(), levels[1].size());
  EXPECT_TRUE(planner.records().empty());  // placing is not a balancing step
  levels[1].owner = owner;
  const std::vector<LevelLayout> planned = planner.plan(levels, 0);
  EXPECT_EQ(planned[1], levels[1]);  // the plan moves none of them
  EXPECT_EQ(planner.records().size(), 1u);
}

TEST(Placement, ABalancerThatSplitsPlacesNothing) {
  AppPlanner app("chop_pack");
  std::vector<LevelLayout> levels(1);
  levels[0].boxes = {Box{{0, 0, 0}, {31, 31, 0}}};
  levels[0].owner = {-1};
  // One patch for any number of ranks: chop_pack splits it (beyond one rank), and a
  // placement cannot split.
  if (app.world.size() > 1) EXPECT_TRUE(app.planner.place(levels, 0).empty());
}
