// Reference for the Poisson benchmark (issue 11): hypre's PFMG on the uniform problems
// that Patchwork's own multigrid solves, one machine-readable line per (bc, n).
//
// Problem: del^2 phi = f on the unit cube [0,1]^3, n^3 cells, cell-centred, h = 1/n,
// the 7-point Laplacian. hypre wants a positive operator, so the matrix is -del^2_h
// (6/h^2 on the diagonal, -1/h^2 off it) and the right-hand side is -f: the relative
// residual ||b - Ax|| / ||b|| is the same number as for del^2 phi = f.
//   --bc periodic:  f = sin(2 pi x) sin(2 pi y) sin(2 pi z) at cell centres (mean zero to
//                   rounding), periodic in x, y, z; exact phi = -f / (12 pi^2) + const.
//   --bc dirichlet: phi = 0 on the faces, folded into the boundary cells' stencil (ghost
//                   = -inside: the outward coefficient is dropped and the diagonal gains
//                   1/h^2); f = -3 pi^2 sin(pi x) sin(pi y) sin(pi z), exact phi =
//                   sin(pi x) sin(pi y) sin(pi z).
// max_error is against the exact solution (periodic: both with their mean removed), so it
// is the discretisation error, O(h^2), once the solve has converged.
//
// The periodic operator is singular (constants are its null space). PFMG copes: it checks
// the coarsest grid (one cell) for a zero diagonal and then skips relaxation there, so on
// a mean-zero right-hand side it converges as fast as on a regular problem (11-12
// V-cycles to 1e-10). Nothing is pinned; max_error compares with the means removed.
//
// Solvers: --solver pfmg (default), PFMG V-cycles alone, as the issue asks; --solver pcg,
// CG preconditioned by one PFMG V-cycle, how hypre is often used. Default PFMG settings
// (each an option), chosen from the cycle counts and times of relax 1/2/3, rap 0/1, 1-2
// sweeps, skip 0/1 at n = 32..128 (tools/README.md):
//   - relax 3, red-black Gauss-Seidel (forces the non-Galerkin 7-point coarse operators,
//     rap 1, cheaper per cycle than Galerkin's): the fewest cycles at one sweep each
//     and the fastest periodic solves we measured;
//   - 1 pre- and 1 post-sweep: more sweeps cut cycles (128^3 periodic: 11 -> 6 with 2+2)
//     but not time;
//   - skip_relax 0 on periodic (skipping levels costs 11 -> 16 cycles at 128^3), 1 on
//     Dirichlet, where relax 3 without skipping degrades with n (27, 50 cycles at 64^3,
//     128^3; with skipping 19, 26);
//   - under CG, relax 2 (symmetric, as CG needs) and skip_relax 1.
//
// Ranks own equal bricks (MPI_Dims_create). Times are MPI_Wtime after a barrier, the
// slowest rank's, medians over --repeats; setup_s is PFMG's setup (coarse operators), not
// the matrix assembly. Each repeat starts from x = 0 with a fresh solver.
#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <HYPRE_struct_ls.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "cli/cli_numbers.hpp"

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Options {
  std::vector<std::string> bcs{"periodic"};
  std::vector<int> ns{64};
  std::string solver = "pfmg";
  double tol = 1e-10;
  int repeats = 3;
  int max_cycles = 100;
  int relax = -1;  // -1: the best for the solver and bc (see the top of the file)
  int rap = 1;
  int pre = 1;
  int post = 1;
  int skip = -1;
};

// The tuned defaults for one solve: relax 3 for PFMG alone, 2 (symmetric) as a CG
// preconditioner; skip_relax only on the Dirichlet problem or under CG.
Options resolved(Options o, const std::string& bc) {
  const bool pcg = o.solver == "pcg";
  if (o.relax < 0) o.relax = pcg ? 2 : 3;
  if (o.skip < 0) o.skip = pcg || bc == "dirichlet" ? 1 : 0;
  return o;
}

// This rank's brick of the n^3 cells: inclusive lower and upper corners.
struct Brick {
  std::array<int, 3> lo, hi;
  int size(int d) const { return hi[d] - lo[d] + 1; }
  long cells() const { return long(size(0)) * size(1) * size(2); }
};

Brick my_brick(int n, MPI_Comm comm) {
  int size, rank;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(size, 3, dims);
  const int coord[3] = {rank % dims[0], rank / dims[0] % dims[1],
                        rank / dims[0] / dims[1]};
  Brick b;
  for (int d = 0; d < 3; ++d) {
    b.lo[d] = coord[d] * n / dims[d];
    b.hi[d] = (coord[d] + 1) * n / dims[d] - 1;
  }
  return b;
}

// Calls f(i, j, k, index) over the brick in hypre's box order (i fastest).
template <class F>
void for_cells(const Brick& b, F f) {
  long m = 0;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i)
        f(i, j, k, m++);
}

struct Problem {
  bool periodic;
  int n;
  double h() const { return 1.0 / n; }
  double x(int i) const { return (i + 0.5) * h(); }
  double rhs(int i, int j, int k) const {  // f
    if (periodic)
      return std::sin(2 * kPi * x(i)) * std::sin(2 * kPi * x(j)) *
             std::sin(2 * kPi * x(k));
    return -3 * kPi * kPi * exact(i, j, k);
  }
  double exact(int i, int j, int k) const {
    if (periodic) return -rhs(i, j, k) / (12 * kPi * kPi);
    return std::sin(kPi * x(i)) * std::sin(kPi * x(j)) * std::sin(kPi * x(k));
  }
};

// The assembled system; hypre objects are freed by the destructor.
struct System {
  HYPRE_StructGrid grid = nullptr;
  HYPRE_StructStencil stencil = nullptr;
  HYPRE_StructMatrix A = nullptr;
  HYPRE_StructVector b = nullptr, x = nullptr;
  System(const Problem& p, const Brick& brick, MPI_Comm comm);
  ~System() {
    HYPRE_StructVectorDestroy(x);
    HYPRE_StructVectorDestroy(b);
    HYPRE_StructMatrixDestroy(A);
    HYPRE_StructStencilDestroy(stencil);
    HYPRE_StructGridDestroy(grid);
  }
  System(const System&) = delete;
  System& operator=(const System&) = delete;
};

System::System(const Problem& p, const Brick& brick, MPI_Comm comm) {
  int lo[3] = {brick.lo[0], brick.lo[1], brick.lo[2]};
  int hi[3] = {brick.hi[0], brick.hi[1], brick.hi[2]};
  HYPRE_StructGridCreate(comm, 3, &grid);
  HYPRE_StructGridSetExtents(grid, lo, hi);
  if (p.periodic) {
    int period[3] = {p.n, p.n, p.n};
    HYPRE_StructGridSetPeriodic(grid, period);
  }
  HYPRE_StructGridAssemble(grid);

  // Entry 0 is the centre; 2d+1 and 2d+2 the low and high neighbours in direction d.
  int offsets[7][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                       {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
  HYPRE_StructStencilCreate(3, 7, &stencil);
  for (int e = 0; e < 7; ++e)
    HYPRE_StructStencilSetElement(stencil, e, offsets[e]);

  HYPRE_StructMatrixCreate(comm, grid, stencil, &A);
  HYPRE_StructMatrixSetSymmetric(A, 0);
  HYPRE_StructMatrixInitialize(A);
  const double c = 1.0 / (p.h() * p.h());
  std::vector<double> values(7 * brick.cells());
  for_cells(brick, [&](int i, int j, int k, long m) {
    double* v = &values[7 * m];
    v[0] = 6 * c;
    const int ijk[3] = {i, j, k};
    for (int d = 0; d < 3; ++d)
      for (int s = 0; s < 2; ++s) {
        const bool wall = !p.periodic && ijk[d] == (s == 0 ? 0 : p.n - 1);
        v[1 + 2 * d + s] = wall ? 0.0 : -c;  // ghost = -inside: -c * (-phi) joins the
        if (wall) v[0] += c;                 // diagonal
      }
  });
  int entries[7] = {0, 1, 2, 3, 4, 5, 6};
  HYPRE_StructMatrixSetBoxValues(A, lo, hi, 7, entries, values.data());
  HYPRE_StructMatrixAssemble(A);

  HYPRE_StructVectorCreate(comm, grid, &b);
  HYPRE_StructVectorCreate(comm, grid, &x);
  HYPRE_StructVectorInitialize(b);
  HYPRE_StructVectorInitialize(x);
  values.resize(brick.cells());
  for_cells(brick, [&](int i, int j, int k, long m) { values[m] = -p.rhs(i, j, k); });
  HYPRE_StructVectorSetBoxValues(b, lo, hi, values.data());
  HYPRE_StructVectorAssemble(b);
}

void set_zero(HYPRE_StructVector v, const Brick& brick) {
  int lo[3] = {brick.lo[0], brick.lo[1], brick.lo[2]};
  int hi[3] = {brick.hi[0], brick.hi[1], brick.hi[2]};
  std::vector<double> zeros(brick.cells(), 0.0);
  HYPRE_StructVectorSetBoxValues(v, lo, hi, zeros.data());
  HYPRE_StructVectorAssemble(v);
}

// Max |phi - exact| over all ranks; for periodic, both means removed.
double max_error(const Problem& p, const Brick& brick, HYPRE_StructVector x,
                 MPI_Comm comm) {
  int lo[3] = {brick.lo[0], brick.lo[1], brick.lo[2]};
  int hi[3] = {brick.hi[0], brick.hi[1], brick.hi[2]};
  std::vector<double> phi(brick.cells());
  HYPRE_StructVectorGetBoxValues(x, lo, hi, phi.data());
  double sums[2] = {0, 0}, mean[2] = {0, 0};
  if (p.periodic) {
    for_cells(brick, [&](int i, int j, int k, long m) {
      sums[0] += phi[m];
      sums[1] += p.exact(i, j, k);
    });
    MPI_Allreduce(sums, mean, 2, MPI_DOUBLE, MPI_SUM, comm);
    for (double& s : mean)
      s /= double(p.n) * p.n * p.n;
  }
  double err = 0;
  for_cells(brick, [&](int i, int j, int k, long m) {
    err = std::max(err, std::abs((phi[m] - mean[0]) - (p.exact(i, j, k) - mean[1])));
  });
  double global = 0;
  MPI_Allreduce(&err, &global, 1, MPI_DOUBLE, MPI_MAX, comm);
  return global;
}

double slowest(double local, MPI_Comm comm) {
  double t = 0;
  MPI_Allreduce(&local, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Solves one (bc, n) --repeats times and prints its line; returns false if it did not
// reach the tolerance.
bool bench(const Options& given, const std::string& bc, int n, MPI_Comm comm) {
  const Options o = resolved(given, bc);
  int rank, ranks;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const Problem p{bc == "periodic", n};
  const Brick brick = my_brick(n, comm);
  System sys(p, brick, comm);
  std::vector<double> setup_s, solve_s, total_s;
  int cycles = 0;
  double rel_residual = 0;
  for (int r = 0; r < o.repeats; ++r) {
    set_zero(sys.x, brick);
    // PFMG alone to --tol, or one PFMG V-cycle (zero guess) preconditioning CG.
    const bool pcg = o.solver == "pcg";
    HYPRE_StructSolver pfmg, cg = nullptr;
    HYPRE_StructPFMGCreate(comm, &pfmg);
    HYPRE_StructPFMGSetTol(pfmg, pcg ? 0.0 : o.tol);
    HYPRE_StructPFMGSetMaxIter(pfmg, pcg ? 1 : o.max_cycles);
    HYPRE_StructPFMGSetRelaxType(pfmg, o.relax);
    HYPRE_StructPFMGSetRAPType(pfmg, o.rap);
    HYPRE_StructPFMGSetNumPreRelax(pfmg, o.pre);
    HYPRE_StructPFMGSetNumPostRelax(pfmg, o.post);
    HYPRE_StructPFMGSetSkipRelax(pfmg, o.skip);
    HYPRE_StructPFMGSetZeroGuess(pfmg);
    HYPRE_StructPFMGSetLogging(pfmg, 1);  // needed for the final residual norm
    if (pcg) {
      HYPRE_StructPCGCreate(comm, &cg);
      HYPRE_StructPCGSetTol(cg, o.tol);
      HYPRE_StructPCGSetMaxIter(cg, o.max_cycles);
      HYPRE_StructPCGSetTwoNorm(cg, 1);  // stop on ||r|| / ||b||, as PFMG does
      HYPRE_StructPCGSetLogging(cg, 1);
      HYPRE_StructPCGSetPrecond(cg, HYPRE_StructPFMGSolve, HYPRE_StructPFMGSetup, pfmg);
    }
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    if (pcg)
      HYPRE_StructPCGSetup(cg, sys.A, sys.b, sys.x);
    else
      HYPRE_StructPFMGSetup(pfmg, sys.A, sys.b, sys.x);
    const double setup = slowest(MPI_Wtime() - t0, comm);
    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    if (pcg)
      HYPRE_StructPCGSolve(cg, sys.A, sys.b, sys.x);
    else
      HYPRE_StructPFMGSolve(pfmg, sys.A, sys.b, sys.x);
    const double solve = slowest(MPI_Wtime() - t0, comm);
    if (pcg) {
      HYPRE_StructPCGGetNumIterations(cg, &cycles);
      HYPRE_StructPCGGetFinalRelativeResidualNorm(cg, &rel_residual);
      HYPRE_StructPCGDestroy(cg);
    } else {
      HYPRE_StructPFMGGetNumIterations(pfmg, &cycles);
      HYPRE_StructPFMGGetFinalRelativeResidualNorm(pfmg, &rel_residual);
    }
    HYPRE_StructPFMGDestroy(pfmg);
    setup_s.push_back(setup);
    solve_s.push_back(solve);
    total_s.push_back(setup + solve);
  }
  const double err = max_error(p, brick, sys.x, comm);
  const bool converged = rel_residual <= o.tol;
  const double solve = median(solve_s);
  if (rank == 0) {
    fmt::print(
        "hypre_{} bc={} n={} ranks={} cycles={} setup_s={:.4g} solve_s={:.4g} "
        "total_s={:.4g} s_per_cycle={:.4g} rel_residual={:.3g} converged={} "
        "max_error={:.3g} cells_cycles_per_s={:.3g} relax={} rap={} pre={} post={} "
        "skip={}\n",
        o.solver, bc, n, ranks, cycles, median(setup_s), solve, median(total_s),
        solve / cycles, rel_residual, converged ? "yes" : "no", err,
        double(n) * n * n * cycles / solve, o.relax, o.rap, o.pre, o.post, o.skip);
    if (!converged)
      fmt::print(stderr,
                 "bench_hypre_poisson: {} bc={} n={}: did not reach --tol {:g} in {} "
                 "cycles (relative residual {:.3g})\n",
                 o.solver, bc, n, o.tol, cycles, rel_residual);
    std::fflush(stdout);
  }
  return converged;
}

int run(int argc, char** argv, MPI_Comm comm) {
  Options o;
  CLI::App cli{
      "bench_hypre_poisson: hypre PFMG on the uniform 3D Poisson problems of Patchwork's "
      "solver benchmark (reference figures; one line per bc and n)"};
  cli.add_option("--bc", o.bcs, "periodic|dirichlet (several: one line each)")
      ->check(CLI::IsMember({"periodic", "dirichlet"}))
      ->capture_default_str();
  cli.add_option("--n", o.ns, "cells per side (several: one line each)")
      ->transform(pw::cli::int_in(2, 4096))
      ->capture_default_str();
  cli.add_option("--solver", o.solver,
                 "pfmg: PFMG V-cycles alone; pcg: CG preconditioned by one PFMG V-cycle")
      ->check(CLI::IsMember({"pfmg", "pcg"}))
      ->capture_default_str();
  cli.add_option("--tol", o.tol, "relative residual ||r||/||b||")
      ->check(pw::cli::number<double>(
          "a number in (0, 1)", [](double t) { return t > 0 && t < 1; }, "in (0, 1)"))
      ->capture_default_str();
  cli.add_option("--repeats", o.repeats, "solves per line; the median is printed")
      ->transform(pw::cli::int_in(1, 1000))
      ->capture_default_str();
  cli.add_option("--max-cycles", o.max_cycles, "V-cycle limit")
      ->transform(pw::cli::int_in(1, 100000))
      ->capture_default_str();
  cli.add_option("--relax", o.relax,
                 "0 Jacobi, 1 weighted Jacobi, 2 symmetric red-black GS, 3 red-black GS "
                 "(default: 3 for pfmg, 2 for pcg)")
      ->transform(pw::cli::int_in(0, 3));
  cli.add_option("--rap", o.rap,
                 "0 Galerkin, 1 non-Galerkin 7-point (forced by relax 2/3)")
      ->transform(pw::cli::int_in(0, 1))
      ->capture_default_str();
  cli.add_option("--pre", o.pre, "pre-smoothing sweeps")
      ->transform(pw::cli::int_in(0, 10))
      ->capture_default_str();
  cli.add_option("--post", o.post, "post-smoothing sweeps")
      ->transform(pw::cli::int_in(0, 10))
      ->capture_default_str();
  cli.add_option("--skip", o.skip,
                 "1: relax only after coarsening in all directions (default: 1 for "
                 "dirichlet or pcg, else 0)")
      ->transform(pw::cli::int_in(0, 1));
  int rank;
  MPI_Comm_rank(comm, &rank);
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (rank != 0) return e.get_exit_code() == 0 ? 0 : 2;
    return cli.exit(e) == 0 ? 0 : 2;
  }
  bool all_converged = true;
  for (const std::string& bc : o.bcs)
    for (int n : o.ns)
      all_converged = bench(o, bc, n, comm) && all_converged;
  return all_converged ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  HYPRE_Init();
  const int code = run(argc, argv, MPI_COMM_WORLD);
  HYPRE_Finalize();
  MPI_Finalize();
  return code;
}
