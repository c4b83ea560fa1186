// A regrid fills the tagged level's ghost cells only where the physics' criterion reads
// them (Physics::tag_reads_ghosts): advection's threshold reads each cell alone, so with
// NaN in every ghost cell of level 0 a regrid makes the same levels and leaves the NaN
// there (no fill); its gradient reads the neighbours, so the regrid fills them first
// and makes the levels of clean data.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "amr/diagnostics.hpp"
#include "amr/hierarchy.hpp"
#include "physics/registry.hpp"
#include "tests/app/run_testing.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;

namespace regrid_tags_test {

/// Every ghost cell of level l's state = NaN (the interiors kept).
void poison_ghosts(Hierarchy& h, int l) {
  Level& L = h.level(l);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t p = 0; p < L.layout.size(); ++p) {
    if (L.u_new[p].data.size() == 0) continue;
    const Array4 a = L.u_new[p].array();
    const Box in = L.layout.boxes[p];
    const int nc = L.u_new[p].ncomp();
    for_each_cell(
        "test::poison_ghosts", L.u_new[p].box, KOKKOS_LAMBDA(int i, int j, int k) {
          if (in.contains(IntVect{i, j, k})) return;
          for (int c = 0; c < nc; ++c)
            a(i, j, k, c) = nan;
        });
  }
  Kokkos::fence();
}

struct Regridded {
  std::vector<LevelLayout> layouts;
  std::uint64_t fingerprint = 0;
  bool ghost_nan = false;  // level 0's first ghost cell after the regrid
};

/// A swirl hierarchy with advection.tag = `tag`, regridded from level 0 on its own data
/// (ghost cells poisoned first where `poison`).
Regridded regrid(const std::string& tag, bool poison) {
  const Comm comm(MPI_COMM_SELF);
  const Deck deck = Deck::parse(pw::testing::swirl_deck(3), "tags.toml",
                                {"output.write=false", "advection.tag=\"" + tag + "\"",
                                 "advection.tag_gradient=0.02"});
  const auto physics = make_physics(deck);
  EXPECT_EQ(physics->tag_reads_ghosts(), tag == "gradient");
  pw::testing::KeepPlanner planner;
  Hierarchy h(read_amr_config(deck), *physics, planner, comm);
  h.initialize();
  if (poison) poison_ghosts(h, 0);
  h.regrid(0);
  Regridded r;
  for (int l = 0; l <= h.finest_level(); ++l)
    r.layouts.push_back(h.level(l).layout);
  r.fingerprint = fingerprint(h);
  const Fab& f = h.level(0).u_new[0];
  r.ghost_nan =
      std::isnan(pw::testing::HostFab(f)(f.box.lo[0], f.box.lo[1], f.box.lo[2]));
  return r;
}

}  // namespace regrid_tags_test

using namespace regrid_tags_test;

TEST(RegridTags, AThresholdRegridNeedsNoGhostFill) {
  const Regridded clean = regrid("threshold", false),
                  poisoned = regrid("threshold", true);
  ASSERT_GE(clean.layouts.size(), 2u);
  EXPECT_EQ(poisoned.layouts, clean.layouts);
  EXPECT_EQ(poisoned.fingerprint, clean.fingerprint);
  EXPECT_TRUE(poisoned.ghost_nan);  // not filled
}

TEST(RegridTags, AGradientRegridFillsTheGhostsItReads) {
  const Regridded clean = regrid("gradient", false), poisoned = regrid("gradient", true);
  ASSERT_GE(clean.layouts.size(), 2u);
  EXPECT_EQ(poisoned.layouts, clean.layouts);
  EXPECT_EQ(poisoned.fingerprint, clean.fingerprint);
  EXPECT_FALSE(poisoned.ghost_nan);  // filled before the tags read them
}
