// The memory budget beyond level 0: the estimate of a patch's field data, the verdict
// against a node's share, and a regrid whose finer level would not fit refused before
// it is allocated (RunFailure naming the step and level), where a budget that holds
// lets the same run go on.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "amr/diagnostics.hpp"
#include "amr/hierarchy.hpp"
#include "amr/memory_budget.hpp"
#include "amr/run_failure.hpp"
#include "physics/advection.hpp"
#include "physics/hydro.hpp"
#include "physics/registry.hpp"
#include "tests/app/run_testing.hpp"

using namespace pw;

namespace {

/// Keeps the proposed layout, every patch on rank 0.
class KeepPlanner : public LayoutPlanner {
 public:
  std::vector<LevelLayout> plan(const std::vector<LevelLayout>& proposed, int) override {
    std::vector<LevelLayout> out = proposed;
    for (LevelLayout& L : out)
      for (int& o : L.owner)
        o = 0;
    return out;
  }
  void observe(const std::vector<LevelLayout>&,
               const std::vector<std::vector<double>>&) override {}
};

/// Level l's field data by patch_bytes, its fluxes stored or not.
double level_bytes(const Hierarchy& h, int l, FluxStorage fluxes) {
  double bytes = 0;
  for (const Box& b : h.level(l).layout.boxes)
    bytes += patch_bytes(b, h.config().geom0.dim, h.ncomp(), h.nghost(), fluxes);
  return bytes;
}

/// The module with every level's fluxes stored: the same update through level arrays.
template <class Module>
class StoredFluxes : public Module {
 public:
  using Module::Module;
  bool fluxes_in_scratch() const override { return false; }
};

}  // namespace

TEST(MemoryBudget, PatchBytesCountStateWithGhostsAndFaceFluxes) {
  // 8 x 4 cells, 2 ghost layers, 2 components: state 2 x 12 x 8, x faces 9 x 4, y faces
  // 8 x 5; with the fluxes padded by 2 columns each side in x: 12 x 4 and 12 x 5; with
  // no fluxes stored, the state alone.
  const Box b{{0, 0, 0}, {7, 3, 0}};
  EXPECT_EQ(patch_bytes(b, 2, 2, 2, {true, 0}), 8.0 * 2 * (2 * 12 * 8 + 9 * 4 + 8 * 5));
  EXPECT_EQ(patch_bytes(b, 2, 2, 2, {true, 2}), 8.0 * 2 * (2 * 12 * 8 + 12 * 4 + 12 * 5));
  EXPECT_EQ(patch_bytes(b, 2, 2, 2, {false, 2}), 8.0 * 2 * (2 * 12 * 8));
  // 3D: 4^3 cells, 1 ghost layer, 1 component; padded by 1: x faces 6 x 4 x 4, y and z
  // 6 x 5 x 4.
  const Box c{{0, 0, 0}, {3, 3, 3}};
  EXPECT_EQ(patch_bytes(c, 3, 1, 1, {true, 0}), 8.0 * (2 * 6 * 6 * 6 + 3 * 5 * 4 * 4));
  EXPECT_EQ(patch_bytes(c, 3, 1, 1, {true, 1}),
            8.0 * (2 * 6 * 6 * 6 + 6 * 4 * 4 + 2 * 6 * 5 * 4));
  EXPECT_EQ(patch_bytes(c, 3, 1, 1, {false, 0}), 8.0 * (2 * 6 * 6 * 6));
}

// Advection (its fluxes padded on host backends, and kept in scratch on the finest level)
// and the Poisson workload (stored everywhere, not padded), 2D and 3D. The estimate for a
// level counts its fluxes unless it is the deck's finest possible level and the physics
// keeps them in scratch: never less than the hierarchy allocates.
TEST(MemoryBudget, PatchBytesAreWhatTheHierarchyAllocates) {
  const Comm comm(MPI_COMM_SELF);
  for (int dim : {2, 3})
    for (const std::string& text :
         {pw::testing::swirl_deck(dim), pw::testing::clumps_deck(dim)}) {
      const Deck deck = Deck::parse(text, "budget.toml", {"output.write=false"});
      const auto physics = make_physics(deck);
      KeepPlanner planner;
      Hierarchy h(read_amr_config(deck), *physics, planner, comm);
      h.initialize();
      ASSERT_GE(h.finest_level(), 1);
      for (int l = 0; l <= h.finest_level(); ++l) {
        SCOPED_TRACE(::testing::Message()
                     << dim << "D, level " << l << ", flux padding " << h.flux_padding());
        const Level& L = h.level(l);
        const bool stored = l < h.finest_level() || !physics->fluxes_in_scratch();
        ASSERT_EQ(L.flux[0].size() > 0, stored);
        double allocated = 0;
        for (size_t p = 0; p < L.layout.size(); ++p) {
          allocated += double(L.u_new[p].data.size() + L.u_old[p].data.size());
          for (int d = 0; d < dim && stored; ++d)
            allocated += double(L.flux[d][p].data.size());
        }
        EXPECT_EQ(8.0 * allocated, level_bytes(h, l, {stored, h.flux_padding()}));
        const FluxStorage estimate = h.flux_storage(l);
        EXPECT_EQ(estimate.stored,
                  l < h.config().max_level || !physics->fluxes_in_scratch());
        EXPECT_LE(8.0 * allocated, level_bytes(h, l, estimate));
      }
    }
}

// A level stores fluxes while it has a finer level, and only then (advection keeps the
// finest level's in scratch), as the finest level changes: a regrid on flat data removes
// the finer levels, and one on the Gaussian makes them again; the next step fits level
// 0's fluxes to that, and the steps after conserve every component.
TEST(MemoryBudget, OnlyALevelWithAFinerOneStoresFluxes) {
  const Comm comm(MPI_COMM_SELF);
  const Deck deck =
      Deck::parse(pw::testing::swirl_deck(2), "budget.toml", {"output.write=false"});
  const auto physics = make_physics(deck);
  ASSERT_TRUE(physics->fluxes_in_scratch());
  KeepPlanner planner;
  Hierarchy h(read_amr_config(deck), *physics, planner, comm);
  h.initialize();
  const auto expect_fitted = [&](const char* when) {
    for (int l = 0; l <= h.finest_level(); ++l)
      EXPECT_EQ(h.level(l).flux[0].size() > 0, l < h.finest_level())
          << when << ", level " << l << " of " << h.finest_level() + 1;
  };
  expect_fitted("built");
  ASSERT_GE(h.finest_level(), 1);
  h.advance(h.stable_dt());
  expect_fitted("after a step");
  const auto set_level0 = [&](bool flat) {
    Level& L = h.level(0);
    for (size_t p = 0; p < L.layout.size(); ++p) {
      if (flat)
        Kokkos::deep_copy(L.u_new[p].data, 1.0);
      else
        physics->initial_data(L.geom, L.u_new[p].box, L.u_new[p].array(), L.t_new);
    }
    h.regrid(0);
  };
  set_level0(true);
  ASSERT_EQ(h.finest_level(), 0);
  h.advance(h.stable_dt());
  expect_fitted("flat");
  set_level0(false);
  ASSERT_GE(h.finest_level(), 1);
  const std::vector<double> before = component_totals(h);
  h.advance(h.stable_dt());
  expect_fitted("refined again");
  h.advance(h.stable_dt());
  expect_fitted("refined again, a step on");
  // The reflux read the fluxes level 0 stores again: every total conserved.
  const std::vector<double> after = component_totals(h);
  for (size_t c = 0; c < before.size(); ++c)
    EXPECT_NEAR(after[c], before[c], 1e-12 * std::abs(before[c])) << "component " << c;
}

TEST(MemoryBudget, TheBusiestNodesShareDecides) {
  MemoryBudget budget;
  budget.bytes_per_node = 4e9;
  budget.ranks = 8;
  budget.ranks_per_node = 4;
  budget.source = "of ranks.memory_per_node";
  EXPECT_EQ(exceeds_budget(8e9, budget), "");  // half of 8 GB on the node: 4 GB
  EXPECT_EQ(exceeds_budget(8.2e9, budget),
            "about 8.2 GB of field data, 4.1 GB on a node with 4 of the 8 ranks: more "
            "than the 4 GB of ranks.memory_per_node (set ranks.memory_per_node or "
            "--max-memory to change)");
  budget.bytes_per_node = 0;  // no budget: nothing is refused
  EXPECT_EQ(exceeds_budget(1e30, budget), "");
}

TEST(MemoryBudget, ARegridBeyondTheBudgetStopsBeforeAllocating) {
  const Comm comm(MPI_COMM_SELF);
  const Deck deck = Deck::parse(pw::testing::swirl_deck(2), "budget.toml",
                                {"output.write=false", "amr.max_level=1"});
  const auto physics = make_physics(deck);
  KeepPlanner planner;
  const auto run = [&](const auto& budget_bytes) {
    Hierarchy h(read_amr_config(deck), *physics, planner, comm);
    h.initialize();
    EXPECT_EQ(h.finest_level(), 1);
    MemoryBudget budget;
    budget.bytes_per_node = budget_bytes(h);
    budget.source = "of the test's budget";
    h.set_memory_budget(budget);
    for (int s = 0; s < 3; ++s)  // regrids every 2 steps
      h.advance(h.stable_dt());
    return h.level(0).steps;
  };
  // Room for everything: the run goes on through its regrids.
  EXPECT_EQ(run([](const Hierarchy& h) {
              return 4 * (level_bytes(h, 0, h.flux_storage(0)) +
                          level_bytes(h, 1, h.flux_storage(1)));
            }),
            3);
  // Room for level 0 alone: the first regrid (at step 2) is refused, naming it.
  try {
    run([](const Hierarchy& h) { return 1.01 * level_bytes(h, 0, h.flux_storage(0)); });
    FAIL() << "the regrid was not refused";
  } catch (const RunFailure& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("regridding at step 2: level 1 would have "), std::string::npos)
        << what;
    EXPECT_NE(what.find("of the test's budget"), std::string::npos) << what;
  }
}

// The finest level's fluxes kept in the teams' scratch give the same bits as stored ones,
// through the update and the flux register: advection (the swirl, 3D) and hydro (the
// blast, 2D), three levels each, six steps with regrids.
TEST(MemoryBudget, FluxesInScratchGiveTheSameBitsAsStoredOnes) {
  const Comm comm(MPI_COMM_SELF);
  const auto run = [&](const Deck& deck, const Physics& physics) {
    KeepPlanner planner;
    Hierarchy h(read_amr_config(deck), physics, planner, comm);
    h.initialize();
    for (int s = 0; s < 6; ++s)
      h.advance(h.stable_dt());
    EXPECT_EQ(h.finest_level(), 2);
    EXPECT_EQ(h.level(2).flux[0].size() > 0, !physics.fluxes_in_scratch());
    return fingerprint(h);
  };
  const Deck swirl =
      Deck::parse(pw::testing::swirl_deck(3), "swirl.toml", {"output.write=false"});
  EXPECT_EQ(run(swirl, Advection(swirl, 3)),
            run(swirl, StoredFluxes<Advection>(swirl, 3)));
  const Deck blast = Deck::load(std::string(PW_SOURCE_DIR) + "/inputs/blast_2d.toml",
                                {"output.write=false", "domain.n_cell=[32,32]",
                                 "amr.max_grid_size=8", "amr.blocking_factor=4"});
  EXPECT_EQ(run(blast, Hydro(blast, 2)), run(blast, StoredFluxes<Hydro>(blast, 2)));
}
