// Physical boundary conditions: what fills the ghost cells beyond a non-periodic face of
// the domain, chosen per component and per face. Periodic directions are filled by the
// same-level exchange through periodic images instead.
#pragma once

#include <string>
#include <vector>

#include "amr/box_set.hpp"
#include "amr/fab.hpp"
#include "amr/field3.hpp"
#include "amr/level_geom.hpp"
#include "amr/patch_teams.hpp"

namespace pw {

enum class BcKind {
  outflow,       // zero gradient: the nearest interior cell
  reflect_even,  // the mirror image (a tangential velocity, a density)
  reflect_odd,   // minus the mirror image (the normal velocity at a wall)
  dirichlet,     // the value at the face: ghost = 2 value - mirror
  neumann,       // the outward normal derivative at the face
  fixed,         // every ghost cell holds the value (a constant inflow state)
  exact,         // the physics module's exact state at the fill's time (an inflow
                 // that changes along the face and in time); outflow where no time is
                 // known (coarse data beyond the wall, read by interpolation stencils)
};

/// One face's condition; `value` is used by dirichlet, neumann and fixed only.
struct FaceBc {
  BcKind kind = BcKind::outflow;
  double value = 0.0;
  bool operator==(const FaceBc& o) const { return kind == o.kind && value == o.value; }
};

/// The m-th ghost cell beyond a face (m = 1 nearest) by condition f: `mirror` holds the
/// mirror cell (m - 1 inside), `in` the nearest cell inside, dx the spacing across the
/// face.
KOKKOS_FORCEINLINE_FUNCTION double wall_ghost(const FaceBc& f, double mirror, double in,
                                              double dx, int m) {
  switch (f.kind) {
    case BcKind::outflow:
    case BcKind::exact:  // later overwritten by the exact state
      return in;
    case BcKind::reflect_even:
      return mirror;
    case BcKind::reflect_odd:
      return -mirror;
    case BcKind::dirichlet:
      return 2.0 * f.value - mirror;
    case BcKind::neumann:
      return mirror + f.value * dx * (2 * m - 1);
    case BcKind::fixed:
      return f.value;
  }
  return mirror;
}

/// One component's conditions on the lo and hi face of each direction.
struct ComponentBc {
  FaceBc lo[3], hi[3];
  /// The same condition on every face.
  static ComponentBc all(FaceBc f) {
    ComponentBc c;
    for (int d = 0; d < 3; ++d)
      c.lo[d] = c.hi[d] = f;
    return c;
  }
  const FaceBc& face(int d, int side) const { return side == 0 ? lo[d] : hi[d]; }
};

/// The conditions of every component of a field (one entry per component).
using BcSet = std::vector<ComponentBc>;

/// Parse a kind's deck spelling ("outflow", "reflect_even", "reflect_odd", "dirichlet",
/// "neumann", "fixed", "exact"); false when unknown.
bool parse_bc_kind(const std::string& name, BcKind& kind);

/// Fill the cells of fab.box beyond the domain's non-periodic faces from the cells
/// inside, direction by direction (x, then y, then z, each over the whole extent of the
/// fab in the other directions, so that edges and corners take the later direction's
/// rule), component c by bcs[c]. The m-th ghost cell outside a face (m = 1 nearest) reads
/// the mirror cell m - 1 inside. Pre: the cells of fab.box inside the domain that these
/// read are filled; bcs.size() == fab.ncomp(). Builds a WallFill for the one fab
/// (device allocations): for tests and one-off fills; repeated fills keep a WallFill.
void fill_physical_boundary(const LevelGeom& geom, Fab& fab, const BcSet& bcs);

/// fill_physical_boundary over many fabs at once: one launch per non-periodic face of the
/// domain (direction and side, in that function's order), over every fab's ghost cells
/// beyond it and every component, instead of one per fab, face and run of components
/// that share a condition. Built once per set of fab boxes; a condition table is kept
/// per BcSet it is applied with.
class WallFill {
 public:
  WallFill() = default;
  /// fab_boxes[n]: the box (ghosts included) of fab n, empty for a fab not to fill.
  WallFill(const LevelGeom& geom, const std::vector<Box>& fab_boxes);
  /// Fill the fabs refs(n) (n as in fab_boxes) by bcs (bcs.size() == their components).
  void apply(const StructArray<FabRef>& refs, const BcSet& bcs);
  /// Whether some fab reaches beyond a wall.
  bool any() const { return any_; }
  /// bcs on the device, for team_fill_fab_walls: face (d, side)'s condition of component
  /// c at (2 d + side) bcs.size() + c.
  const StructArray<FaceBc>& conditions(const BcSet& bcs);

 private:
  LevelGeom geom_;
  BoxSet slabs_[3][2];  // [d][side]: the ghost cells beyond that face, item: the fab
  bool any_ = false;    // some fab reaches beyond a wall
  struct Table {
    BcSet bcs;
    StructArray<FaceBc> faces;  // (2 d + side) * ncomp + c
  };
  std::vector<Table> tables_;
};

/// The ghost cells of fab_box beyond face (d, side) of the domain (edges and corners
/// included), or an empty box when d is periodic or the fab does not reach past it.
KOKKOS_INLINE_FUNCTION Box ghosts_beyond(const LevelGeom& geom, const Box& fab_box, int d,
                                         int side) {
  if (geom.periodic[d]) return Box();
  Box ghosts = fab_box;
  if (side == 0)
    ghosts.hi[d] = geom.domain.lo[d] - 1;
  else
    ghosts.lo[d] = geom.domain.hi[d] + 1;
  return ghosts;
}

/// The cells i0..i1 of row (j, k) of ghosts_beyond(geom, fab box, d, side) of a (one
/// component) by condition f, as fill_physical_boundary sets them.
KOKKOS_INLINE_FUNCTION void fill_wall_row(const LevelGeom& geom, int d, int side,
                                          const FaceBc& f, const Field3& a, int j, int k,
                                          int i0, int i1) {
  const int inner = side == 0 ? geom.domain.lo[d] : geom.domain.hi[d];
  const int out = side == 0 ? -1 : 1;
  for (int i = i0; i <= i1; ++i) {
    int in[3] = {i, j, k}, mirror[3] = {i, j, k};
    const int n = (in[d] - inner) * out;  // 1 for the nearest ghost
    mirror[d] = inner - out * (n - 1);
    in[d] = inner;
    a(i, j, k) = wall_ghost(f, a(mirror[0], mirror[1], mirror[2]), a(in[0], in[1], in[2]),
                            geom.dx[d], n);
  }
}

/// A fab's box (ghosts included) and one component of its values.
struct FabField {
  Box box;
  Field3 a;
};

/// Within one team: what fill_physical_boundary gives fabs n in [0, count) (fab_of(n):
/// its FabField; one component by bc), in its order: each non-periodic direction's
/// sides in turn over every fab, a barrier after each (edges and corners take the later
/// direction's rule), the fabs shared among the threads as team_each_patch shares them.
/// For a launch that fills its patches' walls after their other ghosts and then reads
/// them.
template <class FabOf>
KOKKOS_INLINE_FUNCTION void team_fill_walls(const TeamMember& m, const LevelGeom& geom,
                                            const ComponentBc& bc, int count,
                                            const FabOf& fab_of) {
  for (int d = 0; d < geom.dim; ++d)
    for (int side = 0; side < 2; ++side) {
      if (geom.periodic[d]) continue;
      const FaceBc f = side == 0 ? bc.lo[d] : bc.hi[d];
      team_each_patch(m, count, [&](int n, const auto& over_rows) {
        const FabField fab = fab_of(n);
        over_rows(ghosts_beyond(geom, fab.box, d, side),
                  [&](int j, int k, int i0, int i1) {
                    fill_wall_row(geom, d, side, f, fab.a, j, k, i0, i1);
                  });
      });
      m.team_barrier();
    }
}

/// Within a team: fab a's (box fab_box) cells beyond the walls, components [0, nc) by
/// `faces` (WallFill::conditions), as WallFill::apply fills them: each non-periodic
/// direction's sides in turn, a barrier after each. For a launch that fills a patch's
/// other cells first and then reads its walls' ghosts.
KOKKOS_INLINE_FUNCTION void team_fill_fab_walls(const TeamMember& m,
                                                const LevelGeom& geom,
                                                const StructArray<FaceBc>& faces, int nc,
                                                const FabRef& a, const Box& fab_box) {
  for (int d = 0; d < geom.dim; ++d)
    for (int side = 0; side < 2; ++side) {
      if (geom.periodic[d]) continue;
      const int first = (2 * d + side) * nc;
      team_rows(
          m, ghosts_beyond(geom, fab_box, d, side), [&](int j, int k, int i0, int i1) {
            for (int c = 0; c < nc; ++c)
              fill_wall_row(geom, d, side, faces(first + c), a.comp(c), j, k, i0, i1);
          });
      m.team_barrier();
    }
}

/// True when some component's condition on face (d, side) is BcKind::exact.
bool has_exact_face(const BcSet& bcs, int d, int side);

/// Outflow in every non-periodic direction for every component (the default walls).
void fill_outflow(const LevelGeom& geom, Fab& fab);

}  // namespace pw
