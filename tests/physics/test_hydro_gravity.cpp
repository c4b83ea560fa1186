// Self-gravity of the gas on one rank: the Jeans instability's growth rate and a stable
// mode's frequency against the linear dispersion relation, a uniform box that stays at
// rest under its own gravity with refined levels, and mass conservation of a collapsing
// clump across regrids.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "tests/app/test_dir.hpp"
#include "tests/physics/hydro_testing.hpp"

using namespace pw;
using pw::testing::str;

namespace {

constexpr double kGamma = 5.0 / 3.0;
constexpr double kK = 2.0 * M_PI;  // one wave across the unit box: K = 2 pi

/// A Jeans wave of amplitude 1e-4 along x on a 64 x 8 periodic grid, gas of density 1
/// and sound speed 1, with 4 pi G rho0 = ratio c^2 K^2 (ratio > 1: unstable), run to t.
/// Returns the wave's amplitude over its initial one: the cos(K x) Fourier coefficient
/// of the density.
double jeans_amplitude_ratio(double ratio, double t) {
  const int nx = 64, ny = 8;
  const double G = ratio * kK * kK / (4.0 * M_PI);
  const std::string deck =
      "[domain]\ndim = 2\nn_cell = [64, 8]\nprob_hi = [1.0, 0.125]\n"
      "periodic = [true, true]\n[amr]\nmax_level = 0\nblocking_factor = 8\n"
      "max_grid_size = 16\n[time]\nstop_time = " +
      str(t) +
      "\nmax_step = 100000\ncfl = 0.8\n[physics]\nmodule = \"hydro\"\n[hydro]\n"
      "gamma = " +
      str(kGamma) + "\nproblem = \"jeans\"\ngravity = true\nG = " + str(G) +
      "\n[jeans]\namplitude = 1e-4\npressure = " + str(1.0 / kGamma) +
      "\n[poisson]\nrtol = 1e-12\n";
  auto coefficient = [&](const Simulation& sim) {
    const auto fabs = pw::testing::level_state(sim);
    double a = 0;
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const double x = (i + 0.5) / nx;
        a += (pw::testing::cell_value(sim, fabs, {i, j, 0}, 0) - 1.0) * std::cos(kK * x);
      }
    return 2.0 * a / (nx * ny);
  };
  auto start = pw::testing::run_alone(deck, {"time.max_step=0"});
  auto sim = pw::testing::run_alone(deck, {});
  EXPECT_NEAR(sim->hierarchy().time(), t, 1e-12);
  return coefficient(*sim) / coefficient(*start);
}

}  // namespace

// Unstable: 4 pi G rho0 = 2 c^2 K^2, so the growth rate is sigma = sqrt(4 pi G rho0 -
// c^2 K^2) = c K, and a wave that starts at rest grows as cosh(sigma t).
TEST(HydroGravity, JeansGrowthRateWithinFivePercent) {
  const double sigma = kK, t = 0.5;
  const double ratio = jeans_amplitude_ratio(2.0, t);
  const double measured = std::acosh(ratio) / t;
  std::printf(
      "Jeans growth: amplitude x%.4f by t = %.2f, sigma %.5f (theory %.5f), "
      "error %.2f%%\n",
      ratio, t, measured, sigma, 100 * (measured / sigma - 1));
  EXPECT_NEAR(measured / sigma, 1.0, 0.05);
}

// Stable: 4 pi G rho0 = c^2 K^2 / 2, so the wave oscillates at omega = sqrt(c^2 K^2 -
// 4 pi G rho0) = c K / sqrt(2), slower than sound (omega = c K) would.
TEST(HydroGravity, StableJeansModeFrequencyWithinFivePercent) {
  const double omega = kK / std::sqrt(2.0);
  for (double t : {0.25, 0.45}) {
    const double ratio = jeans_amplitude_ratio(0.5, t);
    const double measured = std::acos(ratio) / t;
    std::printf(
        "Jeans oscillation: amplitude x%.4f at t = %.2f, omega %.5f (theory "
        "%.5f), error %.2f%%\n",
        ratio, t, measured, omega, 100 * (measured / omega - 1));
    EXPECT_NEAR(measured / omega, 1.0, 0.05);
  }
}

namespace {

/// The largest |component c| (or value, when signed) over the interiors of every level
/// (one rank).
double max_over_levels(const Simulation& sim, int c, bool magnitude = false) {
  double m = -1e300;
  const Hierarchy& h = sim.hierarchy();
  for (int l = 0; l <= h.finest_level(); ++l) {
    const Level& L = h.level(l);
    const auto fabs = pw::testing::level_state(sim, l);
    for (size_t p = 0; p < L.layout.size(); ++p) {
      const Box& b = L.layout.boxes[p];
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
            const double v = fabs[p](i, j, k, c);
            m = std::max(m, magnitude ? std::abs(v) : v);
          }
    }
  }
  return m;
}

/// Run `deck` on this rank alone; the finished simulation and its result.
std::pair<std::unique_ptr<Simulation>, RunResult> run(
    const std::string& deck, const std::vector<std::string>& overrides) {
  auto sim = std::make_unique<Simulation>(
      Deck::parse(deck, "gravity.toml", pw::testing::quiet(overrides)),
      Comm(MPI_COMM_SELF));
  RunResult r = sim->run(false);
  return {std::move(sim), r};
}

/// One Gaussian clump (peak density 21 on a background of 1, cold: pressure 1) at the
/// centre of the periodic unit square, falling in on itself for about one free-fall
/// time; the Jeans criterion refines its core.
const std::string kClump2d =
    "[domain]\ndim = 2\nn_cell = [32, 32]\nperiodic = [true, true]\n[amr]\n"
    "max_level = 2\nref_ratio = 2\nblocking_factor = 8\nmax_grid_size = 16\n"
    "n_error_buf = 2\nregrid_interval = 2\n[time]\nstop_time = 0.05\nmax_step = 100000\n"
    "cfl = 0.8\n[physics]\nmodule = \"hydro\"\n[hydro]\nproblem = \"clumps\"\n"
    "gamma = 1.6666666666666667\ngravity = true\nG = 10.0\njeans_cells = 16\n"
    "[clumps]\ncount = 1\ncenters = [0.5, 0.5]\nvelocities = [0.0, 0.0]\n"
    "amplitudes = [20.0]\nwidths = [0.08]\n";

}  // namespace

// The collapse on two refined levels (finest spacing 1/128) against the same collapse on
// a uniform 128^2 grid: the peak density (x27 by then) agrees within 2%, so gravity
// across coarse-fine boundaries and subcycled levels is consistent; and mass is
// conserved to round-off across the regrids.
TEST(HydroGravity, RefinedCollapseMatchesTheUniformFineGrid) {
  const auto [amr, r] = run(kClump2d, {});
  const auto [uniform, ru] = run(
      kClump2d, {"amr.max_level=0", "domain.n_cell=[128,128]", "amr.max_grid_size=32"});
  ASSERT_EQ(r.finest_level, 2);
  EXPECT_GT(r.regrids, 2);
  const double peak_amr = max_over_levels(*amr, 0), peak = max_over_levels(*uniform, 0);
  std::printf("clump collapse: peak density %.2f with AMR, %.2f uniform (%+.2f%%)\n",
              peak_amr, peak, 100 * (peak_amr / peak - 1));
  EXPECT_GT(peak, 20.0 * 21.0);  // it did collapse
  EXPECT_NEAR(peak_amr / peak, 1.0, 0.02);
  EXPECT_NEAR(r.final_totals[0] / r.initial_totals[0], 1.0, 1e-12);
}

// A uniform gas under its own gravity (the mean density is removed: no force) with the
// Jeans criterion refining everywhere: phi and the momenta stay zero to round-off.
TEST(HydroGravity, UniformBoxStaysAtRest) {
  const std::string deck =
      "[domain]\ndim = 3\nn_cell = [16, 16, 16]\nperiodic = [true, true, true]\n"
      "[amr]\nmax_level = 1\nblocking_factor = 8\nmax_grid_size = 16\n[time]\n"
      "max_step = 6\ncfl = 0.8\n[physics]\nmodule = \"hydro\"\n[hydro]\n"
      "problem = \"uniform\"\ngravity = true\nG = 10.0\njeans_cells = 64\n"
      "[uniform]\ndensity = 1.3\npressure = 0.7\n";
  const auto [sim, r] = run(deck, {});
  EXPECT_EQ(r.finest_level, 1);
  for (int c : {1, 2, 3, 5})  // the momenta and phi
    EXPECT_LE(max_over_levels(*sim, c, true), 1e-13) << c;
}

// A restart continues the collapse bit for bit, and the run's counts of fallbacks and
// floors go on from the checkpoint's (the summary of a restarted run is the whole run's).
TEST(HydroGravity, RestartContinuesTheCollapseAndItsCounters) {
  const pw::testing::TestDir dir(Comm(MPI_COMM_SELF), "pw_gravity_");
  auto dumps = [&](const std::string& sub) {
    return std::vector<std::string>{"output.write=true", "output.interval=8",
                                    "output.dir=\"" + dir.sub(sub) + "\""};
  };
  const auto [full, r] = run(kClump2d, dumps("full"));
  std::vector<std::string> o = dumps("again");
  // Of the run's 20 fallbacks (9 steps), 8 happen before step 8.
  o.push_back("restart=\"" + dir.sub("full") + "/plt_00008.h5\"");
  const auto [again, ra] = run(kClump2d, o);
  EXPECT_EQ(ra.fingerprint, r.fingerprint);
  EXPECT_EQ(ra.physics_counters, r.physics_counters);
  // The checkpoint holds some of the events and the restarted part adds some: a restart
  // that dropped the counters, or counted from the start again, shows.
  const auto events = [](const RunResult& x) {
    long n = 0;
    for (const auto& [name, count] : x.physics_counters)
      n += count;
    return n;
  };
  const auto [first8, r8] = run(kClump2d, {"time.max_step=8"});
  EXPECT_GT(events(r8), 0);
  EXPECT_LT(events(r8), events(r));
}

// inputs/clumps_3d.toml as it is: its cores collapse fast and cold, and the limited
// slopes of the conserved variables gave some fine ghost cells a negative pressure (152
// such reads by step 8, 1,718 by the end, and 8 cells floored after their update) until
// the hydro's coarse-to-fine interpolation kept the internal energy positive
// (Interp::gas_state). Fallbacks to first order are conservative and stay allowed.
TEST(HydroGravity, TheClumpsDeckNeedsNoFloor) {
  std::ifstream in(std::string(PW_SOURCE_DIR) + "/inputs/clumps_3d.toml");
  const std::string deck((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  const auto [sim, r] = run(deck, {});
  EXPECT_EQ(r.finest_level, 3);
  EXPECT_NEAR(sim->hierarchy().time(), 0.06, 1e-12);
  ASSERT_EQ(r.physics_counters.size(), 4u);
  for (const auto& [name, count] : r.physics_counters)
    if (name != "hydro_fallbacks") EXPECT_EQ(count, 0) << name;
}
