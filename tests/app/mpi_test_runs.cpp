// Whole runs at 1, 2 and 4 ranks: conservation to round-off across regrids, and a final
// solution that is bitwise the same whatever the rank count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "balance/balancer.hpp"
#include "tests/app/run_testing.hpp"

using namespace pw;
using pw::testing::run_deck;
using pw::testing::swirl_deck;

namespace {

void expect_conserved(const RunResult& r) {
  ASSERT_EQ(r.initial_totals.size(), 2u);
  for (size_t c = 0; c < r.initial_totals.size(); ++c) {
    const double rel =
        std::abs(r.final_totals[c] - r.initial_totals[c]) / std::abs(r.initial_totals[c]);
    EXPECT_LT(rel, 1e-12) << "component " << c;
  }
}

}  // namespace

TEST(Runs, ConservesEveryComponentAcrossRegrids2D) {
  const RunResult r = run_deck(swirl_deck(2), Comm());
  EXPECT_EQ(r.finest_level, 2);
  EXPECT_GT(r.regrids, 4);
  expect_conserved(r);
}

TEST(Runs, ConservesEveryComponentAcrossRegrids3D) {
  const RunResult r = run_deck(swirl_deck(3), Comm(), {"time.max_step=6"});
  EXPECT_EQ(r.finest_level, 2);
  EXPECT_GT(r.regrids, 2);
  expect_conserved(r);
}

TEST(Runs, ConservesWithRatio4) {
  // Ratio 4 between levels; periodic so that totals are conserved.
  const RunResult r =
      run_deck(swirl_deck(2), Comm(),
               {"amr.max_level=1", "amr.ref_ratio=4", "amr.blocking_factor=8",
                "amr.max_grid_size=16", "advection.tag_threshold=[1.05]"});
  EXPECT_EQ(r.finest_level, 1);
  expect_conserved(r);
}

TEST(Runs, FingerprintOfMultiLevel3DRunIsIndependentOfRankCount) {
  const Comm world;
  const RunResult all = run_deck(swirl_deck(3), world, {"time.max_step=6"});
  EXPECT_EQ(all.finest_level, 2);
  // The same run on every smaller group of ranks this job can form (each rank alone, and
  // pairs at 4 ranks) must give the same bits.
  for (int group : {1, 2}) {
    if (group >= world.size() || world.size() % group != 0) continue;
    MPI_Comm sub;
    MPI_Comm_split(world.raw(), world.rank() / group, world.rank(), &sub);
    const RunResult part = run_deck(swirl_deck(3), Comm(sub), {"time.max_step=6"});
    MPI_Comm_free(&sub);
    EXPECT_EQ(part.fingerprint, all.fingerprint) << "group of " << group << " ranks";
    EXPECT_EQ(part.cell_updates, all.cell_updates);
  }
}

TEST(Runs, FingerprintIsIndependentOfBalancer) {
  // Whole-domain patches on level 0 (max_grid_size 32), so that on 2 and 4 ranks the
  // balancers that split (lan, chop_pack) must cut them.
  const std::vector<std::string> base = {"time.max_step=4", "amr.max_grid_size=32"};
  const Comm world;
  const RunResult ref = run_deck(swirl_deck(2), world, base);
  // Every registered balancer, and the options that change how one places patches.
  std::vector<std::pair<std::string, std::vector<std::string>>> runs;
  for (const auto& [name, factory] : balancer_registry())
    runs.push_back({name, {"balance.method=" + name}});
  runs.push_back(
      {"chop_pack", {"balance.method=chop_pack", "balance.chop_pack.packing=spatial"}});
  for (const auto& [name, options] : runs) {
    std::vector<std::string> o = base;
    o.insert(o.end(), options.begin(), options.end());
    RunResult r;
    try {
      r = run_deck(swirl_deck(2), world, o);
    } catch (const UserError& e) {
      if (!pw::testing::balancer_not_built(name))
        ADD_FAILURE() << name << ": " << e.what();
      std::printf("skipping %s: %s\n", name.c_str(), e.what());
      continue;
    }
    EXPECT_EQ(r.fingerprint, ref.fingerprint) << options.back();
    EXPECT_EQ(r.cell_updates, ref.cell_updates) << options.back();
    if ((name == "lan" || name == "chop_pack") && world.size() > 1)
      EXPECT_GT(r.patches_split, 0) << options.back();
  }
}

TEST(Runs, OutflowWallsLetTheBlobLeaveAndStayRankIndependent) {
  // A blob carried by a uniform flow toward non-periodic x walls: mass leaves through the
  // outflow wall (the total falls), and the answer is the same on fewer ranks.
  const std::vector<std::string> outflow = {"domain.periodic=[false, true]",
                                            "advection.velocity=uniform",
                                            "advection.velocity_uniform=[1.0, 0.0]",
                                            "advection.blob_center=[0.8, 0.5]",
                                            "advection.background=0.0",
                                            "advection.tag_threshold=[0.05, 0.2]",
                                            "time.max_step=16"};
  const Comm world;
  const RunResult all = run_deck(swirl_deck(2), world, outflow);
  EXPECT_GE(all.finest_level, 1);
  for (size_t c = 0; c < all.final_totals.size(); ++c)
    EXPECT_LT(all.final_totals[c], 0.9 * all.initial_totals[c]);
  if (world.size() > 1) {
    MPI_Comm self;
    MPI_Comm_split(world.raw(), world.rank(), 0, &self);
    const RunResult one = run_deck(swirl_deck(2), Comm(self), outflow);
    MPI_Comm_free(&self);
    EXPECT_EQ(one.fingerprint, all.fingerprint);
  }
}

TEST(Runs, ConservesWithMixedRatios) {
  const RunResult r = run_deck(swirl_deck(2), Comm(),
                               {"amr.ref_ratio=[4, 2]", "amr.blocking_factor=8",
                                "amr.max_grid_size=16", "time.max_step=6"});
  EXPECT_EQ(r.finest_level, 2);
  expect_conserved(r);
}

TEST(Runs, ExtraWorkChangesTheCostNotTheAnswer) {
  const Comm world;
  const RunResult plain = run_deck(swirl_deck(2), world, {"time.max_step=4"});
  const RunResult heavy = run_deck(swirl_deck(2), world,
                                   {"time.max_step=4", "advection.extra_work=50",
                                    "balance.cost=measured", "balance.method=knapsack"});
  EXPECT_EQ(plain.fingerprint, heavy.fingerprint);
}

TEST(Runs, RebalancingEveryStepWithMeasuredCostsKeepsTheAnswer) {
  // balance.interval = 1: a balancing step after every coarse step on top of the regrids.
  const Comm world;
  const RunResult plain = run_deck(swirl_deck(2), world, {"time.max_step=6"});
  const RunResult often = run_deck(swirl_deck(2), world,
                                   {"time.max_step=6", "balance.interval=1",
                                    "balance.method=knapsack", "balance.cost=measured"});
  EXPECT_EQ(often.fingerprint, plain.fingerprint);
  EXPECT_GE(often.balance.steps, plain.balance.steps + 6);
}

// Issue 12's target: a level step launches fewer than 100 kernels, however many patches
// the level has (each level-wide operation is one launch, not one per patch): 2 refined
// levels cut into patches of 4 cells a side (hundreds of them), regrids every 2 steps.
TEST(Runs, UnderAHundredLaunchesPerLevelStep) {
  const Comm world;
  for (int dim : {2, 3}) {
    const double per_step = pw::testing::launches_per_level_step(
        [&] {
          const RunResult r = run_deck(swirl_deck(dim), world,
                                       {"amr.max_grid_size=4", "time.max_step=6"});
          EXPECT_EQ(r.finest_level, 2);
          return r;
        },
        world);
    EXPECT_GT(per_step, 5.0) << dim << "D";  // it counted
    EXPECT_LT(per_step, 100.0) << dim << "D";
  }
}
