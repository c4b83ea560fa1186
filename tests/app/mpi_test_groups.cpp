// Groups of ranks with emulated heterogeneity (the [ranks] section) and lan_distributed
// in whole runs: the answer does not change, the network probe sees the emulated
// latency, and the rank setup reads speeds and groups. (That lan_distributed's plans
// keep finer patches in their group is tested on its plans, test_lan_distributed.cpp.)
#include <gtest/gtest.h>

#include "app/network_probe.hpp"
#include "app/rank_setup.hpp"
#include "tests/app/run_testing.hpp"

namespace pw {
namespace {

using testing::run_deck;
using testing::swirl_deck;

TEST(Groups, EmulationAndLanDistributedLeaveTheAnswerUnchanged) {
  const Comm world;
  const RunResult ref = run_deck(swirl_deck(3), world, {"time.max_step=6"});
  std::vector<std::string> o = {"time.max_step=6", "balance.method=lan_distributed",
                                "ranks.latency=0.001"};
  if (world.size() > 1) {
    o.push_back("ranks.group_size=" + std::to_string(world.size() / 2));
    o.push_back("ranks.slow=[" + std::to_string(world.size() - 1) + "]");
    o.push_back("ranks.slowdown=2.5");
  }
  const RunResult r = run_deck(swirl_deck(3), world, o);
  EXPECT_EQ(r.fingerprint, ref.fingerprint);
  EXPECT_EQ(r.cell_updates, ref.cell_updates);
  EXPECT_GT(r.balance.steps, 0);
}

TEST(Groups, ProbeMeasuresAtLeastTheEmulatedLatency) {
  const Comm world;
  if (world.size() < 2) GTEST_SKIP() << "needs two groups";
  const Deck deck = Deck::parse("[ranks]\ngroup_size = 1\nlatency = 0.004\n", "t.toml");
  const RankSetup s = read_rank_setup(deck, world.size(), world.rank());
  Comm comm = world;
  comm.set_emulation(s.emulation);
  const NetworkModel m = probe_network(comm, s.ranks.group);
  // Every rank holds the same model; alpha includes the 4 ms added to each message.
  EXPECT_GE(m.alpha, 0.004);
  EXPECT_GE(m.beta, 0.0);
  EXPECT_EQ(world.max(m.alpha), world.min(m.alpha));
  EXPECT_EQ(world.max(m.beta), world.min(m.beta));
  // One group: nothing to measure.
  const NetworkModel none =
      probe_network(world, std::vector<int>(size_t(world.size()), 0));
  EXPECT_EQ(none.alpha, 0.0);
}

TEST(Groups, RankSetupReadsSpeedsAndGroups) {
  const Comm world;
  const int n = world.size();
  const RankSetup s = read_rank_setup(
      Deck::parse("[ranks]\nslow = [" + std::to_string(n - 1) + "]\nslowdown = 4.0\n",
                  "t.toml"),
      n, world.rank());
  EXPECT_EQ(s.ranks.speed[size_t(n - 1)], 0.25);  // 1 / slowdown unless given
  EXPECT_EQ(s.ranks.group, std::vector<int>(size_t(n), 0));
  EXPECT_EQ(s.emulation != nullptr, world.rank() == n - 1);
  const RankSetup g =
      read_rank_setup(Deck::parse(
                          "[ranks]\ngroup_size = 2\nspeed = [" +
                              [&] {
                                std::string l;
                                for (int k = 0; k < n; ++k)
                                  l += (k ? ", " : "") + std::to_string(k + 1);
                                return l;
                              }() +
                              "]\n",
                          "t.toml"),
                      n, world.rank());
  for (int k = 0; k < n; ++k) {
    EXPECT_EQ(g.ranks.group[size_t(k)], k / 2);
    EXPECT_EQ(g.ranks.speed[size_t(k)], double(k + 1));
  }
  EXPECT_THROW(read_rank_setup(Deck::parse("[ranks]\nspeed = [1.0]\n", "t"), n + 1, 0),
               UserError);
}

}  // namespace
}  // namespace pw
