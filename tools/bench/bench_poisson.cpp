// bench_poisson [--n N ...] [--max-grid M] [--repeats R] [--rtol T] [--bc
// periodic|dirichlet]
// [--cycle V|F]: the multigrid solver on a uniform n^3 grid of the unit cube (patches of
// M^3), solving lap(phi) = f to |f - L phi|_max <= T |f|_max from phi = 0. periodic:
// f = sin(2 pi x) sin(2 pi y) sin(2 pi z); dirichlet: phi = 0 on the faces and
// f = -3 pi^2 sin(pi x) sin(pi y) sin(pi z) -- the problems of bench_hypre_poisson.
// Prints per n the median over repeats of: V-cycles, seconds per cycle, total seconds
// (solve only; the grids are built once, as a time stepper would), cell-cycles per
// second, and the final relative residual |f - L phi|_max / |f|_max.
#include <fmt/format.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

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
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        throw std::runtime_error("bench_poisson: " + s + " needs a value");
      return argv[++i];
    };
    if (s == "--n") {
      a.n.push_back(std::stoi(next()));
      while (i + 1 < argc && argv[i + 1][0] != '-')
        a.n.push_back(std::stoi(argv[++i]));
    } else if (s == "--max-grid") {
      a.max_grid = std::stoi(next());
    } else if (s == "--repeats") {
      a.repeats = std::stoi(next());
    } else if (s == "--rtol") {
      a.rtol = std::stod(next());
    } else if (s == "--bc") {
      a.periodic = next() == "periodic";
    } else if (s == "--smooth") {
      a.pre = std::stoi(next());
      a.post = std::stoi(next());
    } else if (s == "--omega") {
      a.omega = std::stod(next());
    } else if (s == "--cycle") {
      a.f_cycle = next() == "F";
    } else {
      throw std::runtime_error("bench_poisson: unknown argument " + s);
    }
  }
  if (a.n.empty()) a.n = {64, 128};
  return a;
}

void run(const Args& a, int n, const pw::Comm& comm) {
  using namespace pw;
  const double pi = 3.14159265358979323846;
  LevelGeom g;
  g.dim = 3;
  g.domain = Box{{0, 0, 0}, {n - 1, n - 1, n - 1}};
  for (int d = 0; d < 3; ++d) {
    g.dx[d] = 1.0 / n;
    g.periodic[d] = a.periodic;
  }
  LevelLayout L;
  const int m = std::min(a.max_grid, n);
  L.boxes = chop(g.domain, IntVect::uniform(m), IntVect::uniform(std::min(8, m)));
  for (size_t p = 0; p < L.size(); ++p)  // contiguous blocks of patches per rank
    L.owner.push_back(int(p * size_t(comm.size()) / L.size()));
  LevelData phi("phi", L, g, 1, IntVect::uniform(1), comm.rank());
  LevelData f("f", L, g, 1, IntVect{}, comm.rank());
  for (size_t p = 0; p < L.size(); ++p) {
    if (!f.owns(p)) continue;
    auto h = Kokkos::create_mirror_view(f[p].data);
    const Box& b = L.boxes[p];
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
          const double x = g.center(0, i), y = g.center(1, j), z = g.center(2, k);
          h(0, k - b.lo[2], j - b.lo[1], i - b.lo[0]) =
              a.periodic
                  ? std::sin(2 * pi * x) * std::sin(2 * pi * y) * std::sin(2 * pi * z)
                  : -3 * pi * pi * std::sin(pi * x) * std::sin(pi * y) * std::sin(pi * z);
        }
    Kokkos::deep_copy(f[p].data, h);
  }
  PoissonBc bc;
  for (int d = 0; d < 3; ++d)
    bc.lo[d] = bc.hi[d] = {BcKind::dirichlet, 0.0};
  MgConfig cfg;
  cfg.rtol = a.rtol;
  cfg.f_cycle = a.f_cycle;
  cfg.pre_smooth = a.pre;
  cfg.post_smooth = a.post;
  cfg.omega = a.omega;
  cfg.verbose = false;
  Multigrid mg(L, g, bc, cfg, comm);
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
        "s_per_cycle={:.4f} total_s={:.3f} cells_cycles_per_s={:.3e} "
        "rel_residual_max={:.2e}\n",
        a.periodic ? "periodic" : "dirichlet", n, comm.size(), m, a.f_cycle ? "F" : "V",
        a.pre, a.post, a.omega == 0.0 ? 1.3 : a.omega, mg.num_grids(), c, t / c, t,
        ncells * c / t, median(rel_max));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    try {
      const Args a = parse(argc, argv);
      for (int n : a.n)
        run(a, n, pw::Comm(MPI_COMM_WORLD));
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}\n", e.what());
      code = 2;
    }
  }
  MPI_Finalize();
  return code;
}
