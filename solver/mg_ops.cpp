#include "solver/mg_ops.hpp"

namespace pw::mg {

namespace {
KOKKOS_FORCEINLINE_FUNCTION double magnitude(double x) {
  return x < 0 ? -x : x;
}
}  // namespace

BoxSet colour_rows(const LevelData& u) {
  std::vector<Box> boxes;
  std::vector<int> items;
  for (size_t p = 0; p < u.size(); ++p) {
    if (!u.owns(p)) continue;
    Box half = u.box(p);
    half.lo[0] = 0;
    half.hi[0] = (u.box(p).size()[0] + 1) / 2 - 1;
    boxes.push_back(half);
    items.push_back(int(p));
  }
  return BoxSet(boxes, items);
}

void gauss_seidel(const LevelData& u, const LevelData& f, const BoxSet& rows, int color,
                  const PoissonStencil& s, double omega) {
  const Refs ur = u.refs(), fr = f.refs();
  const Kokkos::View<Box*> boxes = u.patch_boxes();
  // Only the cells of the colour: ii counts them along a row (the last may fall outside
  // on rows that start with the other colour).
  for_each_box_row(
      "mg::gauss_seidel", rows, KOKKOS_LAMBDA(int p, int j, int k, int ii0, int ii1) {
        const Field3 ua = ur(p).c0, fa = fr(p).c0;
        const int lo0 = boxes(p).lo[0], hi0 = boxes(p).hi[0];
        const int first = lo0 + ((color - lo0 - j - k) & 1);
        PW_INDEPENDENT_ITERATIONS
        for (int ii = ii0; ii <= ii1; ++ii) {
          const int i = first + 2 * ii;
          if (i <= hi0) gauss_seidel_cell(i, j, k, ua, fa, s, omega);
        }
      });
}

void residual(const LevelData& r, const LevelData& u, const LevelData& f,
              const PoissonStencil& s) {
  const Refs rr = r.refs(), ur = u.refs(), fr = f.refs();
  for_each_box_row(
      "mg::residual", u.interiors(), KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        const Field3 ra = rr(p).c0, ua = ur(p).c0, fa = fr(p).c0;
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i)
          residual_cell(i, j, k, ra, ua, fa, s);
      });
}

void laplacian(const LevelData& out, const LevelData& u, const PoissonStencil& s) {
  const Refs outr = out.refs(), ur = u.refs();
  for_each_box_row(
      "mg::laplacian", u.interiors(), KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        const Field3 oa = outr(p).c0, ua = ur(p).c0;
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i)
          laplacian_cell(i, j, k, oa, ua, s);
      });
}

void restrict_residual(const LevelData& crse, const LevelData& u, const LevelData& f,
                       const PoissonStencil& s) {
  const Refs cr = crse.refs(), ur = u.refs(), fr = f.refs();
  for_each_box_row(
      "mg::restrict_residual", crse.interiors(),
      KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        const Field3 ca = cr(p).c0, ua = ur(p).c0, fa = fr(p).c0;
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i)
          restrict_residual_cell(i, j, k, ca, ua, fa, s);
      });
}

void prolong_add(const LevelData& fine, const Refs& crse, int dim, bool linear) {
  const Refs fr = fine.refs();
  for_each_box_row(
      "mg::prolong", fine.interiors(),
      KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        const Field3 fa = fr(p).c0, ca = crse(p).c0;
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i)
          prolong_cell(i, j, k, fa, ca, dim, linear);
      });
}

void reflect_odd_across_faces(LevelData& u) {
  const Refs ur = u.refs();
  const Kokkos::View<Box*> boxes = u.patch_boxes();
  for_each_box_cell(
      "mg::reflect_odd_across_faces", u.coarse_fine_set(),
      KOKKOS_LAMBDA(int p, int i, int j, int k) {
        const Box b = boxes(p);
        const int idx[3] = {i, j, k};
        int m[3] = {i, j, k}, outside = 0;
        for (int d = 0; d < 3; ++d) {
          if (idx[d] < b.lo[d]) m[d] = 2 * b.lo[d] - 1 - idx[d], ++outside;
          if (idx[d] > b.hi[d]) m[d] = 2 * b.hi[d] + 1 - idx[d], ++outside;
        }
        if (outside == 1) ur(p)(i, j, k) = -ur(p)(m[0], m[1], m[2]);
      });
}

void axpy(const LevelData& y, double a, const Refs& x) {
  const Refs yr = y.refs();
  for_each_box_cell(
      "mg::axpy", y.interiors(),
      KOKKOS_LAMBDA(int p, int i, int j, int k) { yr(p)(i, j, k) += a * x(p)(i, j, k); });
}

void xpby(const LevelData& p, const LevelData& r, double beta) {
  const Refs pr = p.refs(), rr = r.refs();
  for_each_box_cell(
      "mg::xpby", p.interiors(), KOKKOS_LAMBDA(int n, int i, int j, int k) {
        pr(n)(i, j, k) = rr(n)(i, j, k) + beta * pr(n)(i, j, k);
      });
}

void add_constant(const LevelData& u, double c) {
  scale_shift(u, 1.0, c);
}

void scale_shift(const LevelData& u, double a, double b) {
  const Refs ur = u.refs();
  for_each_box_cell(
      "mg::scale_shift", u.interiors(), KOKKOS_LAMBDA(int p, int i, int j, int k) {
        ur(p)(i, j, k) = a * ur(p)(i, j, k) + b;
      });
}

double max_abs(const LevelData& u) {
  const Refs ur = u.refs();
  return max_over_box_cells(
      "mg::max_abs", u.interiors(),
      KOKKOS_LAMBDA(int p, int i, int j, int k) { return magnitude(ur(p)(i, j, k)); });
}

double max_abs_product(const LevelData& a, const LevelData& c) {
  const Refs ar = a.refs(), cr = c.refs();
  return max_over_box_cells(
      "mg::max_abs_product", a.interiors(), KOKKOS_LAMBDA(int p, int i, int j, int k) {
        return magnitude(ar(p)(i, j, k) * cr(p)(i, j, k));
      });
}

ExactSum exact_sum(const LevelData& u, double inv_scale) {
  const Refs ur = u.refs();
  return exact_sum_over_box_cells(
      "mg::exact_sum", u.interiors(), inv_scale,
      KOKKOS_LAMBDA(int p, int i, int j, int k) { return ur(p)(i, j, k); });
}

ExactSum exact_dot(const LevelData& a, const LevelData& c, double inv_scale) {
  const Refs ar = a.refs(), cr = c.refs();
  return exact_sum_over_box_cells(
      "mg::exact_dot", a.interiors(), inv_scale,
      KOKKOS_LAMBDA(int p, int i, int j, int k) {
        return ar(p)(i, j, k) * cr(p)(i, j, k);
      });
}

}  // namespace pw::mg
