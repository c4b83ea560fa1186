#include "solver/mg_ops.hpp"

namespace pw::mg {

void gauss_seidel(const Fab& u, const Fab& f, const Box& b, int color,
                  const PoissonStencil& s, double omega) {
  const Field3 ua = component(u.array(), 0), fa = component(f.array(), 0);
  // Only the cells of the colour: ii counts them along a row (the last may fall
  // outside on rows that start with the other colour).
  const int lo0 = b.lo[0], hi0 = b.hi[0];
  Box half = b;
  half.lo[0] = 0;
  half.hi[0] = (b.size()[0] + 1) / 2 - 1;
  for_each_cell_simd(
      "mg::gauss_seidel", half, KOKKOS_LAMBDA(int ii, int j, int k) {
        const int i = lo0 + ((color - lo0 - j - k) & 1) + 2 * ii;
        if (i <= hi0) gauss_seidel_cell(i, j, k, ua, fa, s, omega);
      });
}

void residual(const Fab& r, const Fab& u, const Fab& f, const Box& b,
              const PoissonStencil& s) {
  const Field3 ra = component(r.array(), 0), ua = component(u.array(), 0),
               fa = component(f.array(), 0);
  for_each_cell_simd(
      "mg::residual", b,
      KOKKOS_LAMBDA(int i, int j, int k) { residual_cell(i, j, k, ra, ua, fa, s); });
}

void laplacian(const Fab& out, const Fab& u, const Box& b, const PoissonStencil& s) {
  const Field3 oa = component(out.array(), 0), ua = component(u.array(), 0);
  for_each_cell_simd(
      "mg::laplacian", b,
      KOKKOS_LAMBDA(int i, int j, int k) { laplacian_cell(i, j, k, oa, ua, s); });
}

void restrict_residual(const Fab& crse, const Fab& u, const Fab& f, const Box& cbox,
                       const PoissonStencil& s) {
  const Field3 ca = component(crse.array(), 0), ua = component(u.array(), 0),
               fa = component(f.array(), 0);
  for_each_cell_simd(
      "mg::restrict_residual", cbox, KOKKOS_LAMBDA(int i, int j, int k) {
        restrict_residual_cell(i, j, k, ca, ua, fa, s);
      });
}

void prolong_add(const Fab& fine, const Fab& crse, const Box& fbox, int dim,
                 bool linear) {
  const Field3 fa = component(fine.array(), 0), ca = component(crse.array(), 0);
  for_each_cell_simd(
      "mg::prolong", fbox,
      KOKKOS_LAMBDA(int i, int j, int k) { prolong_cell(i, j, k, fa, ca, dim, linear); });
}

void reflect_odd_across_faces(const Fab& u, const Box& region, const Box& patch) {
  const Array4 ua = u.array();
  const Box b = patch;
  for_each_cell(
      "mg::reflect_odd_across_faces", region, KOKKOS_LAMBDA(int i, int j, int k) {
        const int idx[3] = {i, j, k};
        int m[3] = {i, j, k}, outside = 0;
        for (int d = 0; d < 3; ++d) {
          if (idx[d] < b.lo[d]) m[d] = 2 * b.lo[d] - 1 - idx[d], ++outside;
          if (idx[d] > b.hi[d]) m[d] = 2 * b.hi[d] + 1 - idx[d], ++outside;
        }
        if (outside == 1) ua(i, j, k) = -ua(m[0], m[1], m[2]);
      });
}

void axpy(const Fab& y, double a, const Fab& x, const Box& b) {
  const Array4 ya = y.array(), xa = x.array();
  for_each_cell(
      "mg::axpy", b,
      KOKKOS_LAMBDA(int i, int j, int k) { ya(i, j, k) += a * xa(i, j, k); });
}

void xpby(const Fab& p, const Fab& r, double beta, const Box& b) {
  const Array4 pa = p.array(), ra = r.array();
  for_each_cell(
      "mg::xpby", b, KOKKOS_LAMBDA(int i, int j, int k) {
        pa(i, j, k) = ra(i, j, k) + beta * pa(i, j, k);
      });
}

void add_constant(const Fab& u, double c, const Box& b) {
  const Array4 ua = u.array();
  for_each_cell(
      "mg::add_constant", b, KOKKOS_LAMBDA(int i, int j, int k) { ua(i, j, k) += c; });
}

double max_abs(const Fab& u, const Box& b) {
  const Array4 ua = u.array();
  const double m = -min_over_cells(
      "mg::max_abs", b, KOKKOS_LAMBDA(int i, int j, int k) {
        const double x = ua(i, j, k);
        return x < 0 ? x : -x;
      });
  return b.empty() ? 0.0 : m;
}

double max_abs_product(const Fab& a, const Fab& c, const Box& b) {
  const Array4 aa = a.array(), ca = c.array();
  const double m = -min_over_cells(
      "mg::max_abs_product", b, KOKKOS_LAMBDA(int i, int j, int k) {
        const double x = aa(i, j, k) * ca(i, j, k);
        return x < 0 ? x : -x;
      });
  return b.empty() ? 0.0 : m;
}

ExactSum exact_sum(const Fab& u, const Box& b, double inv_scale) {
  ExactSum s;
  if (b.empty()) return s;
  const Array4 ua = u.array();
  Kokkos::parallel_reduce(
      "mg::exact_sum", cell_policy(b),
      KOKKOS_LAMBDA(int k, int j, int i, ExactSum& acc) {
        acc.add(ua(i, j, k), inv_scale);
      },
      Kokkos::Sum<ExactSum>(s));
  return s;
}

ExactSum exact_dot(const Fab& a, const Fab& c, const Box& b, double inv_scale) {
  ExactSum s;
  if (b.empty()) return s;
  const Array4 aa = a.array(), ca = c.array();
  Kokkos::parallel_reduce(
      "mg::exact_dot", cell_policy(b),
      KOKKOS_LAMBDA(int k, int j, int i, ExactSum& acc) {
        acc.add(aa(i, j, k) * ca(i, j, k), inv_scale);
      },
      Kokkos::Sum<ExactSum>(s));
  return s;
}

}  // namespace pw::mg
