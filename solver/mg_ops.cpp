#include "solver/mg_ops.hpp"

#include <stdexcept>
#include <string>

#include "amr/patch_teams.hpp"
#include "solver/cg_rows.hpp"

namespace pw::mg {

PoissonStencil stencil(const LevelGeom& g, const PoissonBc& bc) {
  PoissonStencil s;
  s.dim = g.dim;
  s.domain = g.domain;
  for (int d = 0; d < g.dim; ++d) {
    s.w[d] = 1.0 / (g.dx[d] * g.dx[d]);
    for (int side = 0; side < 2; ++side) {
      if (g.periodic[d]) continue;
      const FaceBc& f = bc.face(d, side);
      s.wall[d][side] = true;
      if (f.kind == BcKind::dirichlet) {
        s.a[d][side] = 2.0 * f.value;
        s.b[d][side] = -1.0;
      } else {  // neumann: the outward derivative
        s.a[d][side] = f.value * g.dx[d];
        s.b[d][side] = 1.0;
      }
    }
  }
  return s;
}

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

/// The cells of colour `color` of row (j, k) of patch box b, the ii0-th to the ii1-th
/// of them (a row of colour_rows).
KOKKOS_FORCEINLINE_FUNCTION void gauss_seidel_row(
    const Box& b, int color, int j, int k, int ii0, int ii1, const Field3& u,
    const Field3& f, const PoissonStencil& s, const InteriorStencil& in, double omega) {
  const int lo0 = b.lo[0], hi0 = b.hi[0];
  // ii counts the colour's cells along the row (the last may fall outside on rows that
  // start with the other colour).
  const int first = lo0 + ((color - lo0 - j - k) & 1);
  with_row_stencil(row_clear_of_walls(lo0, hi0, j, k, s), in, s, [&](const auto& st) {
    PW_INDEPENDENT_ITERATIONS
    for (int ii = ii0; ii <= ii1; ++ii) {
      const int i = first + 2 * ii;
      if (i <= hi0) gauss_seidel_cell(i, j, k, u, f, st, omega);
    }
  });
}

void gauss_seidel(const LevelData& u, const LevelData& f, const BoxSet& rows, int color,
                  const PoissonStencil& s, double omega) {
  const Refs ur = u.refs(), fr = f.refs();
  const StructArray<Box> boxes = u.patch_boxes();
  const InteriorStencil in = interior(s);
  for_each_box_row(
      "mg::gauss_seidel", rows, KOKKOS_LAMBDA(int p, int j, int k, int ii0, int ii1) {
        gauss_seidel_row(boxes(p), color, j, k, ii0, ii1, ur(p).c0, fr(p).c0, s, in,
                         omega);
      });
}

/// Within a team: patch p's cells of parity `parity` (-1: all) that c's plan sends, into
/// its send buffer. No barrier. Kept out of the flattened sweep, whose loops it slowed.
PW_NOINLINE KOKKOS_FUNCTION void team_pack(const TeamMember& m, const CopiesByPatch& c,
                                           int p, const Refs& u, int parity) {
  for (int n = c.sent_first(p); n < c.sent_first(p + 1); ++n) {
    const CopyPlan::Piece pc = c.sent_pieces(n);
    team_copy_piece(m, pc, u(p), FabRef{}, FabRef{},
                    c.sent.data() + pc.buf_cell * c.ncomp, 0.0, c.ncomp, parity);
  }
}

void gauss_seidel_with_copies(const LevelData& u, const CopiesByPatch& copies,
                              const LevelData& f, const BoxSet& rows, int color,
                              const PoissonStencil& s, double omega,
                              std::optional<int> pack, bool copy, bool zero,
                              const CopiesByPatch* pack_plan) {
  if (u.ncomp() != 1)
    throw std::logic_error("mg::gauss_seidel_with_copies: one component (it copies c0)");
  if (copy && zero)
    throw std::logic_error("mg::gauss_seidel_with_copies: copies into a zeroed guess");
  if (rows.empty()) return;
  const Refs ur = u.refs(), fr = f.refs();
  // Patch p's fab is box n of fab_boxes() as its rows are box n of rows: both list the
  // owned patches in order.
  const BoxSet fabs = zero ? u.fab_boxes() : BoxSet();
  if (zero && fabs.size() != rows.size())
    throw std::logic_error(
        "mg::gauss_seidel_with_copies: rows other than colour_rows(u)");
  const StructArray<Box> boxes = u.patch_boxes();
  const InteriorStencil in = interior(s);
  const CopiesByPatch c = copies;
  const CopiesByPatch sends = pack_plan ? *pack_plan : copies;
  const int parity = 1 - color;  // the ghosts the colour reads
  const bool packs = pack.has_value() && sends.sent_pieces.extent(0) > 0;
  const int pack_parity = pack.value_or(-1);
  Kokkos::parallel_for(
      "mg::gauss_seidel_with_copies", team_policy(rows.size(), 0),
      KOKKOS_LAMBDA(const TeamMember& m) PW_FLATTEN {
        const int n = m.league_rank(), p = rows.item(n);
        if (zero) {
          const Field3 a = ur(p).c0;
          team_rows(m, fabs.box(n), [&](int j, int k, int i0, int i1) {
            PW_INDEPENDENT_ITERATIONS
            for (int i = i0; i <= i1; ++i)
              a(i, j, k) = 0.0;
          });
          m.team_barrier();
        }
        // The patch's ghosts of the other colour: copies of cells of that colour (or of
        // its own cells, scaled; or received), which no team writes in this launch.
        if (copy) {
          team_copies(m, c, p, ur, parity);
          m.team_barrier();
        }
        const Box b = boxes(p);
        const Field3 ua = ur(p).c0, fa = fr(p).c0;
        team_rows(m, rows.box(n), [&](int j, int k, int ii0, int ii1) {
          gauss_seidel_row(b, color, j, k, ii0, ii1, ua, fa, s, in, omega);
        });
        if (!packs) return;
        // The pack reads the patch's own cells only: the team's sweep is all it waits
        // for.
        m.team_barrier();
        team_pack(m, sends, p, ur, pack_parity);
      });
}

void residual(const LevelData& r, const LevelData& u, const LevelData& f,
              const PoissonStencil& s) {
  const Refs rr = r.refs(), ur = u.refs(), fr = f.refs();
  const InteriorStencil in = interior(s);
  for_each_box_row(
      "mg::residual", u.interiors(), KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        residual_row(j, k, i0, i1, rr(p).c0, ur(p).c0, fr(p).c0, s, in);
      });
}

// The composite coarse-fine rule, for composite_cf_ghosts and the residual's stage.
namespace cf_detail {

/// Lagrange weights at the ghost's centre (y = -1/2, y: fine cells from the face
/// inwards) of the quadratic through the coarse centre (y = -r/2) and the fine centres
/// y = 1/2 and 3/2.
void composite_weights(int r, double& w0, double& w1, double& w2) {
  w0 = 8.0 / double((r + 1) * (r + 3));
  w1 = 2.0 * (r - 1) / double(r + 1);
  w2 = -double(r - 1) / double(r + 3);
}

/// composite_cf_ghosts on cells i0..i1 of row (j, k) of patch p's coarse-fine ghosts
/// (a = u's patch p): those in the first layer beside exactly one face.
KOKKOS_INLINE_FUNCTION void composite_cf_row(const CompositeCfStage& cf, int p,
                                             const Field3& a, int j, int k, int i0,
                                             int i1) {
  const Box b = cf.boxes(p);
  const Field3 c = cf.crse(p).c0;
  const int r = cf.ratio;
  for (int i = i0; i <= i1; ++i) {
    int d, out;
    if (!face_ghost(b, i, j, k, d, out)) continue;
    const int di = d == 0 ? out : 0, dj = d == 1 ? out : 0, dk = d == 2 ? out : 0;
    double coarse = 0.0;  // the r layers outside lie in one coarse cell
    for (int m = 0; m < r; ++m)
      coarse += c(i + m * di, j + m * dj, k + m * dk);
    a(i, j, k) = cf.w0 * coarse / r + cf.w1 * a(i - di, j - dj, k - dk) +
                 cf.w2 * a(i - 2 * di, j - 2 * dj, k - 2 * dk);
  }
}

/// composite_cf_row over patch p's coarse-fine ghosts, shared by a team. No barrier.
KOKKOS_INLINE_FUNCTION void team_composite_cf(const TeamMember& m,
                                              const CompositeCfStage& cf, int p,
                                              const Field3& a) {
  team_set_rows(m, cf.cells, cf.of_patch(p), [&](int, int j, int k, int i0, int i1) {
    composite_cf_row(cf, p, a, j, k, i0, i1);
  });
}

}  // namespace cf_detail

using namespace cf_detail;

CompositeCfStage::CompositeCfStage(LevelData& u, const LevelData& crse_interp, int r)
    : on(true),
      cells(u.coarse_fine_set()),
      of_patch(u.coarse_fine_runs()),
      boxes(u.patch_boxes()),
      crse(crse_interp.refs()),
      ratio(r) {
  if (u.coarse_fine_from_inside())
    throw std::logic_error(
        "mg::CompositeCfStage: u's exchange sets its coarse-fine ghosts already");
  composite_weights(r, w0, w1, w2);
}

void residual_with_copies(const LevelData& r, const LevelData& u,
                          const CopiesByPatch& copies, const LevelData& f,
                          const PoissonStencil& s, const CompositeCfStage& cf) {
  if (u.ncomp() != 1)
    throw std::logic_error("mg::residual_with_copies: one component (it copies c0)");
  const BoxSet rows = u.interiors();
  if (rows.empty()) return;
  const Refs rr = r.refs(), ur = u.refs(), fr = f.refs();
  const InteriorStencil in = interior(s);
  const CopiesByPatch c = copies;
  Kokkos::parallel_for(
      "mg::residual_with_copies", team_policy(rows.size(), 0),
      KOKKOS_LAMBDA(const TeamMember& m) PW_FLATTEN {
        const int n = m.league_rank(), p = rows.item(n);
        // The patch's ghosts: copies of other patches' interiors (or of its own,
        // scaled; or received), which no team writes in this launch.
        team_copies(m, c, p, ur, -1);
        // Its coarse-fine ghosts: other cells, from its own interior.
        if (cf.on) team_composite_cf(m, cf, p, ur(p).c0);
        m.team_barrier();
        const Field3 ra = rr(p).c0, ua = ur(p).c0, fa = fr(p).c0;
        team_rows(m, rows.box(n), [&](int j, int k, int i0, int i1) {
          residual_row(j, k, i0, i1, ra, ua, fa, s, in);
        });
      });
}

double residual_max(const LevelData& r, const LevelData& u, const LevelData& f,
                    const PoissonStencil& s) {
  const Refs rr = r.refs(), ur = u.refs(), fr = f.refs();
  const InteriorStencil in = interior(s);
  if (u.interiors().empty()) return 0.0;
  return reduce_over_box_rows<double, Kokkos::Max<double>>(
      "mg::residual_max", u.interiors(),
      KOKKOS_LAMBDA(double& acc, int p, int j, int k, int i0, int i1) {
        const Field3 ra = rr(p).c0;
        residual_row(j, k, i0, i1, ra, ur(p).c0, fr(p).c0, s, in);
        for (int i = i0; i <= i1; ++i)
          keep_larger(acc, magnitude(ra(i, j, k)));
      });
}

double residual_max_with_copies(const LevelData& r, const LevelData& u,
                                const CopiesByPatch& copies, int parity,
                                const LevelData& f, const PoissonStencil& s) {
  if (u.ncomp() != 1)
    throw std::logic_error("mg::residual_max_with_copies: one component (it copies c0)");
  const BoxSet rows = u.interiors();
  if (rows.empty()) return 0.0;
  const Refs rr = r.refs(), ur = u.refs(), fr = f.refs();
  const InteriorStencil in = interior(s);
  const CopiesByPatch c = copies;
  double out = 0.0;
  Kokkos::parallel_reduce(
      "mg::residual_max_with_copies", team_policy(rows.size(), 0),
      KOKKOS_LAMBDA(const TeamMember& m, double& acc) PW_FLATTEN {
        const int n = m.league_rank(), p = rows.item(n);
        team_copies(m, c, p, ur, parity);  // as residual_with_copies
        m.team_barrier();
        const Field3 ra = rr(p).c0, ua = ur(p).c0, fa = fr(p).c0;
        const double patch_max = team_reduce_rows<Kokkos::Max<double>>(
            m, rows.box(n), 0.0, [&](double& row_acc, int j, int k, int i0, int i1) {
              residual_row(j, k, i0, i1, ra, ua, fa, s, in);
              for (int i = i0; i <= i1; ++i)
                keep_larger(row_acc, magnitude(ra(i, j, k)));
            });
        Kokkos::single(Kokkos::PerTeam(m), [&] { keep_larger(acc, patch_max); });
      },
      Kokkos::Max<double>(out));
  return out;
}

double laplacian_max_product(const LevelData& out, const LevelData& u,
                             const PoissonStencil& s) {
  const Refs outr = out.refs(), ur = u.refs();
  const InteriorStencil in = interior(s);
  if (u.interiors().empty()) return 0.0;
  return reduce_over_box_rows<double, Kokkos::Max<double>>(
      "mg::laplacian", u.interiors(),
      KOKKOS_LAMBDA(double& acc, int p, int j, int k, int i0, int i1) {
        laplacian_row(acc, j, k, i0, i1, outr(p).c0, ur(p).c0, s, in);
      });
}

void face_gradients(LevelData grad[3], const LevelData& u, const BoxSet& faces) {
  const int dim = u.geom().dim;
  const Refs ur = u.refs(), g0 = grad[0].refs(), g1 = grad[dim > 1 ? 1 : 0].refs(),
             g2 = grad[dim > 2 ? 2 : 0].refs();
  const double inv_dx0 = 1.0 / u.geom().dx[0], inv_dx1 = 1.0 / u.geom().dx[1],
               inv_dx2 = 1.0 / u.geom().dx[2];
  for_each_box_row(
      "mg::face_gradients", faces, KOKKOS_LAMBDA(int item, int j, int k, int i0, int i1) {
        const int p = item / 3, d = item % 3;
        const Field3 ga = (d == 0 ? g0 : d == 1 ? g1 : g2)(p).c0, ua = ur(p).c0;
        const double inv_dx = d == 0 ? inv_dx0 : d == 1 ? inv_dx1 : inv_dx2;
        const int di = d == 0, dj = d == 1, dk = d == 2;
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i)
          ga(i, j, k) = (ua(i, j, k) - ua(i - di, j - dj, k - dk)) * inv_dx;
      });
}

/// restrict_residual_cell over cells i0..i1 of coarse row (j, k).
KOKKOS_FORCEINLINE_FUNCTION void restrict_residual_row(int j, int k, int i0, int i1,
                                                       const Field3& ca, const Field3& ua,
                                                       const Field3& fa,
                                                       const PoissonStencil& s,
                                                       const InteriorStencil& in) {
  const int nk = s.dim == 3 ? 2 : 1;  // the fine cells under the row
  const int lo[3] = {2 * i0, 2 * j, nk * k};
  const int hi[3] = {2 * i1 + 1, 2 * j + 1, nk * k + nk - 1};
  with_row_stencil(clear_of_walls(lo, hi, s), in, s, [&](const auto& st) {
    PW_INDEPENDENT_ITERATIONS
    for (int i = i0; i <= i1; ++i)
      restrict_residual_cell(i, j, k, ca, ua, fa, st);
  });
}

void restrict_residual(const LevelData& crse, const LevelData& u, const LevelData& f,
                       const PoissonStencil& s) {
  const Refs cr = crse.refs(), ur = u.refs(), fr = f.refs();
  const InteriorStencil in = interior(s);
  for_each_box_row(
      "mg::restrict_residual", crse.interiors(),
      KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        restrict_residual_row(j, k, i0, i1, cr(p).c0, ur(p).c0, fr(p).c0, s, in);
      });
}

void prolong_add(const LevelData& fine, const Refs& crse, int dim, Prolong how) {
  const Refs fr = fine.refs();
  for_each_box_row(
      "mg::prolong", fine.interiors(),
      KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        const Field3 fa = fr(p).c0, ca = crse(p).c0;
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i)
          prolong_cell(i, j, k, fa, ca, dim, how);
      });
}

// Named, not unnamed: see cf_detail below.
namespace stage_detail {

/// Whether u is given, and then that it has one component (the stages set c0 alone).
inline bool one_component(const LevelData* u, const char* what) {
  if (u && u->ncomp() != 1)
    throw std::logic_error(std::string("mg: ") + what + " has more than one component");
  return u != nullptr;
}

/// What a restriction stage reads and writes, on the device.
struct RestrictOps {
  bool on = false, zero = false, packs = false;
  int parity = -1;
  BoxSet rows;  // the coarse interiors restricted into (crse's, or the stage's rows)
  Refs cr, zr;
  StructArray<Box> zboxes;
  IntVect zghost;
  CopiesByPatch send;  // the coarse grid's feed, packed where `packs`
  RestrictOps() = default;
  explicit RestrictOps(const RestrictStage& to)
      : on(one_component(to.crse, "the restriction's coarse grid")),
        zero(one_component(to.zeroed, "the restriction's zeroed field")),
        packs(on && to.send && to.send->sent_pieces.extent(0) > 0),
        parity(to.parity),
        rows(!on       ? BoxSet()
             : to.rows ? *to.rows
                       : to.crse->interiors()),
        cr(on ? to.crse->refs() : Refs()),
        zr(zero ? to.zeroed->refs() : Refs()),
        zboxes(zero ? to.zeroed->patch_boxes() : StructArray<Box>()),
        zghost(zero ? to.zeroed->ghost() : IntVect{}),
        send(packs ? *to.send : CopiesByPatch()) {}
};

/// What a prolongation stage reads and writes, on the device.
struct ProlongOps {
  bool on = false;
  Prolong how = Prolong::constant;
  BoxSet rows;  // the fine interiors
  Refs fr, cr;
  StructArray<Box> cboxes;
  IntVect cghost;
  LevelGeom geom;  // the coarse grid's
  ComponentBc walls;
  CopiesByPatch copies;  // the coarse grid's
  ProlongOps() = default;
  ProlongOps(const LevelData& fine, const ProlongStage& from)
      : on(one_component(from.crse, "the prolongation's coarse grid")),
        how(from.how),
        walls(from.walls) {
    if (!on) return;
    if (!from.copies)
      throw std::logic_error("mg: a prolongation stage without its coarse copies");
    rows = fine.interiors();
    fr = fine.refs();
    cr = from.crse->refs();
    cboxes = from.crse->patch_boxes();
    cghost = from.crse->ghost();
    geom = from.crse->geom();
    copies = *from.copies;
  }
};

/// Zero patch p of the restriction's `zeroed` (its first guess), over_rows as
/// team_each_patch's.
template <class R>
KOKKOS_FORCEINLINE_FUNCTION void zero_patch(const RestrictOps& o, int p,
                                            const R& over_rows) {
  const Field3 za = o.zr(p).c0;
  over_rows(grow(o.zboxes(p), o.zghost), [&](int j, int k, int i0, int i1) {
    for (int i = i0; i <= i1; ++i)
      za(i, j, k) = 0.0;
  });
}

/// Restrict the residual into crse's patch of row set entry n.
template <class R>
KOKKOS_FORCEINLINE_FUNCTION void restrict_patch(const RestrictOps& o, int n,
                                                const Refs& ur, const Refs& fr,
                                                const PoissonStencil& s,
                                                const InteriorStencil& in,
                                                const R& over_rows) {
  const int p = o.rows.item(n);
  const Field3 ca = o.cr(p).c0, ua = ur(p).c0, fa = fr(p).c0;
  over_rows(o.rows.box(n), [&](int j, int k, int i0, int i1) {
    restrict_residual_row(j, k, i0, i1, ca, ua, fa, s, in);
  });
}

/// The coarse patch under the fine patch of row set entry n (ghosts included).
KOKKOS_FORCEINLINE_FUNCTION FabField coarse_fab(const ProlongOps& o, int n) {
  const int p = o.rows.item(n);
  return {grow(o.cboxes(p), o.cghost), o.cr(p).c0};
}

/// Prolong into the fine patch of row set entry n.
template <class R>
KOKKOS_FORCEINLINE_FUNCTION void prolong_patch(const ProlongOps& o, int n,
                                               const R& over_rows) {
  const int p = o.rows.item(n);
  const Field3 fa = o.fr(p).c0, ca = o.cr(p).c0;
  const int dim = o.geom.dim;
  const Prolong how = o.how;
  over_rows(o.rows.box(n), [&](int j, int k, int i0, int i1) {
    PW_INDEPENDENT_ITERATIONS
    for (int i = i0; i <= i1; ++i)
      prolong_cell(i, j, k, fa, ca, dim, how);
  });
}

/// Within a team: patch p's cells of the restriction's coarse grid that its feed sends
/// (after they were restricted, a barrier between). No barrier.
KOKKOS_INLINE_FUNCTION void team_pack_restricted(const TeamMember& m,
                                                 const RestrictOps& o, int p) {
  if (o.packs) team_pack(m, o.send, p, o.cr, -1);
}

/// Within one team: the prolongation stage over every patch (the coarse ghosts' copies,
/// the walls face by face, the prolongation), barriers between.
KOKKOS_INLINE_FUNCTION void team_prolong_all(const TeamMember& m, const ProlongOps& o) {
  team_copies(m, o.copies, -1, o.cr, -1);
  m.team_barrier();
  const int count = o.rows.size();
  team_fill_walls(m, o.geom, o.walls, count, [&](int n) { return coarse_fab(o, n); });
  team_each_patch(m, count,
                  [&](int n, const auto& over_rows) { prolong_patch(o, n, over_rows); });
  m.team_barrier();
}

}  // namespace stage_detail

using namespace stage_detail;

void smooth_in_one_team(const LevelData& u, const CopiesByPatch& copies,
                        const LevelData& f, const BoxSet& rows, int sweeps,
                        const PoissonStencil& s, double omega, const ProlongStage& before,
                        const RestrictStage& after, const FeedStage& fed) {
  if (u.ncomp() != 1)
    throw std::logic_error("mg::smooth_in_one_team: one component (it copies c0)");
  const ProlongOps pro(u, before);
  const RestrictOps res(after);
  const FeedOps first(u, f, fed);
  if (first.on() && pro.on)
    throw std::logic_error("mg::smooth_in_one_team: a feed under a prolongation");
  if (rows.empty() || (sweeps == 0 && !pro.on && !res.on && !first.on())) return;
  const Refs ur = u.refs(), fr = f.refs();
  const StructArray<Box> boxes = u.patch_boxes();
  const InteriorStencil in = interior(s);
  const CopiesByPatch c = copies;
  Kokkos::parallel_for(
      "mg::smooth_in_one_team", team_policy(1, 0),
      KOKKOS_LAMBDA(const TeamMember& m) PW_FLATTEN {
        if (pro.on) team_prolong_all(m, pro);
        if (first.on()) {
          team_feed(m, first);
          m.team_barrier();
        }
        for (int sweep = 0; sweep < sweeps; ++sweep)
          for (int color = 0; color < 2; ++color) {
            team_copies(m, c, -1, ur, 1 - color);
            m.team_barrier();
            // Patch by patch, what a row shares loaded once (short rows on coarse grids).
            team_each_patch(m, rows.size(), [&](int n, const auto& over_rows) {
              const int p = rows.item(n);
              const Box b = boxes(p);
              const Field3 ua = ur(p).c0, fa = fr(p).c0;
              over_rows(rows.box(n), [&](int j, int k, int ii0, int ii1) {
                gauss_seidel_row(b, color, j, k, ii0, ii1, ua, fa, s, in, omega);
              });
            });
            m.team_barrier();
          }
        if (!res.on) return;
        team_copies(m, c, -1, ur, res.parity);
        if (res.zero)
          team_each_patch(m, res.rows.size(), [&](int n, const auto& over_rows) {
            zero_patch(res, res.rows.item(n), over_rows);
          });
        m.team_barrier();
        team_each_patch(m, res.rows.size(), [&](int n, const auto& over_rows) {
          restrict_patch(res, n, ur, fr, s, in, over_rows);
        });
        if (!res.packs) return;
        m.team_barrier();
        for (int n = 0; n < res.rows.size(); ++n)
          team_pack_restricted(m, res, res.rows.item(n));
      });
}

void restrict_residual_with_copies(const LevelData& u, const CopiesByPatch& copies,
                                   const LevelData& f, const PoissonStencil& s,
                                   const RestrictStage& to) {
  if (u.ncomp() != 1)
    throw std::logic_error(
        "mg::restrict_residual_with_copies: one component (it copies c0)");
  const RestrictOps o(to);
  if (!o.on || o.rows.empty()) return;
  const Refs ur = u.refs(), fr = f.refs();
  const InteriorStencil in = interior(s);
  const CopiesByPatch c = copies;
  Kokkos::parallel_for(
      "mg::restrict_residual_with_copies", team_policy(o.rows.size(), 0),
      KOKKOS_LAMBDA(const TeamMember& m) PW_FLATTEN {
        const int n = m.league_rank(), p = o.rows.item(n);
        const auto team_shares = [&](const Box& b, const auto& row) {
          team_rows(m, b, row);
        };
        // The fine patch's ghosts: copies of other patches' interiors (or of its own,
        // scaled; or received), which no team writes in this launch.
        team_copies(m, c, p, ur, o.parity);
        if (o.zero) zero_patch(o, p, team_shares);
        m.team_barrier();
        restrict_patch(o, n, ur, fr, s, in, team_shares);
        if (!o.packs) return;
        // The pack reads the coarse patch the team restricted into.
        m.team_barrier();
        team_pack_restricted(m, o, p);
      });
}

void feed(LevelData& u, const LevelData& f, const FeedStage& fed) {
  if (fed.copies && !(fed.copies->boxes.empty() && fed.copies->received_boxes.empty())) {
    const CopiesByPatch c = *fed.copies;
    const Refs fr = f.refs();
    Kokkos::parallel_for(
        "mg::feed", team_policy(int(f.size()), 0), KOKKOS_LAMBDA(const TeamMember& m) {
          team_copies(m, c, m.league_rank(), fr, -1);
        });
  }
  if (fed.zero) u.set_val(0.0);
}

void prolong_add_with_copies(const LevelData& fine, const ProlongStage& from,
                             const CopiesByPatch* pack, int parity) {
  const ProlongOps o(fine, from);
  if (!o.on || o.rows.empty()) return;
  if (pack && fine.ncomp() != 1)
    throw std::logic_error("mg::prolong_add_with_copies: packs one component");
  const CopiesByPatch fc = pack ? *pack : CopiesByPatch();
  const bool packs = pack && fc.sent_pieces.extent(0) > 0;
  Kokkos::parallel_for(
      "mg::prolong_add_with_copies", team_policy(o.rows.size(), 0),
      KOKKOS_LAMBDA(const TeamMember& m) PW_FLATTEN {
        const int n = m.league_rank(), p = o.rows.item(n);
        // The coarse patch's ghosts: copies of other coarse patches' interiors (or of
        // its own, scaled; or received), which no team writes, then its walls, from its
        // own cells.
        team_copies(m, o.copies, p, o.cr, -1);
        m.team_barrier();
        team_fill_walls(m, o.geom, o.walls, 1, [&](int) { return coarse_fab(o, n); });
        prolong_patch(o, n, [&](const Box& b, const auto& row) { team_rows(m, b, row); });
        if (!packs) return;
        // The pack reads the fine patch's own cells: its prolongation is all it waits
        // for.
        m.team_barrier();
        team_pack(m, fc, p, o.fr, parity);
      });
}

void composite_cf_ghosts(LevelData& u, const LevelData& crse_interp, int ratio) {
  const CompositeCfStage cf(u, crse_interp, ratio);
  const Refs ur = u.refs();
  for_each_box_row(
      "mg::composite_cf_ghosts", cf.cells,
      KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        composite_cf_row(cf, p, ur(p).c0, j, k, i0, i1);
      });
}

LevelData::InsideRule composite_cf_rule(int ratio) {
  double w0, w1, w2;
  composite_weights(ratio, w0, w1, w2);
  return {w1, w2};
}

void axpy(const LevelData& y, double a, const Refs& x) {
  const Refs yr = y.refs();
  for_each_box_cell(
      "mg::axpy", y.interiors(),
      KOKKOS_LAMBDA(int p, int i, int j, int k) { yr(p)(i, j, k) += a * x(p)(i, j, k); });
}

void xpby(const LevelData& p, const LevelData& r, double beta) {
  const Refs pr = p.refs(), rr = r.refs();
  for_each_box_row(
      "mg::xpby", p.interiors(), KOKKOS_LAMBDA(int n, int j, int k, int i0, int i1) {
        xpby_row(j, k, i0, i1, pr(n).c0, rr(n).c0, beta);
      });
}

double cg_step(const LevelData& x, const LevelData& r, double alpha, const LevelData& p,
               const LevelData& q) {
  const Refs xr = x.refs(), rr = r.refs(), pr = p.refs(), qr = q.refs();
  const double minus_alpha = -alpha;  // r += (-alpha) q, as axpy(r, -alpha, q) did
  if (r.interiors().empty()) return 0.0;
  return reduce_over_box_rows<double, Kokkos::Max<double>>(
      "mg::cg_step", r.interiors(),
      KOKKOS_LAMBDA(double& acc, int n, int j, int k, int i0, int i1) {
        cg_step_row(acc, j, k, i0, i1, xr(n).c0, rr(n).c0, pr(n).c0, qr(n).c0, alpha,
                    minus_alpha);
      });
}

void add_constant(const LevelData& u, double c, bool ghosts) {
  if (!ghosts) return scale_shift(u, 1.0, c);
  const Refs ur = u.refs();
  for_each_box_cell(
      "mg::add_constant", u.fab_boxes(),
      KOKKOS_LAMBDA(int p, int i, int j, int k) { ur(p)(i, j, k) += c; });
}

void scale_shift(const LevelData& u, double a, double b) {
  const Refs ur = u.refs();
  for_each_box_cell(
      "mg::scale_shift", u.interiors(), KOKKOS_LAMBDA(int p, int i, int j, int k) {
        ur(p)(i, j, k) = a * ur(p)(i, j, k) + b;
      });
}

double scaled_copy(const LevelData& to, const LevelData& from, int comp, double a,
                   double b, const LevelData* also, int also_comp) {
  if (also && (also->layout() != to.layout() || also->ncomp() != 1))
    throw std::logic_error("mg::scaled_copy: `also` of another layout or shape");
  const Refs tr = to.refs(), fr = from.refs();
  const Refs cr = also ? also->refs() : Refs();
  const bool copies = also != nullptr;
  return max_over_box_cells(
      "mg::scaled_copy", to.interiors(), KOKKOS_LAMBDA(int p, int i, int j, int k) {
        const double v = fr(p)(i, j, k, comp);
        tr(p)(i, j, k) = a * v + b;
        if (copies) cr(p)(i, j, k) = fr(p)(i, j, k, also_comp);
        return magnitude(v);
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
  if (a.interiors().empty()) return 0.0;
  return reduce_over_box_rows<double, Kokkos::Max<double>>(
      "mg::max_abs_product", a.interiors(),
      KOKKOS_LAMBDA(double& acc, int p, int j, int k, int i0, int i1) {
        largest_product_row(acc, j, k, i0, i1, ar(p).c0, cr(p).c0);
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
  return reduce_over_box_rows<ExactSum, Kokkos::Sum<ExactSum>>(
      "mg::exact_dot", a.interiors(),
      KOKKOS_LAMBDA(ExactSum & acc, int p, int j, int k, int i0, int i1) {
        dot_row(acc, j, k, i0, i1, ar(p).c0, cr(p).c0, inv_scale);
      });
}

}  // namespace pw::mg
