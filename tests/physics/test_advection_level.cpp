// The advection update of a whole level in one launch (a team per patch): the same bits
// as one patch covering the level, and one kernel launch whether the level has 1 patch
// or 64, in 2D and 3D, whether the level stores its fluxes or they stay in each team's
// scratch.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "amr/deck.hpp"
#include "amr/launch_counter.hpp"
#include "amr/update_refs.hpp"
#include "physics/advection.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;
using pw::testing::HostFab;

namespace {

/// A level of the unit square or cube (n cells a side) cut into patches of `grid` cells
/// a side, with the state (ghost cells from the initial data, which is defined
/// everywhere, so that every cut sees the same ghost values), the new state and the
/// fluxes.
struct TestLevel {
  LevelGeom g;
  LevelLayout layout;
  LevelData u_old, u_new, flux[3];

  /// Fluxes::rows: face fluxes padded as a hierarchy pads them (Physics::flux_padding:
  /// on host backends rows as long as the state's, and the update's flux stages run
  /// plane by plane); Fluxes::faces: over their faces only (row by row);
  /// Fluxes::scratch: none stored, the update keeps them in its teams' scratch (padded).
  enum class Fluxes { faces, rows, scratch };
  int pad = 0;

  TestLevel(const Advection& adv, int dim, int n, int grid, Fluxes fluxes)
      : g(pw::testing::unit_geom(dim, n)) {
    layout.boxes = chop(g.domain, IntVect::in_dims(dim, grid, 1), IntVect::uniform(1));
    // With fluxes in scratch, the smallest patch first: the teams' flux scratch is sized
    // for the largest, not the first.
    if (fluxes == Fluxes::scratch)
      std::stable_sort(
          layout.boxes.begin(), layout.boxes.end(),
          [](const Box& a, const Box& b) { return a.num_cells() < b.num_cells(); });
    layout.owner.assign(layout.boxes.size(), 0);
    const IntVect ghost = IntVect::in_dims(dim, adv.nghost(), 0);
    u_old = LevelData("u_old", layout, g, adv.ncomp(), ghost, 0);
    u_new = u_old.like("u_new");
    pad = fluxes == Fluxes::faces ? 0 : adv.flux_padding();
    for (int d = 0; d < dim && fluxes != Fluxes::scratch; ++d)
      flux[d] = LevelData("flux", layout, g, adv.ncomp(), IntVect{pad, 0, 0}, 0, d);
    for (size_t p = 0; p < layout.size(); ++p)
      adv.initial_data(g, u_old[p].box, u_old[p].array(), 0.1);
  }
  LevelUpdate update() const {
    const auto stored = [&](int d) { return flux[d].size() > 0 ? &flux[d] : nullptr; };
    return {u_old, u_new, {stored(0), stored(1), stored(2)}, pad, {}, nullptr};
  }
};

/// Every interior value of `a` (and its fluxes where it stores them) equals b's at the
/// same cell, bit for bit.
void expect_same_bits(const TestLevel& a, const TestLevel& b, int ncomp) {
  ASSERT_EQ(b.layout.size(), 1u);
  const HostFab whole(b.u_new[0]);
  for (size_t p = 0; p < a.layout.size(); ++p) {
    const HostFab part(a.u_new[p]);
    const Box& bx = a.layout.boxes[p];
    for (int c = 0; c < ncomp; ++c)
      for (int k = bx.lo[2]; k <= bx.hi[2]; ++k)
        for (int j = bx.lo[1]; j <= bx.hi[1]; ++j)
          for (int i = bx.lo[0]; i <= bx.hi[0]; ++i)
            ASSERT_EQ(part(i, j, k, c), whole(i, j, k, c)) << i << "," << j << "," << k;
    for (int d = 0; d < a.g.dim && a.flux[0].size() > 0; ++d) {
      const HostFab fp(a.flux[d][p]), fw(b.flux[d][0]);
      const Box fb = faces(bx, d);
      for (int c = 0; c < ncomp; ++c)
        for (int k = fb.lo[2]; k <= fb.hi[2]; ++k)
          for (int j = fb.lo[1]; j <= fb.hi[1]; ++j)
            for (int i = fb.lo[0]; i <= fb.hi[0]; ++i)
              ASSERT_EQ(fp(i, j, k, c), fw(i, j, k, c))
                  << "flux " << d << " component " << c << " " << i << "," << j;
    }
  }
}

void check_level_update(int dim, int n, int grid) {
  const Deck deck =
      Deck::parse("[advection]\nvelocity = \"swirl\"\nncomp = 2\n", "t.toml");
  const Advection adv(deck, dim);
  // The two ways of running the flux stages give the same bits too, and so do fluxes
  // kept in scratch.
  using Fluxes = TestLevel::Fluxes;
  TestLevel whole(adv, dim, n, n, Fluxes::faces), cut(adv, dim, n, grid, Fluxes::rows),
      cut_scratch(adv, dim, n, grid + 4, Fluxes::scratch);  // patches of unequal sizes
  ASSERT_GT(cut.layout.size(), 8u);
  const Box largest = cut_scratch.layout.boxes.back();
  ASSERT_LT(cut_scratch.layout.boxes.front().num_cells(), largest.num_cells());
  long flux_cells = 0;
  for (int d = 0; d < dim; ++d)
    flux_cells += padded_faces(largest, d, adv.flux_padding()).num_cells();
  EXPECT_EQ(update_refs(cut_scratch.update()).flux_doubles, adv.ncomp() * flux_cells);
  const double dt = 0.5 / n;
  long launches[3];
  int m = 0;
  for (TestLevel* L : {&whole, &cut, &cut_scratch}) {
    const LevelUpdate s = L->update();
    adv.advance_level(L->g, s, 0.1, dt, Counters());  // warm-up: refs and sets
    Kokkos::fence();
    LaunchCounter counter;
    adv.advance_level(L->g, s, 0.1, dt, Counters());
    Kokkos::fence();
    launches[m++] = counter.launches();
  }
  EXPECT_EQ(launches[0], 1);
  EXPECT_EQ(launches[1], 1);
  EXPECT_EQ(launches[2], 1);
  expect_same_bits(cut, whole, adv.ncomp());
  expect_same_bits(cut_scratch, whole, adv.ncomp());
}

TEST(AdvectionLevel, OneLaunchAndTheSameBitsAsOnePatch2D) {
  check_level_update(2, 64, 8);
}

TEST(AdvectionLevel, OneLaunchAndTheSameBitsAsOnePatch3D) {
  check_level_update(3, 32, 8);
}

}  // namespace
