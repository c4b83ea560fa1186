// Fields and grids for the tests of the multigrid launches (tests/solver/test_mg_ops.cpp
// on one rank, mpi_test_mg_ops.cpp across ranks): fields whose ghosts start with values
// no exchange gives, bitwise comparison with the ghosts, and a grid with its coarsening.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "solver/mg_ops.hpp"
#include "tests/fab_testing.hpp"

namespace pw::testing {

/// A field of one component on layout, `ghost` cells wide: smooth inside, and in its
/// ghosts values no exchange gives (100 + the patch). Rank `rank` sets its own patches.
inline LevelData ghosted_field(const std::string& label, const LevelLayout& layout,
                               const LevelGeom& g, int seed, int ghost, int rank = 0) {
  LevelData u(label, layout, g, 1, IntVect::in_dims(g.dim, ghost, 0), rank);
  for (size_t p = 0; p < layout.size(); ++p)
    if (u.owns(p))
      set(u[p], [&](int i, int j, int k, int) {
        return std::sin(0.37 * i + 0.11 * seed) * std::cos(0.23 * j - 0.7 * k + seed) +
               (u.box(p).contains(IntVect{i, j, k}) ? 0.0 : 100.0 + p);
      });
  return u;
}

/// Every cell of a and b (ghosts included) holds the same bits, on the patches this
/// rank owns.
inline void expect_same_bits(const LevelData& a, const LevelData& b) {
  for (size_t p = 0; p < a.size(); ++p) {
    if (!a.owns(p)) continue;
    const HostFab ha(a[p]), hb(b[p]);
    const Box& bx = a[p].box;
    for (int k = bx.lo[2]; k <= bx.hi[2]; ++k)
      for (int j = bx.lo[1]; j <= bx.hi[1]; ++j)
        for (int i = bx.lo[0]; i <= bx.hi[0]; ++i) {
          const double x = ha(i, j, k), y = hb(i, j, k);
          ASSERT_EQ(std::memcmp(&x, &y, sizeof x), 0)
              << "patch " << p << " cell " << i << " " << j << " " << k;
        }
  }
}

/// A level of `dim` dimensions, 32 cells wide, walls in x and y (Dirichlet and Neumann,
/// with values; corners where they meet) and periodic in z, cut into patches 8 wide
/// (`shape`: all of them, every third left out as on a refined level, or one patch over
/// the domain), and its coarsening by 2; patch p on rank p % ranks of both.
struct TwoGrids {
  enum Shape { covering, refined, one_patch };
  LevelGeom g, cg;
  LevelLayout fine, crse;
  PoissonBc bc;
  PoissonStencil s;
  TwoGrids(int dim, Shape shape, int ranks = 1) : g(unit_geom(dim, 32)) {
    g.periodic[0] = g.periodic[1] = false;
    cg = g;
    cg.domain = coarsen(g.domain, IntVect::in_dims(dim, 2, 1));
    for (int d = 0; d < dim; ++d)
      cg.dx[d] = 2 * g.dx[d];
    const BoxList all = chop(g.domain, IntVect::in_dims(dim, 8, 1), IntVect::uniform(4));
    for (size_t p = 0; p < all.size(); ++p)
      if (shape == covering || (shape == refined && p % 3 != 0))
        fine.boxes.push_back(all[p]);
    if (shape == one_patch) fine.boxes = {g.domain};
    for (size_t p = 0; p < fine.boxes.size(); ++p)
      fine.owner.push_back(int(p % size_t(ranks)));
    crse = fine;
    for (Box& b : crse.boxes)
      b = coarsen(b, IntVect::in_dims(dim, 2, 1));
    bc.lo[0] = {BcKind::dirichlet, 0.25};
    bc.hi[0] = {BcKind::neumann, -0.5};
    bc.lo[1] = {BcKind::neumann, 0.75};
    bc.hi[1] = {BcKind::dirichlet, -0.125};
    s = mg::stencil(g, bc);
  }
};

/// One red-black sweep of u (the exchange of the colour read, then the sweep).
inline void sweep_with_exchanges(LevelData& u, const LevelData& f,
                                 const PoissonStencil& s, const Comm& comm) {
  const BoxSet rows = mg::colour_rows(u);
  for (int color = 0; color < 2; ++color) {
    u.fill_boundary(comm, true, 1 - color);
    mg::gauss_seidel(u, f, rows, color, s, 1.3);
  }
}

}  // namespace pw::testing
