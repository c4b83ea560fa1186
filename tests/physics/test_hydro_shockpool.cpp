// ShockPool's plane shock at an angle to the axes: the post-shock gas flows in through
// the lo faces as the problem's exact state at each ghost fill, so the front stays plane
// and moves at the shock speed as far along the faces as inside.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "tests/physics/hydro_testing.hpp"

using namespace pw;
using pw::testing::str;

namespace {

/// A Mach 2.5 shock into gas of density 1 and sound speed 1 (gamma 1.4) along `normal`
/// in the unit square (64^2, one refined level on the front), front at n.x = 0.2 at
/// t = 0, run to t = 0.12. Returns the L1 error of density against the exact moving step
/// (cell averages of 8 x 8 samples) in units of the jump times dx times the front's
/// length in the square: the front's width in cells, as the scheme smears it.
double front_width_cells(double nx, double ny) {
  const int n = 64;
  const double t = 0.12, position = 0.2, gamma = 1.4, mach = 2.5;
  const std::string deck =
      "[domain]\ndim = 2\nn_cell = [64, 64]\nperiodic = [false, false]\n[amr]\n"
      "max_level = 1\nblocking_factor = 8\nmax_grid_size = 16\nn_error_buf = 2\n"
      "regrid_interval = 2\n[time]\nstop_time = " +
      str(t) +
      "\nmax_step = 100000\ncfl = 0.8\n[physics]\nmodule = \"hydro\"\n[hydro]\n"
      "problem = \"shockpool\"\nbc_lo = [\"inflow\", \"" +
      std::string(ny > 0 ? "inflow" : "outflow") +
      "\"]\nbc_hi = [\"outflow\", \"outflow\"]\n[shockpool]\nnormal = [" + str(nx) +
      ", " + str(ny) + "]\nposition = " + str(position) + "\nmach = " + str(mach) + "\n";
  auto sim = pw::testing::run_alone(deck, {});
  EXPECT_NEAR(sim->hierarchy().time(), t, 1e-12);
  EXPECT_GE(sim->hierarchy().finest_level(), 1);
  const double norm = std::hypot(nx, ny), ux = nx / norm, uy = ny / norm;
  const double m2 = mach * mach;
  const double r1 = (gamma + 1) * m2 / ((gamma - 1) * m2 + 2), r0 = 1.0;
  const double front = position + mach * t;  // c0 = 1
  const auto fabs = pw::testing::level_state(*sim);
  double err = 0;
  const int s = 8;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      int behind = 0;
      for (int b = 0; b < s; ++b)
        for (int a = 0; a < s; ++a)
          behind += ux * (i + (a + 0.5) / s) / n + uy * (j + (b + 0.5) / s) / n < front;
      const double exact = r0 + (r1 - r0) * behind / (s * s);
      err +=
          std::abs(pw::testing::cell_value(*sim, fabs, {i, j, 0}, 0) - exact) / (n * n);
    }
  // The front's length inside the square: the points front n + tau (-n_y, n_x) in it.
  double length = 0;
  const int m = 100000;
  for (int q = 0; q < m; ++q) {
    const double tau = -2.0 + 4.0 * (q + 0.5) / m;
    const double x = front * ux - tau * uy, y = front * uy + tau * ux;
    if (x >= 0 && x <= 1 && y >= 0 && y <= 1) length += 4.0 / m;
  }
  return err / ((r1 - r0) * length / n);
}

}  // namespace

TEST(HydroShockpool, ObliqueFrontIsAsSharpAndAsWellPlacedAsAnAlignedOne) {
  const double aligned = front_width_cells(1.0, 0.0);
  const double oblique = front_width_cells(1.0, 0.6);
  std::printf(
      "shockpool front: L1 of density / (jump dx length) = %.3f cells along x, "
      "%.3f cells along (1, 0.6)\n",
      aligned, oblique);
  // A captured shock spreads over about two cells; a misplaced or bent front (an inflow
  // that did not follow the front along the lo-y face) adds cells of error along the
  // whole face.
  EXPECT_LT(aligned, 1.5);
  EXPECT_LT(oblique, 1.5 * aligned);
}
