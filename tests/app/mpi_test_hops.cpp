// Hop-by-hop migration: a planner's route (MLB's hypercube schedule) is walked one step
// at a time; the data ends where it would have gone straight, bit for bit, and every hop
// counts as migrated bytes.
#include <gtest/gtest.h>

#include "amr/diagnostics.hpp"
#include "amr/hierarchy.hpp"
#include "physics/registry.hpp"
#include "tests/app/run_testing.hpp"

using namespace pw;
using pw::testing::run_deck;
using pw::testing::swirl_deck;

namespace {

/// Keeps the proposed owners; once `route` is set, sends every patch of the free levels
/// two ranks on, one rank per step.
class TwoStepPlanner : public LayoutPlanner {
 public:
  explicit TwoStepPlanner(int nranks) : nranks_(nranks) {}
  bool route = false;

  std::vector<LevelLayout> plan(const std::vector<LevelLayout>& proposed,
                                int first_free) override {
    std::vector<LevelLayout> out = proposed;
    hops_.clear();
    if (!route) return out;
    for (int step : {0, 1})
      for (size_t l = size_t(first_free); l < out.size(); ++l)
        for (size_t p = 0; p < out[l].size(); ++p) {
          const int from = (proposed[l].owner[p] + step) % nranks_;
          const int to = (from + 1) % nranks_;
          if (from != to) hops_.push_back({step, int(l), int(p), from, to});
        }
    for (size_t l = size_t(first_free); l < out.size(); ++l)
      for (int& o : out[l].owner)
        o = (o + 2) % nranks_;
    return out;
  }
  std::vector<LayoutHop> hops() const override { return hops_; }
  void observe(const std::vector<LevelLayout>&,
               const std::vector<std::vector<double>>&) override {}

 private:
  int nranks_;
  std::vector<LayoutHop> hops_;
};

}  // namespace

TEST(Hops, EveryHopMovesThePatchAndCountsItsBytes) {
  const Comm world;
  const Deck deck =
      Deck::parse(swirl_deck(2), "hops.toml", {"output.write=false", "amr.max_level=1"});
  const AmrConfig cfg = read_amr_config(deck);
  const auto physics = make_physics(deck);
  TwoStepPlanner planner(world.size());
  Hierarchy h(cfg, *physics, planner, world);
  h.initialize();
  ASSERT_EQ(h.finest_level(), 1);
  const std::uint64_t before = fingerprint(h);
  std::vector<LevelLayout> old;
  long hop_bytes = 0;  // two hops per patch (none on one rank)
  for (int l = 0; l <= h.finest_level(); ++l) {
    old.push_back(h.level(l).layout);
    for (const Box& b : h.level(l).layout.boxes)
      hop_bytes +=
          world.size() > 1 ? 2 * b.num_cells() * h.ncomp() * long(sizeof(double)) : 0;
  }
  planner.route = true;
  h.rebalance();
  EXPECT_EQ(fingerprint(h), before);
  EXPECT_EQ(h.balance_events().back().bytes_migrated, hop_bytes);
  for (int l = 0; l <= h.finest_level(); ++l) {
    ASSERT_EQ(h.level(l).layout.boxes, old[l].boxes);
    for (size_t p = 0; p < old[l].size(); ++p)
      EXPECT_EQ(h.level(l).layout.owner[p], (old[l].owner[p] + 2) % world.size());
  }
  // The hierarchy still steps on the moved data as on data that never moved.
  h.advance(h.stable_dt());
  EXPECT_NE(fingerprint(h), before);
}

TEST(Hops, MlbHopByHopGivesTheAnswerOfStraightMigration) {
  const Comm world;
  const std::vector<std::string> base = {"time.max_step=6", "balance.method=mlb",
                                         "balance.interval=1"};
  std::vector<std::string> hops = base;
  hops.push_back("balance.mlb.hops=true");
  const RunResult straight = run_deck(swirl_deck(2), world, base);
  const RunResult hopped = run_deck(swirl_deck(2), world, hops);
  EXPECT_EQ(hopped.fingerprint, straight.fingerprint);
  EXPECT_EQ(hopped.cell_updates, straight.cell_updates);
  EXPECT_EQ(run_deck(swirl_deck(2), world, {"time.max_step=6"}).fingerprint,
            hopped.fingerprint);
  if (world.size() > 1) EXPECT_GT(hopped.bytes_migrated, 0);
}
