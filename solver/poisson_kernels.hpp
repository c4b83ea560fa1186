// Per-cell functions of the cell-centred Poisson solver: the 5-point (2D) / 7-point (3D)
// Laplacian with the domain's walls folded into the stencil, its red-black Gauss-Seidel
// update, the residual, restriction by averaging and prolongation (piecewise constant or
// linear). Each is launched by one line of solver/mg_ops.cpp.
#pragma once

#include <cmath>

#include "amr/field3.hpp"

namespace pw {

/// |x|, by selects (what the solver's max reductions take of each cell); a NaN counts as
/// infinite, so that a max keeps it (a comparison would drop it) and a solve on data
/// holding one cannot report convergence.
KOKKOS_FORCEINLINE_FUNCTION double magnitude(double x) {
  return x < 0 ? -x : (x >= 0 ? x : HUGE_VAL);
}

/// The Laplacian on one level: 1/dx^2 per direction, and at the domain's non-periodic
/// faces the ghost value as ghost = a + b * (the cell inside): Dirichlet g is a = 2g,
/// b = -1; Neumann q (outward derivative) is a = q dx, b = 1. The walls are folded into
/// the stencil, so ghost cells beyond them are never read.
struct PoissonStencil {
  int dim = 3;
  Box domain;
  double w[3] = {0, 0, 0};
  bool wall[3][2] = {{false, false}, {false, false}, {false, false}};
  double a[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  double b[3][2] = {{0, 0}, {0, 0}, {0, 0}};
};

/// Sum over directions of w_d (left + right) with wall ghosts' constant parts only, and
/// the diagonal sum_d w_d (2 - b at each wall side): the Laplacian at (i, j, k) is
/// off - diag * u(i, j, k). Walls are chosen by selects (the ghost beyond a wall is read
/// and discarded), so that loops over i vectorize.
KOKKOS_FORCEINLINE_FUNCTION void stencil_parts(const Field3& u, int i, int j, int k,
                                               const PoissonStencil& s, double& off,
                                               double& diag) {
  const int idx[3] = {i, j, k};
  off = 0.0;
  diag = 0.0;
  for (int d = 0; d < s.dim; ++d) {
    const int di = d == 0, dj = d == 1, dk = d == 2;
    const bool lo = s.wall[d][0] && idx[d] == s.domain.lo[d];
    const bool hi = s.wall[d][1] && idx[d] == s.domain.hi[d];
    const double left = u(i - di, j - dj, k - dk), right = u(i + di, j + dj, k + dk);
    const double sum = (lo ? s.a[d][0] : left) + (hi ? s.a[d][1] : right);
    const double dd = 2.0 - (lo ? s.b[d][0] : 0.0) - (hi ? s.b[d][1] : 0.0);
    off += s.w[d] * sum;
    diag += s.w[d] * dd;
  }
}

/// The stencil of a cell with no wall beside it, its weights held as plain values so
/// that a row's loop keeps them in registers (the stores into a field might otherwise
/// alias the stencil's weights and force reloads).
struct InteriorStencil {
  int dim = 3;
  double w0 = 0, w1 = 0, w2 = 0;
  double diag = 0;      // summed as stencil_parts sums it
  double inv_diag = 0;  // 1 / diag, as gauss_seidel_cell computes it
};

KOKKOS_FORCEINLINE_FUNCTION InteriorStencil interior(const PoissonStencil& s) {
  InteriorStencil t;
  t.dim = s.dim;
  t.w0 = s.w[0];
  t.w1 = s.w[1];
  t.w2 = s.w[2];
  t.diag = 0.0;
  for (int d = 0; d < s.dim; ++d)
    t.diag += s.w[d] * 2.0;
  t.inv_diag = 1.0 / t.diag;
  return t;
}

/// stencil_parts for a cell with no wall beside it: the same sums in the same order
/// without the selects, so the same bits.
KOKKOS_FORCEINLINE_FUNCTION void stencil_parts(const Field3& u, int i, int j, int k,
                                               const InteriorStencil& t, double& off,
                                               double& diag) {
  off = 0.0;
  off += t.w0 * (u(i - 1, j, k) + u(i + 1, j, k));
  off += t.w1 * (u(i, j - 1, k) + u(i, j + 1, k));
  if (t.dim == 3) off += t.w2 * (u(i, j, k - 1) + u(i, j, k + 1));
  diag = t.diag;
}

KOKKOS_FORCEINLINE_FUNCTION double inverse_diag(const PoissonStencil&, double diag) {
  return 1.0 / diag;
}
KOKKOS_FORCEINLINE_FUNCTION double inverse_diag(const InteriorStencil& t, double) {
  return t.inv_diag;
}

/// Whether no cell from lo to hi has a wall beside it, so that they can all take the
/// InteriorStencil.
KOKKOS_FORCEINLINE_FUNCTION bool clear_of_walls(const int lo[3], const int hi[3],
                                                const PoissonStencil& s) {
  for (int d = 0; d < s.dim; ++d)
    if ((s.wall[d][0] && lo[d] == s.domain.lo[d]) ||
        (s.wall[d][1] && hi[d] == s.domain.hi[d]))
      return false;
  return true;
}

/// Whether no cell of row (j, k) from i0 to i1 has a wall beside it.
KOKKOS_FORCEINLINE_FUNCTION bool row_clear_of_walls(int i0, int i1, int j, int k,
                                                    const PoissonStencil& s) {
  const int lo[3] = {i0, j, k}, hi[3] = {i1, j, k};
  return clear_of_walls(lo, hi, s);
}

/// body(stencil) for a row: with the interior stencil `in` (a copy of it, so that the
/// row's loop holds it in registers) when `clear` (no cell of the row has a wall beside
/// it), else with the general s. body is instantiated for both.
template <class Body>
KOKKOS_FORCEINLINE_FUNCTION void with_row_stencil(bool clear, const InteriorStencil& in,
                                                  const PoissonStencil& s,
                                                  const Body& body) {
  if (clear) {
    const InteriorStencil t = in;
    body(t);
  } else {
    body(s);
  }
}

/// out = L u at (i, j, k).
template <class S>
KOKKOS_FORCEINLINE_FUNCTION void laplacian_cell(int i, int j, int k, const Field3& out,
                                                const Field3& u, const S& s) {
  double off, diag;
  stencil_parts(u, i, j, k, s, off, diag);
  out(i, j, k) = off - diag * u(i, j, k);
}

/// r = f - L u at (i, j, k).
template <class S>
KOKKOS_FORCEINLINE_FUNCTION void residual_cell(int i, int j, int k, const Field3& r,
                                               const Field3& u, const Field3& f,
                                               const S& s) {
  double off, diag;
  stencil_parts(u, i, j, k, s, off, diag);
  r(i, j, k) = f(i, j, k) - (off - diag * u(i, j, k));
}

/// Gauss-Seidel, over-relaxed by omega: u(i, j, k) moves towards the solution of its own
/// row of L u = f given its neighbours. Callers update the cells of one colour
/// ((i + j + k) even or odd) in a pass; they read only the other colour, so the result
/// does not depend on the order of the cells.
template <class S>
KOKKOS_FORCEINLINE_FUNCTION void gauss_seidel_cell(int i, int j, int k, const Field3& u,
                                                   const Field3& f, const S& s,
                                                   double omega) {
  double off, diag;
  stencil_parts(u, i, j, k, s, off, diag);
  const double old = u(i, j, k);
  u(i, j, k) = old + omega * ((off - f(i, j, k)) * inverse_diag(s, diag) - old);
}

/// Coarse cell (i, j, k) = the mean of the residual f - L u over its 2^dim fine cells
/// (the residual is never stored on the fine grid).
template <class S>
KOKKOS_FORCEINLINE_FUNCTION void restrict_residual_cell(int i, int j, int k,
                                                        const Field3& crse,
                                                        const Field3& u, const Field3& f,
                                                        const S& s) {
  const int nk = s.dim == 3 ? 2 : 1;
  double sum = 0.0;
  for (int kk = 0; kk < nk; ++kk)
    for (int jj = 0; jj < 2; ++jj)
      for (int ii = 0; ii < 2; ++ii) {
        const int fi = 2 * i + ii, fj = 2 * j + jj, fk = nk * k + kk;
        double off, diag;
        stencil_parts(u, fi, fj, fk, s, off, diag);
        sum += f(fi, fj, fk) - (off - diag * u(fi, fj, fk));
      }
  crse(i, j, k) = sum / (s.dim == 3 ? 8.0 : 4.0);
}

/// Whether (i, j, k) is a ghost cell of box b in the first layer beside exactly one
/// face (not an edge or corner): then d is the face's normal and out the step outwards
/// (-1 on the lo side, +1 on the hi side).
KOKKOS_INLINE_FUNCTION bool face_ghost(const Box& b, int i, int j, int k, int& d,
                                       int& out) {
  const int idx[3] = {i, j, k};
  int outside = 0;
  d = 0;
  out = 0;
  for (int e = 0; e < 3; ++e) {
    if (idx[e] < b.lo[e]) ++outside, d = e, out = -1;
    if (idx[e] > b.hi[e]) ++outside, d = e, out = 1;
  }
  const bool first_layer = idx[d] == b.lo[d] - 1 || idx[d] == b.hi[d] + 1;
  return outside == 1 && first_layer;
}

/// How a coarse correction reaches the fine cells.
enum class Prolong {
  constant,     // the parent's value
  multilinear,  // from the parent and its neighbours towards the fine cell, weights 3/4
                // and 1/4 per direction (reads edge and corner ghosts)
  faces,        // the parent plus 1/4 of each face neighbour's difference towards the
                // fine cell: exact for linear data, and reads face ghosts only (which a
                // refined level's coarse-fine rule sets the same way for every cut)
};

/// fine(i, j, k) += the coarse correction at its centre, as `how` says.
KOKKOS_FORCEINLINE_FUNCTION void prolong_cell(int i, int j, int k, const Field3& fine,
                                              const Field3& crse, int dim, Prolong how) {
  const int ic = i >> 1, jc = j >> 1, kc = dim == 3 ? (k >> 1) : k;
  const double c = crse(ic, jc, kc);
  if (how == Prolong::constant) {
    fine(i, j, k) += c;
    return;
  }
  const int si = (i & 1) ? 1 : -1, sj = (j & 1) ? 1 : -1;
  if (how == Prolong::faces) {
    double d = (crse(ic + si, jc, kc) - c) + (crse(ic, jc + sj, kc) - c);
    if (dim == 3) d += crse(ic, jc, kc + ((k & 1) ? 1 : -1)) - c;
    fine(i, j, k) += c + 0.25 * d;
    return;
  }
  const double c0 = 0.75 * c + 0.25 * crse(ic + si, jc, kc);
  const double c1 = 0.75 * crse(ic, jc + sj, kc) + 0.25 * crse(ic + si, jc + sj, kc);
  const double plane = 0.75 * c0 + 0.25 * c1;
  if (dim == 2) {
    fine(i, j, k) += plane;
    return;
  }
  const int sk = (k & 1) ? 1 : -1;
  const double d0 = 0.75 * crse(ic, jc, kc + sk) + 0.25 * crse(ic + si, jc, kc + sk);
  const double d1 =
      0.75 * crse(ic, jc + sj, kc + sk) + 0.25 * crse(ic + si, jc + sj, kc + sk);
  fine(i, j, k) += 0.75 * plane + 0.25 * (0.75 * d0 + 0.25 * d1);
}

}  // namespace pw
