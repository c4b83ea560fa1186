// Where a run's time is charged: the coarse-fine ghost fill is a phase of its own, nested
// in the ghost fill (each second goes to the innermost phase), and only refined levels
// enter it.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "amr/hierarchy.hpp"
#include "physics/registry.hpp"
#include "tests/app/run_testing.hpp"

using namespace pw;

namespace {

/// The phase times of rank 0's hierarchy after two coarse steps of the 2D swirl deck
/// with up to `max_level` refined levels.
std::map<std::string, double> phases_after_two_steps(int max_level) {
  const Comm comm(MPI_COMM_SELF);
  const Deck deck =
      Deck::parse(pw::testing::swirl_deck(2), "phases.toml",
                  {"output.write=false", "amr.max_level=" + std::to_string(max_level)});
  const auto physics = make_physics(deck);
  pw::testing::KeepPlanner planner;
  Hierarchy h(read_amr_config(deck), *physics, planner, comm);
  h.initialize();
  for (int s = 0; s < 2; ++s)
    h.advance(h.stable_dt());
  EXPECT_EQ(h.finest_level(), max_level);  // the deck refines as far as allowed
  return h.timers().seconds();
}

}  // namespace

TEST(PhaseTimers, TheCoarseFineFillIsItsOwnPhaseOnRefinedLevels) {
  const std::map<std::string, double> refined = phases_after_two_steps(2);
  ASSERT_GT(refined.count("coarse-fine fill"), 0u);
  EXPECT_GT(refined.at("coarse-fine fill"), 0.0);
  EXPECT_GT(refined.at("ghost fill"), 0.0);
  EXPECT_GT(refined.at("advance"), 0.0);
  // One level only: no coarse-fine ghosts, so the phase is never entered.
  const std::map<std::string, double> single = phases_after_two_steps(0);
  EXPECT_EQ(single.count("coarse-fine fill"), 0u);
  EXPECT_GT(single.at("ghost fill"), 0.0);
}
