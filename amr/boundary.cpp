#include "amr/boundary.hpp"

namespace pw {

void fill_outflow(const LevelGeom& geom, Fab& fab) {
  Box inside = fab.box;
  bool any = false;
  for (int d = 0; d < geom.dim; ++d) {
    if (geom.periodic[d]) continue;
    inside.lo[d] = geom.domain.lo[d];
    inside.hi[d] = geom.domain.hi[d];
    if (fab.box.lo[d] < inside.lo[d] || fab.box.hi[d] > inside.hi[d]) any = true;
  }
  if (!any) return;
  const Array4 a = fab.array();
  const Box in = inside & fab.box;
  const Box whole = fab.box;
  const int nc = fab.ncomp();
  for_each_cell(
      "amr::fill_outflow", whole, KOKKOS_LAMBDA(int i, int j, int k) {
        const int ii = i < in.lo[0] ? in.lo[0] : (i > in.hi[0] ? in.hi[0] : i);
        const int jj = j < in.lo[1] ? in.lo[1] : (j > in.hi[1] ? in.hi[1] : j);
        const int kk = k < in.lo[2] ? in.lo[2] : (k > in.hi[2] ? in.hi[2] : k);
        if (ii == i && jj == j && kk == k) return;
        for (int n = 0; n < nc; ++n)
          a(i, j, k, n) = a(ii, jj, kk, n);
      });
}

}  // namespace pw
