#include "amr/boundary.hpp"

#include <cstring>

#include "amr/device_array.hpp"

namespace pw {

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

bool has_exact_face(const BcSet& bcs, int d, int side) {
  for (const ComponentBc& c : bcs)
    if (c.face(d, side).kind == BcKind::exact) return true;
  return false;
}

void fill_physical_boundary(const LevelGeom& geom, Fab& fab, const BcSet& bcs) {
  WallFill(geom, {fab.box}).apply(fab_refs({fab}), bcs);
}

namespace {

/// Bit for bit: -0.0 is not 0.0 (a fixed face writes it), a NaN equals itself.
bool same_face(const FaceBc& a, const FaceBc& b) {
  return a.kind == b.kind && std::memcmp(&a.value, &b.value, sizeof(double)) == 0;
}

bool same_conditions(const BcSet& a, const BcSet& b) {
  if (a.size() != b.size()) return false;
  for (size_t c = 0; c < a.size(); ++c)
    for (int d = 0; d < 3; ++d)
      if (!same_face(a[c].lo[d], b[c].lo[d]) || !same_face(a[c].hi[d], b[c].hi[d]))
        return false;
  return true;
}

}  // namespace

WallFill::WallFill(const LevelGeom& geom, const std::vector<Box>& fab_boxes)
    : geom_(geom) {
  for (int d = 0; d < geom.dim; ++d)
    for (int side = 0; side < 2; ++side) {
      std::vector<Box> slabs;
      std::vector<int> fabs;
      for (size_t n = 0; n < fab_boxes.size(); ++n) {
        if (fab_boxes[n].empty()) continue;
        const Box ghosts = ghosts_beyond(geom, fab_boxes[n], d, side);
        if (ghosts.empty()) continue;
        slabs.push_back(ghosts);
        fabs.push_back(int(n));
      }
      if (slabs.empty()) continue;
      slabs_[d][side] = BoxSet(slabs, fabs);
      any_ = true;
    }
}

const StructArray<FaceBc>& WallFill::conditions(const BcSet& bcs) {
  for (const Table& t : tables_)
    if (same_conditions(t.bcs, bcs)) return t.faces;
  // A field is filled with one or two sets of conditions (multigrid: the problem's and
  // their homogeneous form); more than a few means a caller builds new ones each time.
  if (tables_.size() >= 4) tables_.erase(tables_.begin());
  const size_t nc = bcs.size();
  std::vector<FaceBc> host(6 * nc);
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side)
      for (size_t c = 0; c < nc; ++c)
        host[size_t(2 * d + side) * nc + c] = bcs[c].face(d, side);
  tables_.push_back({bcs, device_copy("amr::wall_conditions", host)});
  return tables_.back().faces;
}

void WallFill::apply(const StructArray<FabRef>& refs, const BcSet& bcs) {
  const int nc = int(bcs.size());
  if (!any_ || nc == 0) return;
  const StructArray<FaceBc> faces = conditions(bcs);
  // Direction by direction, so that edges and corners take the later direction's rule
  // (they read ghost cells the earlier one wrote); the two sides one after the other,
  // as on a domain narrower than the ghost layers one side's mirror cells are the
  // other's ghosts.
  for (int d = 0; d < geom_.dim; ++d)
    for (int side = 0; side < 2; ++side) {
      const BoxSet& slabs = slabs_[d][side];
      if (slabs.empty()) continue;
      const int inner = side == 0 ? geom_.domain.lo[d] : geom_.domain.hi[d];
      const int s = side == 0 ? -1 : 1;  // outward
      const double dx = geom_.dx[d];
      const int first = (2 * d + side) * nc;
      for_each_box_cell(
          "amr::physical_boundary", slabs, KOKKOS_LAMBDA(int n, int i, int j, int k) {
            const FabRef a = refs(n);
            IntVect g{i, j, k};
            const int m = (g[d] - inner) * s;  // 1 for the nearest ghost
            IntVect in = g, mirror = g;
            in[d] = inner;
            mirror[d] = inner - s * (m - 1);
            for (int c = 0; c < nc; ++c)
              a(i, j, k, c) =
                  wall_ghost(faces(first + c), a(mirror[0], mirror[1], mirror[2], c),
                             a(in[0], in[1], in[2], c), dx, m);
          });
    }
}

void fill_outflow(const LevelGeom& geom, Fab& fab) {
  fill_physical_boundary(geom, fab, BcSet(size_t(fab.ncomp()), ComponentBc()));
}

}  // namespace pw
