#include "amr/boundary.hpp"

namespace pw {

namespace {

/// Fill slab `ghosts` (beyond the `side` face of direction d, which lies between cells
/// `inner` and the first ghost) for components [c0, c1) by rule f.
void fill_slab(Fab& fab, const Box& ghosts, int d, int side, int inner, int c0, int c1,
               const FaceBc& f, double dx) {
  const Array4 a = fab.array();
  const BcKind kind = f.kind;
  const double value = f.value;
  const int s = side == 0 ? -1 : 1;  // outward
  for_each_cell(
      "amr::physical_boundary", ghosts, KOKKOS_LAMBDA(int i, int j, int k) {
        IntVect g{i, j, k};
        const int m = (g[d] - inner) * s;  // 1 for the nearest ghost
        IntVect in = g, mirror = g;
        in[d] = inner;
        mirror[d] = inner - s * (m - 1);
        for (int c = c0; c < c1; ++c) {
          const double u = a(mirror[0], mirror[1], mirror[2], c);
          double v = u;
          switch (kind) {
            case BcKind::outflow:
            case BcKind::exact:  // the hierarchy overwrites these with the exact state
              v = a(in[0], in[1], in[2], c);
              break;
            case BcKind::reflect_even:
              v = u;
              break;
            case BcKind::reflect_odd:
              v = -u;
              break;
            case BcKind::dirichlet:
              v = 2.0 * value - u;
              break;
            case BcKind::neumann:
              v = u + value * dx * (2 * m - 1);
              break;
            case BcKind::fixed:
              v = value;
              break;
          }
          a(i, j, k, c) = v;
        }
      });
}

}  // namespace

bool parse_bc_kind(const std::string& name, BcKind& kind) {
  const std::pair<const char*, BcKind> names[] = {{"outflow", BcKind::outflow},
                                                  {"reflect_even", BcKind::reflect_even},
                                                  {"reflect_odd", BcKind::reflect_odd},
                                                  {"dirichlet", BcKind::dirichlet},
                                                  {"neumann", BcKind::neumann},
                                                  {"fixed", BcKind::fixed},
                                                  {"exact", BcKind::exact}};
  for (const auto& [n, k] : names)
    if (name == n) {
      kind = k;
      return true;
    }
  return false;
}

Box ghosts_beyond(const LevelGeom& geom, const Box& fab_box, int d, int side) {
  Box ghosts = fab_box;
  if (geom.periodic[d]) return Box();
  if (side == 0) {
    ghosts.hi[d] = geom.domain.lo[d] - 1;
  } else {
    ghosts.lo[d] = geom.domain.hi[d] + 1;
  }
  return ghosts;
}

bool has_exact_face(const BcSet& bcs, int d, int side) {
  for (const ComponentBc& c : bcs)
    if (c.face(d, side).kind == BcKind::exact) return true;
  return false;
}

void fill_physical_boundary(const LevelGeom& geom, Fab& fab, const BcSet& bcs) {
  const int nc = fab.ncomp();
  for (int d = 0; d < geom.dim; ++d) {
    if (geom.periodic[d]) continue;
    for (int side = 0; side < 2; ++side) {
      const Box ghosts = ghosts_beyond(geom, fab.box, d, side);
      if (ghosts.empty()) continue;
      const int inner = side == 0 ? geom.domain.lo[d] : geom.domain.hi[d];
      // One launch per run of components with the same condition on this face.
      for (int c0 = 0; c0 < nc;) {
        const FaceBc& f = bcs[size_t(c0)].face(d, side);
        int c1 = c0 + 1;
        while (c1 < nc && bcs[size_t(c1)].face(d, side) == f)
          ++c1;
        fill_slab(fab, ghosts, d, side, inner, c0, c1, f, geom.dx[d]);
        c0 = c1;
      }
    }
  }
}

void fill_outflow(const LevelGeom& geom, Fab& fab) {
  fill_physical_boundary(geom, fab, BcSet(size_t(fab.ncomp()), ComponentBc()));
}

}  // namespace pw
