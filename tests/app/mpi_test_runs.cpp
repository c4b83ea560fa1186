// Whole runs at 1, 2 and 4 ranks: conservation to round-off across regrids, and a final
// solution that is bitwise the same whatever the rank count.
#include <gtest/gtest.h>

#include <cmath>

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
  const Comm world;
  const RunResult rr = run_deck(swirl_deck(3), world, {"time.max_step=4"});
  const RunResult ks =
      run_deck(swirl_deck(3), world, {"time.max_step=4", "balance.method=knapsack"});
  EXPECT_EQ(rr.fingerprint, ks.fingerprint);
  EXPECT_EQ(rr.cell_updates, ks.cell_updates);
}
