// Host-side helpers for tests: set and read Fab data through mirror views, so the tests
// run on any Kokkos backend.
#pragma once

#include <functional>

#include "amr/fab.hpp"
#include "amr/layout.hpp"
#include "amr/level_geom.hpp"

namespace pw::testing {

/// fab(i, j, k, c) = f(i, j, k, c) on every cell of `b` (default: the whole fab).
inline void set(Fab& fab, const std::function<double(int, int, int, int)>& f,
                Box b = Box()) {
  if (b.empty()) b = fab.box;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fab.data);
  for (int c = 0; c < fab.ncomp(); ++c)
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i)
          h(c, k - fab.box.lo[2], j - fab.box.lo[1], i - fab.box.lo[0]) = f(i, j, k, c);
  Kokkos::deep_copy(fab.data, h);
}

/// A host snapshot of a fab's data with global indexing (always a copy, even when the
/// data already lives on the host, so later updates of the fab do not show through).
struct HostFab {
  Box box;
  View4::HostMirror h;
  explicit HostFab(const Fab& fab) : box(fab.box), h(Kokkos::create_mirror(fab.data)) {
    Kokkos::deep_copy(h, fab.data);
  }
  double operator()(int i, int j, int k, int c = 0) const {
    return h(c, k - box.lo[2], j - box.lo[1], i - box.lo[0]);
  }
};

/// Owners of `boxes` round robin over `nranks`, starting at rank `offset`.
inline LevelLayout round_robin(const BoxList& boxes, int nranks, int offset = 0) {
  LevelLayout L{boxes, {}};
  for (size_t p = 0; p < boxes.size(); ++p)
    L.owner.push_back(int((p + offset) % nranks));
  return L;
}

/// The unit square (dim 2) or cube (dim 3) in n cells a side, periodic (LevelGeom's
/// default).
inline LevelGeom unit_geom(int dim, int n) {
  LevelGeom g;
  g.dim = dim;
  g.domain = Box{{0, 0, 0}, {n - 1, n - 1, dim == 3 ? n - 1 : 0}};
  for (int d = 0; d < 3; ++d)
    g.dx[d] = 1.0 / n;
  return g;
}

/// i wrapped into [0, n) (periodic images).
inline int wrap(int i, int n) {
  return ((i % n) + n) % n;
}

}  // namespace pw::testing
