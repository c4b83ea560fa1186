// check_finite: a NaN or an infinity anywhere in the state is found and named (level,
// patch, component), the first one in (level, patch, component) order; a finite state
// passes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "amr/diagnostics.hpp"
#include "amr/hierarchy.hpp"
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

std::string failure(const Hierarchy& h) {
  try {
    check_finite(h, {"phi0", "phi1"}, 7);
  } catch (const RunFailure& e) {
    return e.what();
  }
  return "";
}

}  // namespace check_finite_test

using namespace check_finite_test;

TEST(CheckFinite, FindsTheFirstNaNOrInfinityAndNamesIt) {
  const Comm comm(MPI_COMM_SELF);
  const Deck deck =
      Deck::parse(pw::testing::swirl_deck(3), "finite.toml", {"output.write=false"});
  const auto physics = make_physics(deck);
  pw::testing::KeepPlanner planner;
  Hierarchy h(read_amr_config(deck), *physics, planner, comm);
  h.initialize();
  ASSERT_GE(h.finest_level(), 1);
  ASSERT_GE(h.level(1).layout.size(), 4u);
  EXPECT_EQ(failure(h), "");
  // The extremes of the finite doubles are finite: the largest (its exponent one short
  // of the non-finite one) and the smallest subnormal.
  const Box b0 = h.level(1).layout.boxes[0];
  poke(h, 1, 0, 1, b0.hi, -std::numeric_limits<double>::max());
  poke(h, 1, 0, 0, b0.lo, std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(failure(h), "");
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
