// The multigrid Poisson solver at 1, 2 and 4 ranks: second-order accurate against exact
// solutions (periodic, Dirichlet, Neumann faces), residual reduced at least tenfold per
// cycle, cycle counts that do not grow with the grid, and a solution that is bitwise the
// same whatever the rank count and the patch cut, on level 0 and on refined levels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "amr/launch_counter.hpp"
#include "amr/run_failure.hpp"
#include "solver/multigrid.hpp"
#include "tests/fab_testing.hpp"
#include "tests/solver/poisson_problems.hpp"

using namespace pw;
using pw::testing::HostFab;
using namespace pw::testing;

namespace {

struct Result {
  SolveReport report;
  double l2 = 0,
         max = 0;  // error against the exact solution (its mean removed if singular)
  std::uint64_t bits = 0;  // hash of phi's bits, independent of the patch cut
};

Result solve(const Problem& pb, const Comm& comm) {
  LevelGeom g = pw::testing::unit_geom(pb.dim, pb.n);
  for (int d = 0; d < 3; ++d)
    g.periodic[d] = pb.periodic && d < pb.dim;
  LevelLayout L;
  L.boxes = chop(g.domain, IntVect::in_dims(pb.dim, pb.max_grid, 1),
                 IntVect::in_dims(pb.dim, 4, 1));
  for (size_t p = 0; p < L.boxes.size(); ++p)
    L.owner.push_back(int(p % size_t(comm.size())));
  const IntVect one = IntVect::in_dims(pb.dim, 1, 0);
  LevelData phi("phi", L, g, 1, one, comm.rank());
  LevelData f("f", L, g, 1, IntVect{}, comm.rank());
  phi.set_val(0.0);
  auto x = [&](int d, int i) { return g.center(d, i); };
  for (size_t p = 0; p < L.size(); ++p)
    if (f.owns(p))
      pw::testing::set(f[p], [&](int i, int j, int k, int) {
        return pb.f(x(0, i), x(1, j), pb.dim == 3 ? x(2, k) : 0.0);
      });
  MgConfig cfg = pb.cfg;
  cfg.verbose = false;
  Multigrid mg(L, g, pb.bc, cfg, comm);
  Result r;
  r.report = mg.solve(phi, f);
  // Error against the exact solution (shifted to phi's mean for a singular problem).
  double mean_exact = 0, sum2 = 0, emax = 0;
  std::uint64_t bits = 0;
  const bool singular = pb.bc.singular(g);
  for (int pass = 0; pass < 2; ++pass) {
    double local = 0;
    for (size_t p = 0; p < L.size(); ++p) {
      if (!phi.owns(p)) continue;
      HostFab h(phi[p]);
      const Box b = L.boxes[p];
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
            const double e = pb.exact(x(0, i), x(1, j), pb.dim == 3 ? x(2, k) : 0.0);
            if (pass == 0) {
              local += e;
              continue;
            }
            const double err = h(i, j, k) - (e - mean_exact);
            sum2 += err * err;
            emax = std::max(emax, std::abs(err));
            double v = h(i, j, k);
            std::uint64_t u;
            std::memcpy(&u, &v, sizeof u);
            bits +=
                mix(mix(mix(std::uint64_t(i)) ^ std::uint64_t(j)) ^ std::uint64_t(k)) ^ u;
          }
    }
    if (pass == 0)
      mean_exact = singular ? comm.sum(local) / double(g.domain.num_cells()) : 0.0;
  }
  r.l2 = std::sqrt(comm.sum(sum2) / double(g.domain.num_cells()));
  r.max = comm.max(emax);
  r.bits = comm.sum(bits);
  return r;
}

void expect_second_order(const std::function<Problem(int)>& make,
                         const std::vector<int>& ns, const char* what) {
  const Comm comm;
  std::vector<Result> res;
  for (int n : ns) {
    Problem pb = make(n);
    pb.n = n;
    res.push_back(solve(pb, comm));
    EXPECT_TRUE(res.back().report.converged) << what << " n " << n;
  }
  for (size_t k = 1; k < res.size(); ++k) {
    const double o2 = std::log2(res[k - 1].l2 / res[k].l2);
    const double om = std::log2(res[k - 1].max / res[k].max);
    if (comm.rank() == 0)
      std::printf(
          "%s: n %d -> %d: L2 %.3e -> %.3e (order %.2f), max %.3e -> %.3e (%.2f)\n", what,
          ns[k - 1], ns[k], res[k - 1].l2, res[k].l2, o2, res[k - 1].max, res[k].max, om);
    EXPECT_GE(o2, 1.8) << what;
    EXPECT_GE(om, 1.8) << what;
  }
}

}  // namespace

TEST(Multigrid, PeriodicSinesConvergeAtSecondOrder) {
  expect_second_order([](int) { return periodic_sines(3); }, {16, 32, 64}, "periodic 3D");
  expect_second_order([](int) { return periodic_sines(2); }, {32, 64, 128},
                      "periodic 2D");
}

TEST(Multigrid, DirichletFacesConvergeAtSecondOrder) {
  expect_second_order([](int) { return dirichlet_sines(3); }, {16, 32, 64},
                      "dirichlet 3D");
  expect_second_order([](int) { return dirichlet_sines(2); }, {32, 64, 128},
                      "dirichlet 2D");
}

TEST(Multigrid, NeumannFacesReproduceAQuadraticExactly) {
  // phi = x^2 - 2 y^2 + z^2 / 2: lap = -1; outward derivatives 0 on the lo faces and
  // 2, -4, 1 on the hi faces. The discrete operator is exact for quadratics, so only the
  // solver's tolerance separates phi from it (up to the constant Neumann leaves free).
  Problem pb;
  pb.periodic = false;
  pb.n = 16;
  const double hi[3] = {2.0, -4.0, 1.0};
  for (int d = 0; d < 3; ++d) {
    pb.bc.lo[d] = {BcKind::neumann, 0.0};
    pb.bc.hi[d] = {BcKind::neumann, hi[d]};
  }
  pb.exact = [](double x, double y, double z) { return x * x - 2 * y * y + 0.5 * z * z; };
  pb.f = [](double, double, double) { return -1.0; };
  pb.cfg.rtol = 1e-12;
  const Result r = solve(pb, Comm());
  EXPECT_TRUE(r.report.converged);
  EXPECT_LT(r.max, 1e-9);
}

TEST(Multigrid, ReducesTheResidualTenfoldPerCycleWhateverTheGridSize) {
  const Comm comm;
  for (auto make : {periodic_sines, dirichlet_sines}) {
    std::vector<int> cycles;
    for (int n : {32, 64, 128}) {
      Problem pb = make(2);
      pb.n = n;
      pb.max_grid = 32;
      const Result r = solve(pb, comm);
      if (comm.rank() == 0)
        std::printf("n %d: %d cycles, mean reduction %.3f\n", n, r.report.cycles,
                    r.report.mean_reduction());
      EXPECT_LE(r.report.mean_reduction(), 0.1) << "n " << n;
      cycles.push_back(r.report.cycles);
    }
    EXPECT_LE(std::abs(cycles[2] - cycles[0]), 2);
    EXPECT_LE(std::abs(cycles[1] - cycles[0]), 2);
  }
  for (bool f_cycle : {false, true}) {
    Problem pb = periodic_sines(3);
    pb.n = 32;
    pb.cfg.f_cycle = f_cycle;
    const SolveReport r = solve(pb, comm).report;
    if (comm.rank() == 0)
      std::printf("3D %s: %d cycles, residual %.3e -> %.3e, mean reduction %.3f\n",
                  f_cycle ? "F" : "V", r.cycles, r.initial_residual, r.final_residual,
                  r.mean_reduction());
    EXPECT_LE(r.mean_reduction(), 0.1);
  }
}

// After a cycle's last sweep (of colour 1) solve() exchanges only colour 1's ghosts to
// form the residual it reports: colour 0's are still current, unless a periodic seam of
// odd length joins cells of one colour. Either way the ghosts it leaves must be those of
// a full exchange, or the residual it reports is not that of its answer.
TEST(Multigrid, ResidualAfterTheLastSweepSeesCurrentGhosts) {
  const Comm comm(MPI_COMM_SELF);
  for (int nx : {8, 9}) {
    LevelGeom g;
    g.dim = 2;
    g.domain = Box{{0, 0, 0}, {nx - 1, 7, 0}};
    g.dx[0] = 1.0 / nx;
    g.dx[1] = 1.0 / 8;
    g.periodic[0] = true;  // y: Dirichlet walls
    g.periodic[1] = g.periodic[2] = false;
    PoissonBc bc;
    for (int d = 0; d < 3; ++d)
      bc.lo[d] = bc.hi[d] = {BcKind::dirichlet, 0.0};
    const LevelLayout L{{g.domain}, {0}};
    LevelData phi("phi", L, g, 1, IntVect::in_dims(2, 1, 0), 0);
    LevelData f("f", L, g, 1, IntVect{}, 0);
    phi.set_val(0.0);
    pw::testing::set(f[0], [&](int i, int j, int, int) {
      return std::sin(2 * kPi * g.center(0, i)) * std::sin(kPi * g.center(1, j));
    });
    MgConfig cfg;
    cfg.verbose = false;
    cfg.max_cycles = 1;
    Multigrid mg(L, g, bc, cfg, comm);
    ASSERT_EQ(mg.solve(phi, f).cycles, 1);
    const HostFab left(phi[0]);
    phi.fill_boundary(comm, true);
    const HostFab all(phi[0]);
    for (int j = 0; j < 8; ++j)
      for (int i : {-1, nx}) {
        EXPECT_EQ(left(i, j, 0), all(i, j, 0))
            << "nx " << nx << " ghost " << i << ", " << j;
      }
  }
}

TEST(Multigrid, SolutionIsBitwiseTheSameForAnyRankCountAndPatchCut) {
  const Comm world;
  // V- and F-cycles, the small grids held whole (by default) or every grid distributed
  // (gather_cells 0: the coarse grids' own exchanges and packs across ranks).
  for (const bool f_cycle : {false, true})
    for (const int gather_cells : {MgConfig().gather_cells, 0})
      for (auto make : {periodic_sines, dirichlet_sines}) {
        Problem pb = make(3);
        pb.n = 32;
        pb.max_grid = 16;
        pb.cfg.f_cycle = f_cycle;
        pb.cfg.gather_cells = gather_cells;
        const Result all = solve(pb, world);
        const std::string what = std::string(f_cycle ? "F" : "V") + "-cycles, gather " +
                                 std::to_string(gather_cells);
        pb.max_grid = 8;  // another cut
        EXPECT_EQ(solve(pb, world).bits, all.bits) << what;
        for (int group : {1, 2}) {
          if (group >= world.size() || world.size() % group != 0) continue;
          MPI_Comm sub;
          MPI_Comm_split(world.raw(), world.rank() / group, world.rank(), &sub);
          pb.max_grid = 16;
          const Result part = solve(pb, Comm(sub));
          MPI_Comm_free(&sub);
          EXPECT_EQ(part.bits, all.bits) << what << ", group of " << group;
          EXPECT_EQ(part.report.cycles, all.report.cycles) << what;
        }
      }
}

namespace {

/// The level-by-level solve of periodic_sines(dim) on a base grid of n cells with
/// `refined` levels of ratio 2, each over the central half of the one below: level 0 by
/// itself, each finer level with Dirichlet values in its coarse-fine ghosts interpolated
/// (quadratic) from the solution below, each level cut into patches of at most
/// `max_grid` cells (multiples of 4). Returns the max error of each level.
std::vector<double> level_by_level(int dim, int n, int refined, const Comm& comm,
                                   std::uint64_t* bits = nullptr, int max_grid = 16,
                                   std::vector<SolveReport>* reports = nullptr,
                                   int granule = 4,
                                   int gather_cells = MgConfig().gather_cells) {
  const Problem pb = periodic_sines(dim);
  const IntVect r = IntVect::in_dims(dim, 2, 1);
  const IntVect one = IntVect::in_dims(dim, 1, 0);
  LevelGeom g = pw::testing::unit_geom(dim, n);
  Box region = g.domain;  // the level's region, in its own index space
  std::vector<double> errors;
  LevelData below;
  MgConfig cfg;
  cfg.verbose = false;
  cfg.gather_cells = gather_cells;
  if (bits) *bits = 0;
  for (int l = 0; l <= refined; ++l) {
    if (l > 0) {
      g = g.refined(r);
      Box inner = region;  // the central half, refined
      for (int d = 0; d < dim; ++d) {
        const int w = region.size()[d];
        inner.lo[d] = region.lo[d] + w / 4;
        inner.hi[d] = region.hi[d] - w / 4;
      }
      region = refine(inner, r);
    }
    const LevelLayout L =
        pw::testing::round_robin(chop(region, IntVect::in_dims(dim, max_grid, 1),
                                      IntVect::in_dims(dim, granule, 1)),
                                 comm.size(), l);
    LevelData phi("phi", L, g, 1, one, comm.rank());
    LevelData f("f", L, g, 1, IntVect{}, comm.rank());
    phi.set_val(0.0);
    for (size_t p = 0; p < L.size(); ++p)
      if (f.owns(p))
        pw::testing::set(f[p], [&](int i, int j, int k, int) {
          return pb.f(g.center(0, i), g.center(1, j), dim == 3 ? g.center(2, k) : 0.0);
        });
    if (l > 0)
      phi.fill_from_coarse(below, below, 1.0, r, {Interp::quadratic}, BcSet(1), comm);
    const SolveReport rep = Multigrid(L, g, pb.bc, cfg, comm, granule).solve(phi, f);
    if (reports) reports->push_back(rep);
    double err = 0;
    for (size_t p = 0; p < L.size(); ++p) {
      if (!phi.owns(p)) continue;
      HostFab h(phi[p]);
      const Box b = L.boxes[p];
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
            const double e =
                pb.exact(g.center(0, i), g.center(1, j), dim == 3 ? g.center(2, k) : 0.0);
            err = std::max(err, std::abs(h(i, j, k) - e));
            if (bits) {
              double v = h(i, j, k);
              std::uint64_t u;
              std::memcpy(&u, &v, sizeof u);
              *bits += mix(mix(mix(mix(std::uint64_t(l)) ^ std::uint64_t(i)) ^
                               std::uint64_t(j)) ^
                           std::uint64_t(k)) ^
                       u;
            }
          }
    }
    errors.push_back(comm.max(err));
    below = std::move(phi);
  }
  if (bits) *bits = comm.sum(*bits);
  return errors;
}

}  // namespace

TEST(Multigrid, LevelByLevelSolveIsSecondOrderOnEveryRefinedLevel) {
  const Comm comm;
  for (int dim : {2, 3})
    for (int refined : {1, 2}) {
      const std::vector<int> ns =
          dim == 2 ? std::vector<int>{32, 64, 128} : std::vector<int>{32, 64};
      std::vector<std::vector<double>> err;
      for (int n : ns)
        err.push_back(level_by_level(dim, n, refined, comm));
      for (size_t k = 1; k < ns.size(); ++k)
        for (int l = 0; l <= refined; ++l) {
          const double order = std::log2(err[k - 1][size_t(l)] / err[k][size_t(l)]);
          if (comm.rank() == 0)
            std::printf(
                "%dD, %d refined: level %d, n %d -> %d: max error %.3e -> %.3e "
                "(order %.2f)\n",
                dim, refined, l, ns[k - 1], ns[k], err[k - 1][size_t(l)],
                err[k][size_t(l)], order);
          EXPECT_GE(order, 1.8) << dim << "D level " << l;
        }
    }
}

// A refined level's coarser grids put the error's zero where the level's own grid has
// it, at its ghost cells' centres half a fine cell beyond the coarse-fine face, not at
// the face: with the face they reduced the residual by 0.10-0.13 per cycle (13-15
// cycles to 1e-10) at granule 4, against 0.01-0.06 on level 0. Granules 4, 8 and 16 give
// the refined levels one, two and three coarser grids (ghost weights -1/3, -3/5, -7/9).
TEST(Multigrid, RefinedLevelsConvergeAsFastAsLevelZero) {
  const Comm comm;
  for (int granule : {4, 8, 16})
    for (int dim : {2, 3}) {
      std::vector<SolveReport> reps;
      level_by_level(dim, dim == 2 ? 64 : 32, 2, comm, nullptr, 16, &reps, granule);
      ASSERT_EQ(reps.size(), 3u);
      for (size_t l = 0; l < reps.size(); ++l) {
        if (comm.rank() == 0)
          std::printf("granule %d, %dD level %zu: %d cycles, mean reduction %.3f\n",
                      granule, dim, l, reps[l].cycles, reps[l].mean_reduction());
        EXPECT_TRUE(reps[l].converged)
            << dim << "D level " << l << " granule " << granule;
        EXPECT_LE(reps[l].mean_reduction(), 0.08)
            << dim << "D level " << l << " granule " << granule;
      }
    }
}

TEST(Multigrid, LevelByLevelSolveIsBitwiseTheSameForAnyRankCount) {
  const Comm world;
  std::uint64_t all = 0;
  level_by_level(3, 16, 2, world, &all);
  for (int group : {1, 2}) {
    if (group >= world.size() || world.size() % group != 0) continue;
    MPI_Comm sub;
    MPI_Comm_split(world.raw(), world.rank() / group, world.rank(), &sub);
    std::uint64_t part = 0;
    level_by_level(3, 16, 2, Comm(sub), &part);
    MPI_Comm_free(&sub);
    EXPECT_EQ(part, all) << "group of " << group;
  }
}

TEST(Multigrid, LevelByLevelSolveIsBitwiseTheSameForAnyPatchCut) {
  // A refined level's grids went as deep as its smallest patch allowed, and its linear
  // prolongation read corner ghosts that its coarse-fine rule sets for some cuts only:
  // the bits (not the accuracy) moved with the cut, and with the rank count under a
  // balancer that splits patches.
  const Comm world;
  for (int dim : {2, 3}) {
    std::uint64_t base = 0;
    level_by_level(dim, 32, 2, world, &base);
    for (int max_grid : {8, 32}) {
      std::uint64_t other = 0;
      level_by_level(dim, 32, 2, world, &other, max_grid);
      EXPECT_EQ(other, base) << dim << "D, patches of at most " << max_grid;
    }
  }
}

// A refined level's coarsest grid, held whole by every rank and solved there by
// conjugate gradients in one launch, gives the bits of the same grid distributed and
// solved a launch per step: the same steps, exact dot products.
// Where the grids below a level start being held whole by every rank (across ranks:
// the level itself at the largest limit, from a smaller grid, or only the one-box grids
// of level 0; on one rank: a refined level's bottom or none) does not change a bit.
TEST(Multigrid, GridsHeldWholeGiveTheDistributedGridsBits) {
  const Comm world;
  for (int dim : {2, 3})
    for (int granule : {4, 8}) {
      std::uint64_t held = 0, held_small = 0, distributed = 0;
      level_by_level(dim, dim == 2 ? 64 : 32, 2, world, &held, 16, nullptr, granule,
                     1 << 30);
      level_by_level(dim, dim == 2 ? 64 : 32, 2, world, &held_small, 16, nullptr, granule,
                     dim == 2 ? 256 : 512);
      level_by_level(dim, dim == 2 ? 64 : 32, 2, world, &distributed, 16, nullptr,
                     granule, 0);
      EXPECT_EQ(held, distributed) << dim << "D, granule " << granule;
      EXPECT_EQ(held_small, distributed) << dim << "D, granule " << granule;
    }
}

namespace {

/// A level refined by 2 over the central half of an n^3 base (3D), cut into patches of
/// at most max_grid cells (multiples of granule) dealt round-robin: its geometry and
/// layout, e (1 ghost) and f = pb's right-hand side on it.
struct CentralHalf {
  LevelGeom g;
  LevelLayout L;
  LevelData e, f;
};
CentralHalf central_half(const Problem& pb, int n, int max_grid, int granule,
                         const Comm& comm) {
  const int dim = 3;
  const IntVect r = IntVect::in_dims(dim, 2, 1);
  CentralHalf c;
  c.g = pw::testing::unit_geom(dim, n).refined(r);
  const Box inner{{n / 4, n / 4, n / 4}, {3 * n / 4 - 1, 3 * n / 4 - 1, 3 * n / 4 - 1}};
  c.L =
      pw::testing::round_robin(chop(refine(inner, r), IntVect::in_dims(dim, max_grid, 1),
                                    IntVect::in_dims(dim, granule, 1)),
                               comm.size());
  c.e = LevelData("e", c.L, c.g, 1, IntVect::in_dims(dim, 1, 0), comm.rank());
  c.f = LevelData("f", c.L, c.g, 1, IntVect{}, comm.rank());
  for (size_t p = 0; p < c.L.size(); ++p)
    if (c.f.owns(p))
      pw::testing::set(c.f[p], [&](int i, int j, int k, int) {
        return pb.f(c.g.center(0, i), c.g.center(1, j), c.g.center(2, k));
      });
  return c;
}

/// Every value of this rank's patches of u, ghosts included, patch by patch.
std::vector<std::vector<double>> owned_values(const LevelData& u) {
  std::vector<std::vector<double>> values;
  for (size_t p = 0; p < u.size(); ++p)
    if (u.owns(p)) {
      const pw::testing::HostFab h(u[p]);
      values.emplace_back(h.h.data(), h.h.data() + h.h.size());
    }
  return values;
}

}  // namespace

// A solve leaves phi's ghosts beside other patches' faces as the exchange would set them
// (self-gravity's kick reads them without one): level 0 (periodic, singular: the mean
// removed at the end shifts the ghosts too) and a refined level (coarse-fine ghosts
// holding Dirichlet values), spread and held whole, with and without post-smoothing, and
// a guess that has already converged.
TEST(Multigrid, ASolveLeavesTheFaceGhostsAsTheExchangeWould) {
  const Comm comm;
  const Problem pb = periodic_sines(3);
  const auto check = [&](LevelData& phi, const char* what) {
    const std::vector<std::vector<double>> left = owned_values(phi);
    phi.fill_boundary(comm, true);
    EXPECT_EQ(owned_values(phi), left) << what;
  };
  for (const int post : {2, 0})
    for (const long gather : {0L, 1L << 30}) {
      MgConfig cfg;
      cfg.verbose = false;
      cfg.post_smooth = post;
      cfg.gather_cells = gather;
      {  // level 0: 32^3 in 8^3 patches
        const LevelGeom g = pw::testing::unit_geom(3, 32);
        const LevelLayout L = pw::testing::round_robin(
            chop(g.domain, IntVect::uniform(8), IntVect::uniform(4)), comm.size());
        LevelData phi("phi", L, g, 1, IntVect::uniform(1), comm.rank());
        LevelData f("f", L, g, 1, IntVect{}, comm.rank());
        phi.set_val(0.0);
        for (size_t p = 0; p < L.size(); ++p)
          if (f.owns(p))
            pw::testing::set(f[p], [&](int i, int j, int k, int) {
              return pb.f(g.center(0, i), g.center(1, j), g.center(2, k));
            });
        Multigrid mg(L, g, pb.bc, cfg, comm);
        ASSERT_GT(mg.solve(phi, f).cycles, 0);
        check(phi, "level 0");
        // The solution as the guess, its ghosts poison, to a looser tolerance: no cycle.
        LevelData guess = phi.like("guess");
        guess.set_val(-7.0);
        guess.copy_component(0, phi, 0);
        MgConfig loose = cfg;
        loose.rtol = 0.5;
        ASSERT_EQ(Multigrid(L, g, pb.bc, loose, comm).solve(guess, f).cycles, 0);
        check(guess, "level 0, a converged guess");
      }
      {  // the central half of a 16^3 base refined: 16^3 in 8^3 patches
        CentralHalf c = central_half(pb, 16, 8, 4, comm);
        c.e.set_val(0.25);  // the coarse-fine ghosts' Dirichlet values
        mg::add_constant(c.e, -0.25);
        Multigrid mg(c.L, c.g, pb.bc, cfg, comm, 4);
        ASSERT_GT(mg.solve(c.e, c.f).cycles, 0);
        check(c.e, "refined level");
      }
    }
}

// The gathered bottom's conjugate gradients are one launch however many iterations they
// take; distributed, each iteration launches six kernels.
TEST(Multigrid, GatheredBottomIsOneLaunchWhateverItsIterations) {
  const Comm comm;
  const Problem pb = periodic_sines(3);
  CentralHalf c = central_half(pb, 16, 8, 4, comm);
  // One V-cycle's launches with the bottom's CG stopped after one iteration, then run
  // to a tight tolerance.
  const auto launches = [&](int gather_cells, int max_iter) {
    MgConfig cfg;
    cfg.verbose = false;
    cfg.gather_cells = gather_cells;
    cfg.bottom_max_iter = max_iter;
    cfg.bottom_rtol = 1e-12;
    Multigrid mg(c.L, c.g, pb.bc.homogeneous(), cfg, comm, 4);
    LaunchCounter count;
    mg.correct(c.e, c.f, 1);
    return comm.max(double(count.launches()));
  };
  EXPECT_EQ(launches(1 << 30, 1), launches(1 << 30, 500));
  // Distributed, the tight tolerance takes more iterations and so more launches.
  EXPECT_GE(launches(0, 500), launches(0, 1) + 7 * 5);
}

// Below a level, a grid every rank holds whole smooths in one launch before the coarser
// grids and one after, and sends nothing: one more such grid adds two launches to a
// V-cycle at any rank count, as a grid on one rank does. Across ranks a distributed grid
// takes an exchange and a launch per half-sweep.
TEST(Multigrid, AGridHeldWholeAddsTwoLaunchesPerCycleAtAnyRankCount) {
  const Comm comm;
  const Problem pb = periodic_sines(3);
  CentralHalf c = central_half(pb, 32, 16, 16, comm);  // 32^3 in 16^3 patches
  // Granule 8: the level, 16^3 and the 8^3 bottom; granule 16: a 4^3 bottom below.
  const auto launches = [&](int granule, int gather_cells, int grids) {
    MgConfig cfg;
    cfg.verbose = false;
    cfg.gather_cells = gather_cells;
    Multigrid mg(c.L, c.g, pb.bc.homogeneous(), cfg, comm, granule);
    EXPECT_EQ(mg.num_grids(), grids);
    mg.correct(c.e, c.f, 1);  // the plans' first use
    LaunchCounter count;
    mg.correct(c.e, c.f, 1);
    return comm.max(double(count.launches()));
  };
  // At most 4096 cells: the 16^3 grid below, not the level (across ranks held whole too
  // from 32768).
  const double held = launches(8, 4096, 3);
  EXPECT_EQ(launches(16, 4096, 4) - held, 2);
  // Only the bottoms held whole (512 cells and less): 16^3 is distributed.
  const double bottoms = launches(8, 512, 3);
  EXPECT_EQ(launches(16, 512, 4) - bottoms, 2);
  if (comm.size() == 1)
    EXPECT_EQ(held, bottoms);  // on one rank only a bottom is held whole
  else  // its four half-sweeps before and after, and the exchanges' packs
    EXPECT_GE(bottoms - held, 8);
}

// Across ranks a V-cycle of a distributed grid above grids held whole takes: the
// pre-smoothing's first pack, a launch per half-sweep, the restriction (which packs what
// the held grid's feed sends), the prolongation (which packs the first post-smoothing
// exchange's cells) and a launch per half-sweep; the held grids one launch per smoothing
// (the first receiving its feed and zeroing its first guess in it) and the bottom's CG.
namespace {

/// The launches of a correction's first cycle and of each cycle after it, at most on a
/// rank: 32^3 in 16^3 patches, granule 8 (the level, 16^3 and the 8^3 bottom), grids of
/// at most gather_cells held whole.
std::pair<double, double> correction_launches(int gather_cells, const Comm& comm) {
  const Problem pb = periodic_sines(3);
  CentralHalf c = central_half(pb, 32, 16, 16, comm);
  MgConfig cfg;
  cfg.verbose = false;
  cfg.gather_cells = gather_cells;
  Multigrid mg(c.L, c.g, pb.bc.homogeneous(), cfg, comm, 8);
  EXPECT_EQ(mg.num_grids(), 3);
  const auto launches = [&](int cycles) {
    LaunchCounter count;
    mg.correct(c.e, c.f, cycles);
    return comm.max(double(count.launches()));
  };
  launches(1);  // the plans' first use
  const double one = launches(1);
  return {one, launches(2) - one};
}

}  // namespace

TEST(Multigrid, AcrossRanksTheGridsHeldWholeTakeNoLaunchForTheirFeed) {
  const Comm comm;
  if (comm.size() == 1) GTEST_SKIP() << "across ranks";
  // The 16^3 grid held whole (fed from the level), not the level (32^3).
  const auto [one, cycle] = correction_launches(4096, comm);
  const MgConfig cfg;
  const int half_sweeps = 2 * (cfg.pre_smooth + cfg.post_smooth);
  EXPECT_EQ(cycle, 1 + half_sweeps + 1 + 1 + (2 + 1));
  // The first cycle's first half-sweep zeroes the correction and reads only zeros: no
  // exchange, so no pack before it.
  EXPECT_EQ(one, cycle - 1);
}

// Across ranks a distributed grid below another takes no pack launch of its own: its
// first guess is zero with its ghosts (set by the restriction into it), so its first
// half-sweep takes no exchange, and its last half-sweep packs what the prolongation's
// exchange of it sends. A V-cycle: on the level, the pre-smoothing's first pack (what the
// cycle before left unpacked), a launch per half-sweep, the restriction and the
// prolongation; on the distributed grid below, a launch per half-sweep, the restriction
// (packing the bottom's feed) and the prolongation from the bottom; the bottom's CG.
// Each pack had a launch of its own before.
TEST(Multigrid, AcrossRanksADistributedCoarseGridTakesNoPackOfItsOwn) {
  const Comm comm;
  if (comm.size() == 1) GTEST_SKIP() << "across ranks";
  // 32^3 and 16^3 distributed, the 8^3 bottom held whole.
  const double cycle = correction_launches(512, comm).second;
  const MgConfig cfg;
  const int half_sweeps = 2 * (cfg.pre_smooth + cfg.post_smooth);
  EXPECT_EQ(cycle, (1 + half_sweeps + 1 + 1) + (half_sweeps + 1 + 1) + 1);
}

// Across ranks a level of at most gather_limit cells is itself held whole by every rank:
// a V-cycle on it takes the launches it takes on one rank (two per grid, no message);
// spread over the ranks, each half-sweep took an exchange and a launch. Its bits are
// those of the level spread over the ranks (GridsHeldWholeGiveTheDistributedGridsBits,
// whose levels are all held whole across ranks at its largest gather_cells).
TEST(Multigrid, ASmallLevelHeldWholeCyclesAsOnOneRank) {
  const Comm world;
  const Problem pb = periodic_sines(3);
  const auto cycle_launches = [&](const Comm& comm, int gather_cells) {
    CentralHalf c = central_half(pb, 16, 8, 4, comm);  // 16^3 in 8^3 patches
    EXPECT_EQ(num_cells(c.L.boxes), 4096);
    MgConfig cfg;
    cfg.verbose = false;
    cfg.gather_cells = gather_cells;
    Multigrid mg(c.L, c.g, pb.bc.homogeneous(), cfg, comm, 4);
    mg.correct(c.e, c.f, 1);  // the plans' first use
    double one = 0, two = 0;
    {
      LaunchCounter count;
      mg.correct(c.e, c.f, 1);
      one = comm.max(double(count.launches()));
    }
    {
      LaunchCounter count;
      mg.correct(c.e, c.f, 2);
      two = comm.max(double(count.launches()));
    }
    return two - one;
  };
  const double alone = cycle_launches(Comm(MPI_COMM_SELF), 4096);
  EXPECT_EQ(cycle_launches(world, 4096), alone);
  if (world.size() > 1)  // spread: four half-sweeps before and after, each exchanged
    EXPECT_GE(cycle_launches(world, 4095), alone + 8);
}

// A correction on a level held whole (its coarse-fine ghosts following the rule of the
// caller's e, or left at 0 without one) gives the bits of the level spread over the
// ranks, ghosts included.
TEST(Multigrid, ASmallLevelHeldWholeCorrectsWithTheSpreadLevelsBits) {
  const Comm comm;
  const Problem pb = periodic_sines(3);
  for (const bool rule : {false, true}) {
    const auto correction = [&](int gather_cells) {
      CentralHalf c = central_half(pb, 16, 8, 4, comm);  // 16^3 in 8^3 patches
      if (rule) c.e.set_coarse_fine_from_inside(-1.0 / 3.0);
      MgConfig cfg;
      cfg.verbose = false;
      cfg.gather_cells = gather_cells;
      Multigrid mg(c.L, c.g, pb.bc.homogeneous(), cfg, comm, 4);
      mg.correct(c.e, c.f, 2);
      return owned_values(c.e);
    };
    EXPECT_EQ(correction(4096), correction(0))
        << (rule ? "with" : "without") << " a rule";
  }
}

// A correction starts from 0 (ghosts included) whatever e held: its first launch sets
// each patch's fab as it sweeps (distributed) or in its one team (no messages), to the
// bit of a correction from a zeroed e.
TEST(Multigrid, ACorrectionStartsFromZeroWhateverItsFieldHeld) {
  const Comm comm;
  const Problem pb = periodic_sines(3);
  CentralHalf c = central_half(pb, 16, 8, 4, comm);
  MgConfig cfg;
  cfg.verbose = false;
  cfg.gather_cells = 0;  // every grid distributed
  Multigrid mg(c.L, c.g, pb.bc.homogeneous(), cfg, comm, 4);
  const auto correction = [&](double held) {
    for (size_t p = 0; p < c.L.size(); ++p)
      if (c.e.owns(p)) pw::testing::set(c.e[p], [=](int, int, int, int) { return held; });
    mg.correct(c.e, c.f, 2);
    return owned_values(c.e);
  };
  const auto from_zero = correction(0.0);
  EXPECT_EQ(correction(7.5), from_zero);
  EXPECT_EQ(correction(-1e300), from_zero);
}

TEST(Multigrid, ANaNInTheDataStopsTheSolveUnconverged) {
  // A max reduction drops a NaN (a comparison with it is false): the solve once took a
  // NaN right-hand side for a converged one. Periodic (singular: the NaN reaches the
  // removed mean) and Dirichlet; under fail_on_divergence it throws on every rank.
  const Comm comm;
  for (Problem pb : {periodic_sines(3), dirichlet_sines(3)}) {
    pb = with_nan_in_f(pb);
    const SolveReport rep = solve(pb, comm).report;
    EXPECT_FALSE(rep.converged);
    EXPECT_FALSE(rep.finite());
    EXPECT_EQ(rep.cycles, 0);
    pb.cfg.fail_on_divergence = true;
    EXPECT_THROW(solve(pb, comm), RunFailure);
  }
}

TEST(Multigrid, AVCycleOnOneRankTakesTwoLaunchesPerGridAboveTheGather) {
  // Where a grid's exchanges have no message, its pre-smoothing and the restriction are
  // one launch, and the prolongation and its post-smoothing another. 32^3 in 8^3 patches
  // (on each rank alone): distributed 32^3 and 16^3, then gathered 8^3, 4^3 and the 2^3
  // bottom. A cycle: 2 launches per grid above the bottom, 3 where the gathered grids
  // meet the distributed ones (the gather's copy, its ghosts' copies and the
  // prolongation from its one box; its first smoothing zeroes its first guess, as the
  // restrictions into the other grids do), 4 for the bottom (its CG,
  // and on a singular problem such as this one the exact removal of its rhs's round-off
  // mean: its largest value, its sum, the shift); the residual norm after the cycle
  // takes 1 (the exchange's copies, the residual and its max).
  const Comm comm(MPI_COMM_SELF);
  Problem pb = periodic_sines(3);
  pb.n = 32;
  const LevelGeom g = pw::testing::unit_geom(3, pb.n);
  LevelLayout L;
  L.boxes = chop(g.domain, IntVect::uniform(8), IntVect::uniform(4));
  L.owner.assign(L.boxes.size(), 0);
  LevelData phi("phi", L, g, 1, IntVect::uniform(1), 0);
  LevelData f("f", L, g, 1, IntVect{}, 0);
  for (size_t p = 0; p < L.size(); ++p)
    pw::testing::set(f[p], [&](int i, int j, int k, int) {
      return pb.f(g.center(0, i), g.center(1, j), g.center(2, k));
    });
  const auto launches = [&](int cycles, int& grids) {
    MgConfig cfg;
    cfg.verbose = false;
    cfg.rtol = cfg.atol = 0.0;
    cfg.max_cycles = cycles;
    Multigrid mg(L, g, pb.bc, cfg, comm);
    grids = mg.num_grids();
    phi.set_val(0.0);
    LaunchCounter count;
    EXPECT_EQ(mg.solve(phi, f).cycles, cycles);
    return count.launches();
  };
  int grids = 0;
  launches(1, grids);  // phi's plans (their set-up copies launch on host threads too)
  const long one = launches(1, grids), two = launches(2, grids);
  ASSERT_EQ(grids, 5);
  EXPECT_EQ(two - one, 2 * (grids - 1) + 3 + 4 + 1);
}
