// check_finite: a NaN or an infinity anywhere in the state is found and named (level,
// patch, component), the first one in (level, patch, component) order; a finite state
// passes, in one launch per level, or on a synced hierarchy in one launch on level 0.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "amr/diagnostics.hpp"
#include "amr/hierarchy.hpp"
#include "amr/launch_counter.hpp"
#include "amr/run_failure.hpp"
#include "physics/registry.hpp"
#include "tests/app/run_testing.hpp"

using namespace pw;

namespace check_finite_test {

/// Sets cell (i, j, k) of patch p, component c, of level l's state to v.
void poke(Hierarchy& h, int l, int p, int c, const IntVect& cell, double v) {
  const Array4 a = h.level(l).u_new[size_t(p)].array();
  Kokkos::parallel_for(
      "test::poke", 1, KOKKOS_LAMBDA(int) { a(cell[0], cell[1], cell[2], c) = v; });
  Kokkos::fence();
}

std::string failure(const Hierarchy& h, bool synced = false) {
  try {
    check_finite(h, {"phi0", "phi1"}, 7, synced);
  } catch (const RunFailure& e) {
    return e.what();
  }
  return "";
}

/// Kernels check_finite launches on h.
long check_launches(const Hierarchy& h, bool synced = false) {
  LaunchCounter counter;
  failure(h, synced);
  return counter.launches();
}

/// The 3D swirl test deck's hierarchy (2 components, 2 refined levels), initialized.
struct Swirl3D {
  Comm comm{MPI_COMM_SELF};
  Deck deck =
      Deck::parse(pw::testing::swirl_deck(3), "finite.toml", {"output.write=false"});
  std::unique_ptr<Physics> physics = make_physics(deck);
  pw::testing::KeepPlanner planner;
  Hierarchy h{read_amr_config(deck), *physics, planner, comm};
  Swirl3D() { h.initialize(); }
};

}  // namespace check_finite_test

using namespace check_finite_test;

TEST(CheckFinite, FindsTheFirstNaNOrInfinityAndNamesIt) {
  Swirl3D s;
  Hierarchy& h = s.h;
  ASSERT_GE(h.finest_level(), 1);
  ASSERT_GE(h.level(1).layout.size(), 4u);
  EXPECT_EQ(failure(h), "");
  // A finite state costs one launch per level: the search for the first bad value runs
  // only on a level where the first pass, an OR over each row, found one.
  const long clean = check_launches(h);
  EXPECT_EQ(clean, h.finest_level() + 1);
  // The extremes of the finite doubles are finite to that pass too: the largest and the
  // smallest subnormal.
  const int f = h.finest_level();
  const Box b0 = h.level(f).layout.boxes[0];
  poke(h, f, 0, 1, b0.hi, -std::numeric_limits<double>::max());
  poke(h, f, 0, 0, b0.lo, std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(check_launches(h), clean);
  EXPECT_EQ(failure(h), "");
  // A NaN inside a row (the first pass's vector loop, not its ends) is found.
  const IntVect inside = b0.lo + IntVect{5, 1, 1};
  poke(h, f, 0, 0, inside, std::nan(""));
  EXPECT_EQ(check_launches(h), clean + 1);
  EXPECT_NE(failure(h).find(fmt::format("level {}, patch 0 ", f)), std::string::npos);
  poke(h, f, 0, 0, inside, 1.0);
  // A ghost cell is not the state: a NaN there is not reported.
  const Box b3 = h.level(1).layout.boxes[3], b2 = h.level(1).layout.boxes[2];
  poke(h, 1, 3, 0, b3.lo - IntVect::uniform(1), std::nan(""));
  EXPECT_EQ(failure(h), "");
  poke(h, 1, 3, 1, b3.hi, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(failure(h),
            fmt::format("the state is not finite after step 7: level 1, patch "
                        "3 {}, component phi1 holds a NaN or an infinity",
                        to_string(b3)));
  poke(h, 1, 2, 0, b2.lo, std::nan(""));  // an earlier patch of the same level
  EXPECT_NE(failure(h).find("level 1, patch 2 "), std::string::npos);
  const Box c = h.level(0).layout.boxes[0];
  poke(h, 0, 0, 1, c.lo, std::numeric_limits<double>::infinity());  // a coarser level
  EXPECT_NE(failure(h).find("level 0, patch 0 "), std::string::npos);
}

// After a coarse step every finer level has been averaged down: a bad value on the
// finest level shows on level 0, which alone is read while the state is finite.
TEST(CheckFinite, ASyncedHierarchyIsReadOnLevelZeroAndABadFineValueStillShows) {
  Swirl3D s;
  Hierarchy& h = s.h;
  const int f = h.finest_level();
  ASSERT_EQ(f, 2);
  EXPECT_EQ(failure(h, true), "");
  EXPECT_EQ(check_launches(h, true), 1);
  const Box b = h.level(f).layout.boxes[0];
  for (double bad : {std::nan(""), -std::numeric_limits<double>::infinity()}) {
    poke(h, f, 0, 1, b.lo + IntVect{3, 2, 1}, bad);
    h.average_down_all();
    // Level 0 holds it now, and is named first, as by the search of every level.
    const std::string what = failure(h, true);
    EXPECT_NE(what.find("level 0, patch "), std::string::npos) << what;
    EXPECT_NE(what.find("component phi1"), std::string::npos) << what;
    EXPECT_EQ(what, failure(h, false));
    poke(h, f, 0, 1, b.lo + IntVect{3, 2, 1}, 1.0);
    h.average_down_all();
    EXPECT_EQ(failure(h, true), "");
  }
}
