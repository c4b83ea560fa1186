// Launches of the solver's per-cell functions over one patch (component 0 of each Fab),
// and the reductions the solver needs, reduced exactly where a sum is involved.
#pragma once

#include "amr/fab.hpp"
#include "amr/reproducible_sum.hpp"
#include "solver/poisson_kernels.hpp"

namespace pw::mg {

/// One colour of red-black Gauss-Seidel, over-relaxed by omega.
void gauss_seidel(const Fab& u, const Fab& f, const Box& b, int color,
                  const PoissonStencil& s, double omega);
void residual(const Fab& r, const Fab& u, const Fab& f, const Box& b,
              const PoissonStencil& s);
void laplacian(const Fab& out, const Fab& u, const Box& b, const PoissonStencil& s);
/// crse(cbox) = mean over the fine cells under each coarse cell of f - L u.
void restrict_residual(const Fab& crse, const Fab& u, const Fab& f, const Box& cbox,
                       const PoissonStencil& s);
/// fine(fbox) += the coarse correction (piecewise constant, or linear: reads the coarse
/// ghosts).
void prolong_add(const Fab& fine, const Fab& crse, const Box& fbox, int dim, bool linear);
/// Cells of `region` (ghosts of a patch over `patch`) beside exactly one face of the
/// patch = minus their mirror image inside: zero at the face (homogeneous Dirichlet at a
/// refined level's coarse-fine boundary, for corrections). Edge and corner cells are
/// left.
void reflect_odd_across_faces(const Fab& u, const Box& region, const Box& patch);
/// y(b) += a x(b); p(b) = r(b) + beta p(b); u(b) += c.
void axpy(const Fab& y, double a, const Fab& x, const Box& b);
void xpby(const Fab& p, const Fab& r, double beta, const Box& b);
void add_constant(const Fab& u, double c, const Box& b);

/// max |u| over b (0 for an empty box).
double max_abs(const Fab& u, const Box& b);
/// max |a b| over the box.
double max_abs_product(const Fab& a, const Fab& c, const Box& b);
/// Sum of u (or of a * c) over b, each term scaled by inv_scale (a power of two; see
/// ExactSum::add).
ExactSum exact_sum(const Fab& u, const Box& b, double inv_scale);
ExactSum exact_dot(const Fab& a, const Fab& c, const Box& b, double inv_scale);

}  // namespace pw::mg
