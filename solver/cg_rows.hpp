// Conjugate gradients' steps on one row of cells (i0..i1 of row (j, k)), shared by the
// launch-per-step solve (solver/mg_ops.cpp, on distributed grids) and the one-launch
// solve (solver/team_cg.cpp, on grids held whole), so that the two compute the same bits
// by construction. The max reductions take |.| by a select and keep the larger value;
// dot products add exactly (ExactSum), so neither depends on the order of the rows.
#pragma once

#include "amr/field3.hpp"
#include "amr/reproducible_sum.hpp"
#include "solver/poisson_kernels.hpp"

namespace pw::mg {

KOKKOS_FORCEINLINE_FUNCTION void keep_larger(double& acc, double v) {
  acc = v > acc ? v : acc;
}

/// r = f - L u.
KOKKOS_FORCEINLINE_FUNCTION void residual_row(int j, int k, int i0, int i1,
                                              const Field3& r, const Field3& u,
                                              const Field3& f, const PoissonStencil& s,
                                              const InteriorStencil& in) {
  with_row_stencil(row_clear_of_walls(i0, i1, j, k, s), in, s, [&](const auto& st) {
    PW_INDEPENDENT_ITERATIONS
    for (int i = i0; i <= i1; ++i)
      residual_cell(i, j, k, r, u, f, st);
  });
}

/// acc = the larger of acc and every |a c|.
KOKKOS_FORCEINLINE_FUNCTION void largest_product_row(double& acc, int j, int k, int i0,
                                                     int i1, const Field3& a,
                                                     const Field3& c) {
  for (int i = i0; i <= i1; ++i)
    keep_larger(acc, magnitude(a(i, j, k) * c(i, j, k)));
}

/// out = L u, and acc = the larger of acc and every |u out| (the scale of dot(u, L u)).
KOKKOS_FORCEINLINE_FUNCTION void laplacian_row(double& acc, int j, int k, int i0, int i1,
                                               const Field3& out, const Field3& u,
                                               const PoissonStencil& s,
                                               const InteriorStencil& in) {
  with_row_stencil(row_clear_of_walls(i0, i1, j, k, s), in, s, [&](const auto& st) {
    PW_INDEPENDENT_ITERATIONS
    for (int i = i0; i <= i1; ++i)
      laplacian_cell(i, j, k, out, u, st);
  });
  largest_product_row(acc, j, k, i0, i1, u, out);
}

/// acc += every a c, scaled by inv_scale (see ExactSum::add).
KOKKOS_FORCEINLINE_FUNCTION void dot_row(ExactSum& acc, int j, int k, int i0, int i1,
                                         const Field3& a, const Field3& c,
                                         double inv_scale) {
  for (int i = i0; i <= i1; ++i)
    acc.add(a(i, j, k) * c(i, j, k), inv_scale);
}

/// x += alpha p, r += minus_alpha q (minus_alpha = -alpha), and acc = the larger of acc
/// and every new |r r| (the scale of the next dot(r, r)).
KOKKOS_FORCEINLINE_FUNCTION void cg_step_row(double& acc, int j, int k, int i0, int i1,
                                             const Field3& x, const Field3& r,
                                             const Field3& p, const Field3& q,
                                             double alpha, double minus_alpha) {
  for (int i = i0; i <= i1; ++i) {
    x(i, j, k) += alpha * p(i, j, k);
    double& ri = r(i, j, k);
    ri += minus_alpha * q(i, j, k);
    keep_larger(acc, magnitude(ri * ri));
  }
}

/// p = r + beta p.
KOKKOS_FORCEINLINE_FUNCTION void xpby_row(int j, int k, int i0, int i1, const Field3& p,
                                          const Field3& r, double beta) {
  PW_INDEPENDENT_ITERATIONS
  for (int i = i0; i <= i1; ++i)
    p(i, j, k) = r(i, j, k) + beta * p(i, j, k);
}

}  // namespace pw::mg
