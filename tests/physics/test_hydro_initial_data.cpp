// The initial data's shortcut: a cell whose sub-cell samples all lie on one side of a
// front takes that side's average, computed once, where it summed its samples; the
// result must be the samples' sum bit for bit, and the shortcut must be taken exactly
// where the samples do not straddle the front (fronts placed on samples included).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <utility>

#include "amr/fab.hpp"
#include "physics/hydro_problems.hpp"

using namespace pw;

// A named namespace: CUDA's extended lambdas may fail in functions of internal linkage.
namespace hydro_initial_data_test {

constexpr double kGamma = 1.4;

/// The sum cell_average takes over every sample, as it took it for every cell before
/// the shortcut; and which sides the samples lie on (bit 0: side 0, bit 1: side 1).
void brute_force(const HydroProblem& p, const LevelGeom& g, const int idx[3], double t,
                 int n, double* out, int* sides) {
  const int nv = hydro_index::nbase + p.nscalars;
  const int nk = g.dim == 3 ? n : 1;
  double sum[hydro_index::max_vars] = {};
  *sides = 0;
  for (int c = 0; c < n * n * nk; ++c) {
    const int sub[3] = {c % n, (c / n) % n, c / (n * n)};
    double x[3], w[hydro_index::max_vars], uc[hydro_index::max_vars];
    for (int d = 0; d < 3; ++d)
      x[d] = sample_coordinate(g, d, idx[d], sub[d], n);
    p.primitive(x, g.dim, kGamma, t, w);
    p.conserved(w, kGamma, uc);
    for (int v = 0; v < nv; ++v)
      sum[v] += uc[v];
    *sides |=
        w[hydro_index::rho] == p.state[0][0] ? 1 : 2;  // the sides' densities differ
  }
  for (int v = 0; v < nv; ++v)
    out[v] = sum[v] * (1.0 / (n * n * nk));
}

/// Over every cell of a block (12^dim cells) cut by p's front: the shortcut is taken
/// exactly where the samples lie on one side; and cell_average, run in a kernel as the
/// module runs it, gives every cell the samples' sum bit for bit. Returns the cells the
/// shortcut took.
int check_cells(const HydroProblem& p, const LevelGeom& g, double t) {
  const int n = kInitialSamples;
  const HydroProblem::SideAverages sides = p.side_averages(g.dim, kGamma, n);
  const int nv = hydro_index::nbase + p.nscalars;
  const Box block{{-2, -2, g.dim == 3 ? -2 : 0}, {9, 9, g.dim == 3 ? 9 : 0}};
  Fab fab("initial data", block, nv);
  const Array4 u = fab.array();
  for_each_cell(
      "test::cell_average", block, KOKKOS_LAMBDA(int i, int j, int k) {
        p.cell_average(g, i, j, k, kGamma, t, n, sides, u);
      });
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fab.data);
  int taken = 0;
  for (int k = block.lo[2]; k <= block.hi[2]; ++k)
    for (int j = block.lo[1]; j <= block.hi[1]; ++j)
      for (int i = block.lo[0]; i <= block.hi[0]; ++i) {
        const int idx[3] = {i, j, k};
        double want[hydro_index::max_vars];
        int seen = 0;
        brute_force(p, g, idx, t, n, want, &seen);
        const int side = p.uniform_side(g, idx, t, n);
        EXPECT_EQ(side, seen == 1   ? 0
                        : seen == 2 ? 1
                                    : -1)
            << "cell " << i << " " << j << " " << k;
        if (side >= 0) ++taken;
        for (int v = 0; v < nv; ++v) {
          const double a = got(v, k - block.lo[2], j - block.lo[1], i - block.lo[0]);
          EXPECT_EQ(std::memcmp(&a, &want[v], sizeof(double)), 0)
              << "cell " << i << " " << j << " " << k << " variable " << v << ": " << a
              << " against the samples' " << want[v];
        }
      }
  return taken;
}

HydroProblem shockpool(const double normal[3], int nscalars) {
  HydroProblem p;
  p.kind = HydroProblemKind::shockpool;
  const double len =
      std::sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
  for (int d = 0; d < 3; ++d)
    p.normal[d] = normal[d] / len;
  p.state[0][0] = 3.0, p.state[0][1] = 1.9, p.state[0][2] = 7.1;
  p.state[1][0] = 1.0, p.state[1][1] = 0.0, p.state[1][2] = 1.0 / kGamma;
  p.speed = 2.5;
  p.nscalars = nscalars;
  return p;
}

LevelGeom geometry(int dim) {
  LevelGeom g;
  g.dim = dim;
  for (int d = 0; d < 3; ++d)
    g.dx[d] = 1.0 / 48, g.prob_lo[d] = -0.03;
  return g;
}

}  // namespace hydro_initial_data_test

using namespace hydro_initial_data_test;

TEST(HydroInitialData, CellsAFrontMissesTakeTheirSidesAverageBitForBit) {
  const double normals[][3] = {{1.0, 0.5, 0.25}, {1.0, 0.0, 0.0}, {-0.3, 1.0, 0.7}};
  const int n = kInitialSamples;
  for (int dim : {2, 3})
    for (const auto& normal : normals) {
      const HydroProblem p = shockpool(normal, 1);
      const LevelGeom g = geometry(dim);
      // A moving front through the block, then, at t = 0, fronts exactly on a cell's
      // extreme samples (their distances along the normal, summed as primitive sums
      // them), where the bounds decide alone.
      const int cell[3] = {4, 5, 3};
      double lowest_x[3] = {}, highest_x[3] = {};
      for (int d = 0; d < dim; ++d) {
        const int down = p.normal[d] >= 0 ? 0 : n - 1;
        lowest_x[d] = sample_coordinate(g, d, cell[d], down, n);
        highest_x[d] = sample_coordinate(g, d, cell[d], n - 1 - down, n);
      }
      const double lowest = p.along(lowest_x, dim), highest = p.along(highest_x, dim);
      const int cells = dim == 3 ? 12 * 12 * 12 : 12 * 12;
      for (const auto& [at, t] : {std::pair{0.1, 0.01}, {lowest, 0.0}, {highest, 0.0}}) {
        HydroProblem q = p;
        q.position = at - q.speed * t;
        const int taken = check_cells(q, g, t);
        // Most cells lie off a plane: the shortcut is taken, not vacuously checked.
        EXPECT_GT(taken, cells / 2) << dim << "D";
        // (A front on the first samples of a cell may cut none, along an axis.)
        if (at != lowest) EXPECT_LT(taken, cells) << dim << "D";
      }
    }
}

TEST(HydroInitialData, ShockTubeCellsOffTheInterfaceTakeTheirSidesAverage) {
  HydroProblem p;
  p.kind = HydroProblemKind::shock_tube;
  p.axis = 1;
  // States whose conserved sums round (Sod's are exact, and a copy of one sample would
  // pass for the sum).
  p.state[0][0] = 1.1, p.state[0][1] = 0.3, p.state[0][2] = 0.7;
  p.state[1][0] = 0.13, p.state[1][1] = -0.7, p.state[1][2] = 0.11;
  p.nscalars = 1;
  for (int dim : {2, 3}) {
    const LevelGeom g = geometry(dim);
    const int cell[3] = {0, 6, 0};
    const int cells = dim == 3 ? 12 * 12 * 12 : 12 * 12;
    // An interface between samples, then on a cell's first and last samples.
    for (int s : {-1, 0, kInitialSamples - 1}) {
      p.position = s < 0 ? 0.07 : sample_coordinate(g, 1, cell[1], s, kInitialSamples);
      const int taken = check_cells(p, g, 0.0);
      // All but the layer of cells the interface cuts; on a first sample, it cuts none.
      EXPECT_EQ(taken, s == 0 ? cells : cells / 12 * 11) << dim << "D, sample " << s;
    }
  }
}

TEST(HydroInitialData, AUniformFlowTakesItsAverageEverywhere) {
  HydroProblem p;
  p.kind = HydroProblemKind::uniform;
  p.rho0 = 1.3, p.p0 = 0.7;
  p.velocity[0] = 0.3, p.velocity[1] = -1.1, p.velocity[2] = 0.7;
  p.state[0][0] = p.rho0;  // brute_force tells the sides by density: all on side 0
  p.nscalars = 1;
  for (int dim : {2, 3})
    EXPECT_EQ(check_cells(p, geometry(dim), 0.0), dim == 3 ? 12 * 12 * 12 : 12 * 12);
}
