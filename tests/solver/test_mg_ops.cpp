// The multigrid operations that fuse a reduction into another launch give the bits of
// the separate operations they replace, so conjugate gradients take the same steps and
// every recorded Poisson and self-gravity fingerprint stays as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "solver/mg_ops.hpp"
#include "tests/fab_testing.hpp"

using namespace pw;
using pw::testing::HostFab;

namespace {

/// Fields on a 3D level of 4^3 patches of 8^3 cells, walls in x (Dirichlet low,
/// Neumann high) and periodic in y and z.
struct Level {
  LevelGeom g = pw::testing::unit_geom(3, 32);
  LevelLayout layout;
  PoissonStencil s;
  Level() {
    g.periodic[0] = false;
    layout.boxes = chop(g.domain, IntVect::uniform(8), IntVect::uniform(4));
    layout.owner.assign(layout.boxes.size(), 0);
    PoissonBc bc;
    bc.lo[0] = {BcKind::dirichlet, 0.25};
    bc.hi[0] = {BcKind::neumann, -0.5};
    s = mg::stencil(g, bc);
  }
  /// A field with ghosts (one layer) or without, set to a smooth function with a
  /// different phase per seed (values of every sign and many exponents).
  LevelData field(int seed, bool ghosts) const {
    LevelData u("u", layout, g, 1, ghosts ? IntVect::uniform(1) : IntVect{}, 0);
    for (size_t p = 0; p < layout.size(); ++p)
      pw::testing::set(u[p], [&](int i, int j, int k, int) {
        return std::sin(0.37 * i + 0.11 * seed) * std::cos(0.23 * j - 0.7 * k + seed) *
               std::exp(0.05 * (k - i) + 0.1 * seed);
      });
    return u;
  }
};

/// Every cell of a and b (ghosts included) holds the same bits.
void expect_same_bits(const LevelData& a, const LevelData& b) {
  for (size_t p = 0; p < a.size(); ++p) {
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

}  // namespace

TEST(MgOps, LaplacianReturnsTheLargestProductOfItsInputAndOutput) {
  const Level L;
  const LevelData p = L.field(1, true);
  LevelData q = L.field(2, false);
  const double fused = mg::laplacian_max_product(q, p, L.s);
  EXPECT_GT(fused, 0.0);
  EXPECT_EQ(fused, mg::max_abs_product(p, q));
  // The Laplacian itself against the stencil's exact action on a quadratic function,
  // sign and scale included: away from the walls, p = x^2 + 2 y^2 - z^2 (cell centres)
  // has L p = 2 + 4 - 2 = 4, exactly in floating point on this grid (h = 1/32).
  LevelData quad("quad", L.layout, L.g, 1, IntVect::uniform(1), 0);
  const double h = L.g.dx[0];
  for (size_t n = 0; n < L.layout.size(); ++n)
    pw::testing::set(quad[n], [h](int i, int j, int k, int) {
      const double x = (i + 0.5) * h, y = (j + 0.5) * h, z = (k + 0.5) * h;
      return x * x + 2 * y * y - z * z;
    });
  mg::laplacian_max_product(q, quad, L.s);
  for (size_t n = 0; n < L.layout.size(); ++n) {
    const HostFab out(q[n]);
    const Box& b = q[n].box;
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = std::max(b.lo[0], 1); i <= std::min(b.hi[0], 30); ++i)
          ASSERT_EQ(out(i, j, k), 4.0) << i << " " << j << " " << k;
  }
}

TEST(MgOps, ConjugateGradientStepGivesTheBitsOfItsSeparateOperations) {
  const Level L;
  const LevelData p = L.field(3, true), q = L.field(4, false);
  LevelData x = L.field(5, true), r = L.field(6, false);
  LevelData x_ref = L.field(5, true), r_ref = L.field(6, false);
  const double alpha = 0.7310585786300049;  // not a short binary fraction
  const double fused = mg::cg_step(x, r, alpha, p, q);
  mg::axpy(x_ref, alpha, p.refs());
  mg::axpy(r_ref, -alpha, q.refs());
  expect_same_bits(x, x_ref);
  expect_same_bits(r, r_ref);
  EXPECT_GT(fused, 0.0);
  EXPECT_EQ(fused, mg::max_abs_product(r_ref, r_ref));
  // And r did change (the step is not a no-op that the comparison would miss).
  EXPECT_NE(mg::max_abs_product(r, r),
            mg::max_abs_product(L.field(6, false), L.field(6, false)));
}
