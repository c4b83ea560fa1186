// bench_poisson [--n N ...] [--max-grid M] [--repeats R] [--rtol T]
// [--bc periodic|dirichlet] [--cycle V|F] [--smooth PRE POST] [--omega W]
// [--refined [--level-cycles K]] (--help lists them): the multigrid solver on a uniform
// n^3 grid of the unit cube (patches of M^3), solving lap(phi) = f to
// |f - L phi|_max <= T |f|_max from phi = 0. periodic: f = sin(2 pi x) sin(2 pi y)
// sin(2 pi z); dirichlet: phi = 0 on the faces and f = -3 pi^2 sin(pi x) sin(pi y)
// sin(pi z) -- the problems of bench_hypre_poisson.
// --refined: the same problem with a refined level (ratio 2) over the central half of
// the cube, solved as one composite problem and level by level (rows patchwork_composite
// and patchwork_levels).
// Prints per n the median over repeats of: V-cycles (composite cycles), seconds per
// cycle, total seconds (solve only; the grids are built once, as a time stepper would),
// cell-cycles per second, and the final relative residual |f - L phi|_max / |f|_max.
#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "cli/cli_numbers.hpp"
#include "solver/composite_poisson.hpp"
#include "solver/multigrid.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Args {
  std::vector<int> n;
  int max_grid = 32;
  int repeats = 3;
  double rtol = 1e-10;
  bool periodic = true;
  bool f_cycle = false;
  int pre = 2, post = 2;
  double omega = 0.0;  // the solver's default
  bool refined = false;
  int level_cycles = pw::MgConfig{}.level_cycles;  // the composite solve's, of level 0
};

/// Reads the command line into `a`: -1 to run, else the exit code (0 after --help, 2 for
/// a bad argument, its one-line message printed by rank 0).
int parse(int argc, char** argv, int rank, Args& a) {
  CLI::App cli{
      "bench_poisson: Patchwork's multigrid on the uniform 3D Poisson problems of the "
      "solver benchmark (one line per n)"};
  a.n = {64, 128};
  cli.add_option("--n", a.n, "cells per side (several: one line each)")
      ->transform(pw::cli::int_in(2, 4096))
      ->capture_default_str();
  cli.add_option("--max-grid", a.max_grid, "patches of at most this many cells a side")
      ->transform(pw::cli::int_in(2, 4096))
      ->capture_default_str();
  cli.add_option("--repeats", a.repeats, "solves per line; the median is printed")
      ->transform(pw::cli::int_in(1, 1000))
      ->capture_default_str();
  cli.add_option("--rtol", a.rtol, "relative residual |f - L phi|_max / |f|_max")
      ->check(pw::cli::number<double>(
          "a number in (0, 1)", [](double t) { return t > 0 && t < 1; }, "in (0, 1)"))
      ->capture_default_str();
  std::string bc = "periodic", cycle = "V";
  cli.add_option("--bc", bc, "periodic|dirichlet")
      ->check(CLI::IsMember({"periodic", "dirichlet"}))
      ->capture_default_str();
  cli.add_option("--cycle", cycle, "V|F")
      ->check(CLI::IsMember({"V", "F"}))
      ->capture_default_str();
  std::vector<int> smooth{a.pre, a.post};
  cli.add_option("--smooth", smooth, "pre- and post-smoothing sweeps, 0..10 each")
      ->expected(2)
      ->transform(pw::cli::int_in(0, 10))
      ->capture_default_str();
  cli.add_option("--omega", a.omega, "the smoother's relaxation weight (default 1.3)")
      ->check(pw::cli::number<double>(
          "a number in (0, 2)", [](double w) { return w > 0 && w < 2; }, "in (0, 2)"));
  auto* refined = cli.add_flag("--refined", a.refined,
                               "a refined level (ratio 2) over the central half, solved "
                               "as one composite problem and level by level");
  cli.add_option("--level-cycles", a.level_cycles,
                 "with --refined: the composite solve's V-cycles of level 0 per cycle")
      ->transform(pw::cli::int_in(1, 100))
      ->needs(refined);
  try {
    cli.parse(argc, argv);
    if (smooth[0] + smooth[1] == 0)
      throw CLI::ValidationError("--smooth", "expected at least one sweep, got 0 0");
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      if (rank == 0) cli.exit(e);
      return 0;
    }
    if (rank == 0)
      fmt::print(stderr, "bench_poisson: error: {} (see --help)\n", e.what());
    return 2;
  }
  a.pre = smooth[0];
  a.post = smooth[1];
  a.periodic = bc == "periodic";
  a.f_cycle = cycle == "F";
  return -1;
}

using namespace pw;

struct Grid {
  LevelGeom geom;
  LevelLayout layout;
  int granule = 0;  // the chop's blocking: what a run's blocking factor would be
};

/// The level covering `region` of geometry g, cut into patches of at most max_grid,
/// contiguous blocks of patches per rank.
Grid level(const LevelGeom& g, const Box& region, int max_grid, const Comm& comm) {
  Grid G{g, {}};
  const int m = std::min(max_grid, region.size()[0]);
  G.granule = std::min(8, m);  // and the region's corner a multiple of it
  for (int d = 0; d < g.dim; ++d)
    G.granule = std::gcd(G.granule, region.lo[d]);
  G.layout.boxes = chop(region, IntVect::uniform(m), IntVect::uniform(G.granule));
  for (size_t p = 0; p < G.layout.size(); ++p)
    G.layout.owner.push_back(int(p * size_t(comm.size()) / G.layout.size()));
  return G;
}

LevelData rhs(const Args& a, const Grid& G, const Comm& comm) {
  const double pi = 3.14159265358979323846;
  LevelData f("f", G.layout, G.geom, 1, IntVect{}, comm.rank());
  for (size_t p = 0; p < G.layout.size(); ++p) {
    if (!f.owns(p)) continue;
    auto h = Kokkos::create_mirror_view(f[p].data);
    const Box& b = G.layout.boxes[p];
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
          const double x = G.geom.center(0, i), y = G.geom.center(1, j),
                       z = G.geom.center(2, k);
          h(0, k - b.lo[2], j - b.lo[1], i - b.lo[0]) =
              a.periodic
                  ? std::sin(2 * pi * x) * std::sin(2 * pi * y) * std::sin(2 * pi * z)
                  : -3 * pi * pi * std::sin(pi * x) * std::sin(pi * y) * std::sin(pi * z);
        }
    Kokkos::deep_copy(f[p].data, h);
  }
  return f;
}

MgConfig config(const Args& a) {
  MgConfig cfg;
  cfg.rtol = a.rtol;
  cfg.f_cycle = a.f_cycle;
  cfg.pre_smooth = a.pre;
  cfg.post_smooth = a.post;
  cfg.omega = a.omega;
  cfg.level_cycles = a.level_cycles;
  cfg.verbose = false;
  return cfg;
}

PoissonBc dirichlet_zero() {
  PoissonBc bc;
  for (int d = 0; d < 3; ++d)
    bc.lo[d] = bc.hi[d] = {BcKind::dirichlet, 0.0};
  return bc;
}

LevelGeom cube(const Args& a, int n) {
  LevelGeom g;
  g.dim = 3;
  g.domain = Box{{0, 0, 0}, {n - 1, n - 1, n - 1}};
  for (int d = 0; d < 3; ++d) {
    g.dx[d] = 1.0 / n;
    g.periodic[d] = a.periodic;
  }
  return g;
}

void run(const Args& a, int n, const Comm& comm) {
  const Grid G = level(cube(a, n), cube(a, n).domain, a.max_grid, comm);
  LevelData phi("phi", G.layout, G.geom, 1, IntVect::uniform(1), comm.rank());
  const LevelData f = rhs(a, G, comm);
  Multigrid mg(G.layout, G.geom, dirichlet_zero(), config(a), comm);
  std::vector<double> secs, cycles, rel_max;
  for (int r = 0; r < a.repeats; ++r) {
    phi.set_val(0.0);
    comm.barrier();
    const SolveReport rep = mg.solve(phi, f);
    secs.push_back(rep.seconds);
    cycles.push_back(rep.cycles);
    rel_max.push_back(rep.final_residual / rep.rhs_norm);
  }
  const double ncells = double(n) * n * n;
  const double t = median(secs), c = median(cycles);
  if (comm.rank() == 0)
    fmt::print(
        "patchwork_mg bc={} n={} ranks={} max_grid={} cycle={} smooth={}+{} omega={} "
        "grids={} cycles={:.0f} "
        "s_per_cycle={:.4g} total_s={:.4g} cells_cycles_per_s={:.3e} "
        "rel_residual_max={:.2e}\n",
        a.periodic ? "periodic" : "dirichlet", n, comm.size(),
        G.layout.boxes[0].size()[0], a.f_cycle ? "F" : "V", a.pre, a.post,
        a.omega == 0.0 ? 1.3 : a.omega, mg.num_grids(), c, t / c, t, ncells * c / t,
        median(rel_max));
}

/// n^3 and a refined level over the central half: the composite solve and the solve
/// level by level, from phi = 0 each time.
void run_refined(const Args& a, int n, const Comm& comm) {
  const LevelGeom g0 = cube(a, n);
  const IntVect r = IntVect::uniform(2);
  const Box half{IntVect::uniform(n / 4), IntVect::uniform(3 * n / 4 - 1)};
  const std::vector<Grid> grids = {
      level(g0, g0.domain, a.max_grid, comm),
      level(g0.refined(r), refine(half, r), a.max_grid, comm)};
  std::vector<LevelData> phi, f;
  std::vector<CompositeLevel> levels;
  double ncells = 0;
  for (const Grid& G : grids) {
    phi.emplace_back("phi", G.layout, G.geom, 1, IntVect::uniform(1), comm.rank());
    f.push_back(rhs(a, G, comm));
    levels.push_back({G.layout, G.geom, r, G.granule});
    ncells += double(num_cells(G.layout.boxes));
  }
  const PoissonBc bc = dirichlet_zero();
  const MgConfig cfg = config(a);
  CompositePoisson composite(levels, bc, cfg, comm);
  Multigrid mg0(grids[0].layout, grids[0].geom, bc, cfg, comm);
  Multigrid mg1(grids[1].layout, grids[1].geom, bc, cfg, comm, grids[1].granule);
  for (const bool comp : {true, false}) {
    std::vector<double> secs, cycles, rel_max;
    for (int rep = 0; rep < a.repeats; ++rep) {
      for (LevelData& p : phi)
        p.set_val(0.0);
      comm.barrier();
      SolveReport s;
      if (comp) {
        s = composite.solve({&phi[0], &phi[1]}, {&f[0], &f[1]});
      } else {
        const double start = MPI_Wtime();
        const SolveReport s0 = mg0.solve(phi[0], f[0]);
        phi[1].fill_from_coarse(phi[0], phi[0], 1.0, r, {Interp::quadratic}, bc.as_bcs(),
                                comm);
        s = mg1.solve(phi[1], f[1]);
        s.cycles += s0.cycles;
        s.final_residual = std::max(s.final_residual, s0.final_residual);
        s.rhs_norm = std::max(s.rhs_norm, s0.rhs_norm);
        Kokkos::fence();
        s.seconds = comm.max(MPI_Wtime() - start);
      }
      secs.push_back(s.seconds);
      cycles.push_back(s.cycles);
      rel_max.push_back(s.final_residual / s.rhs_norm);
    }
    const double t = median(secs), c = median(cycles);
    if (comm.rank() == 0)
      fmt::print(
          "{} bc={} n={} ranks={} cells={:.0f} cycles={:.0f} s_per_cycle={:.4g} "
          "total_s={:.4g} cells_cycles_per_s={:.3e} rel_residual_max={:.2e}\n",
          comp ? "patchwork_composite" : "patchwork_levels",
          a.periodic ? "periodic" : "dirichlet", n, comm.size(), ncells, c, t / c, t,
          ncells * c / t, median(rel_max));
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 0, rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);  // takes its own arguments out of argv first
    Args a;
    code = parse(argc, argv, rank, a);
    if (code < 0) {
      code = 0;
      try {
        for (int n : a.n) {
          if (a.refined)
            run_refined(a, n, pw::Comm(MPI_COMM_WORLD));
          else
            run(a, n, pw::Comm(MPI_COMM_WORLD));
        }
      } catch (const std::exception& e) {
        fmt::print(stderr, "bench_poisson: error: {}\n", e.what());
        code = 2;
      }
    }
  }
  MPI_Finalize();
  return code;
}
