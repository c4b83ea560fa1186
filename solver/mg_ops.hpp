// Launches of the solver's per-cell functions over all owned patches of a level at once
// (component 0 of each field; one kernel per call, see amr/box_set.hpp), and the
// reductions the solver needs, reduced exactly where a sum is involved. Each reduction
// returns this rank's part.
#pragma once

#include <optional>

#include "amr/boundary.hpp"
#include "amr/box_set.hpp"
#include "amr/level_data.hpp"
#include "amr/parallel_copy.hpp"
#include "amr/patch_teams.hpp"
#include "amr/reproducible_sum.hpp"
#include "solver/mg_config.hpp"
#include "solver/poisson_kernels.hpp"

namespace pw::mg {

using Refs = StructArray<FabRef>;

/// The Laplacian of level geometry g with the domain conditions bc folded in.
PoissonStencil stencil(const LevelGeom& g, const PoissonBc& bc);

/// The rows of the cells of one colour of u's owned patches: each box's x extent halved
/// (what gauss_seidel iterates over).
BoxSet colour_rows(const LevelData& u);
/// One colour of red-black Gauss-Seidel on u's owned patches, over-relaxed by omega;
/// rows = colour_rows(u).
void gauss_seidel(const LevelData& u, const LevelData& f, const BoxSet& rows, int color,
                  const PoissonStencil& s, double omega);
/// gauss_seidel, after u's ghosts of the other colour (the ones it reads) from copies
/// (u.copies_by_patch(true); u of one component), each patch's team making its
/// own and then sweeping it: the exchange's on-rank copies, its unpacking and the sweep
/// in one launch, the same bits. After u.fill_boundary(comm, true, 1 - color,
/// Copies::messages), or Copies::packed if the launch before packed with parity
/// 1 - color. Only where every copy reads a cell of the colour it writes, or a cell of
/// its own patch: not across a periodic seam of odd length. `pack` (a parity, -1: all
/// cells): then each team packs its patch's cells that other ranks receive (the sent
/// pieces of pack_plan, default copies), for the next exchange of that plan, of
/// Copies::packed and that parity. copy false:
/// no copies (no exchange before: the ghosts the colour reads are current). zero: each
/// team first sets every cell of its patch's fab to 0, ghosts included (a correction's
/// first guess: the ghosts it reads are then current, so no copies).
void gauss_seidel_with_copies(const LevelData& u, const CopiesByPatch& copies,
                              const LevelData& f, const BoxSet& rows, int color,
                              const PoissonStencil& s, double omega,
                              std::optional<int> pack = std::nullopt, bool copy = true,
                              bool zero = false,
                              const CopiesByPatch* pack_plan = nullptr);
/// r = f - L u on u's owned interiors (r: any field of u's layout).
void residual(const LevelData& r, const LevelData& u, const LevelData& f,
              const PoissonStencil& s);
/// composite_cf_ghosts(u, crse_interp, ratio) as a stage of a launch of u's, each
/// patch's team setting its own coarse-fine ghosts (default: none). Not with a
/// coarse-fine rule in u's exchange (LevelData::set_coarse_fine_from_inside).
struct CompositeCfStage {
  CompositeCfStage() = default;
  CompositeCfStage(LevelData& u, const LevelData& crse_interp, int ratio);
  bool on = false;
  BoxSet cells;                         // u.coarse_fine_set()
  StructArray<BoxSet::Range> of_patch;  // u.coarse_fine_runs()
  StructArray<Box> boxes;               // u's patch boxes
  Refs crse;                            // crse_interp's
  int ratio = 2;
  double w0 = 0.0, w1 = 0.0, w2 = 0.0;
};
/// residual, after u's ghosts from copies (u.copies_by_patch(cross); u of one
/// component) and `cf` (if on), each patch's team making its own first: the bits of the
/// exchange, composite_cf_ghosts and residual in one launch. After
/// u.fill_boundary(comm, cross, -1, Copies::messages). r may be f.
void residual_with_copies(const LevelData& r, const LevelData& u,
                          const CopiesByPatch& copies, const LevelData& f,
                          const PoissonStencil& s, const CompositeCfStage& cf = {});
/// residual, returning from the same launch max |r| over r's owned interiors (this
/// rank's).
double residual_max(const LevelData& r, const LevelData& u, const LevelData& f,
                    const PoissonStencil& s);
/// residual_max, after u's ghosts of parity `parity` (-1: all) from copies
/// (u.copies_by_patch(true); u of one component), each patch's team making its own
/// first: the bits of the exchange and residual_max in one launch. After
/// u.fill_boundary(comm, true, parity, Copies::messages), or Copies::packed if the
/// launch before packed with that parity.
double residual_max_with_copies(const LevelData& r, const LevelData& u,
                                const CopiesByPatch& copies, int parity,
                                const LevelData& f, const PoissonStencil& s);
/// out = L u on u's owned interiors, returning from the same launch max |u out| over
/// them (the scale of conjugate gradients' dot(p, L p): one launch fewer per iteration).
double laplacian_max_product(const LevelData& out, const LevelData& u,
                             const PoissonStencil& s);
/// grad[d] = (u(i) - u(i - e_d)) / dx_d on the faces `faces` (face indices, items 3 p +
/// d: u's owned patch p, normal d) (grad[d]: face-centred, u's layout; reads one ghost
/// layer of u). One launch for every direction.
void face_gradients(LevelData grad[3], const LevelData& u, const BoxSet& faces);
/// crse's interiors = mean over the fine cells under each coarse cell of f - L u (crse:
/// u's layout coarsened by 2, same owners).
void restrict_residual(const LevelData& crse, const LevelData& u, const LevelData& f,
                       const PoissonStencil& s);
/// fine's interiors += the coarse correction crse(p) of each patch p (piecewise
/// constant, or linear: reads the coarse ghosts).
void prolong_add(const LevelData& fine, const Refs& crse, int dim, Prolong how);
/// The restriction of u's residual that a launch of u's may end with (crse == nullptr:
/// none): u's ghosts of parity `parity` (1, or all: -1) from its copies, then
/// restrict_residual into crse (u's layout coarsened by 2, same owners), and every cell
/// of `zeroed` (crse's layout, ghosts included) = 0 when not null (the coarse grid's
/// first guess). Where crse is held whole by every rank (u's layout coarsened, every
/// patch on this rank): `rows`, the interiors of the patches under u's owned ones, are
/// those restricted into; and each team then packs them, its patch's cells that `send`
/// (crse's feed, a plan from u's owners to every rank) sends, for the feed's exchange
/// of Copies::packed.
struct RestrictStage {
  LevelData* crse = nullptr;
  LevelData* zeroed = nullptr;
  int parity = -1;
  const BoxSet* rows = nullptr;
  const CopiesByPatch* send = nullptr;
};
/// What a coarse grid's first launch takes first (none by default), where the
/// restriction into it did not: u = 0, ghosts included (its first guess); the copies
/// (received cells) into f of `copies`, its feed's (RestrictStage::send's plan), after
/// that plan's exchange of Copies::packed.
struct FeedStage {
  bool zero = false;
  const CopiesByPatch* copies = nullptr;
};
/// The feed stage in launches of its own: the copies (a team per patch of f), u = 0.
void feed(LevelData& u, const LevelData& f, const FeedStage& fed);
/// What a feed stage reads and writes, on the device (for the one-team launches that
/// start with one: smooth_in_one_team, TeamCg::solve).
struct FeedOps {
  bool zero = false, copies = false;
  StructArray<FabRef> ur, fr;
  BoxSet cells;  // u's fabs, ghosts included
  CopiesByPatch into_f;
  FeedOps() = default;
  FeedOps(const LevelData& u, const LevelData& f, const FeedStage& fed)
      : zero(fed.zero),
        copies(fed.copies != nullptr),
        ur(u.refs()),
        fr(f.refs()),
        cells(fed.zero ? u.fab_boxes() : BoxSet()),
        into_f(copies ? *fed.copies : CopiesByPatch()) {}
  KOKKOS_INLINE_FUNCTION bool on() const { return zero || copies; }
};
/// Within one team: the feed stage over every patch. No barrier.
KOKKOS_INLINE_FUNCTION void team_feed(const TeamMember& m, const FeedOps& o) {
  if (o.copies) team_copies(m, o.into_f, -1, o.fr, -1);
  if (o.zero) team_zero(m, o.ur, o.cells);
}
/// The prolongation a launch into fine may start with (crse == nullptr: none): crse's
/// ghosts from `copies` (crse.copies_by_patch(false); crse of one component,
/// fine's layout coarsened by 2) and beyond the walls by `walls`, then prolong_add.
struct ProlongStage {
  LevelData* crse = nullptr;
  const CopiesByPatch* copies = nullptr;
  ComponentBc walls;
  Prolong how = Prolong::constant;
  // crse's last launch packed what its exchange (every ghost, every parity) sends: it
  // takes Copies::packed.
  bool packed = false;
};
/// The restriction stage `to` in one launch, a team per patch making its own patch's
/// ghost copies (copies: u.copies_by_patch(true); u of one component; no team
/// writes what another reads): the bits of the exchange, restrict_residual and
/// set_val(0). After u.fill_boundary(comm, true, to.parity, Copies::messages).
void restrict_residual_with_copies(const LevelData& u, const CopiesByPatch& copies,
                                   const LevelData& f, const PoissonStencil& s,
                                   const RestrictStage& to);
/// The prolongation stage `from` in one launch, a team per patch filling its own coarse
/// patch's ghosts: the bits of crse's exchange, its fill_physical_boundary and
/// prolong_add. After crse.fill_boundary(comm, false, -1, Copies::messages). `pack`
/// (fine.copies_by_patch(true); fine of one component): then each team packs its fine
/// patch's cells of `parity` (-1: all) that other ranks receive, for fine's next
/// exchange, of Copies::packed and that parity (as gauss_seidel_with_copies's pack).
void prolong_add_with_copies(const LevelData& fine, const ProlongStage& from,
                             const CopiesByPatch* pack = nullptr, int parity = -1);
/// `sweeps` red-black sweeps of u (gauss_seidel of colour 0, then 1) in one launch by
/// one team, each half-sweep after u's ghosts of the colour it reads from copies
/// (u.copies_by_patch(true); u of one component), a barrier between the
/// stages; `before` and `after` (if any) as the launch's first and last stages: for a
/// grid whose exchanges have no message on this rank (before's coarse grid's messages
/// exchanged first, as for prolong_add_with_copies), and `fed` (not with `before`) first
/// of all. The bits of the exchanges and separate launches.
void smooth_in_one_team(const LevelData& u, const CopiesByPatch& copies,
                        const LevelData& f, const BoxSet& rows, int sweeps,
                        const PoissonStencil& s, double omega,
                        const ProlongStage& before = {}, const RestrictStage& after = {},
                        const FeedStage& fed = {});
/// The composite solve's coarse-fine ghosts (as AMReX's MLMG): along the normal, the
/// quadratic through the coarse value at the coarse cell's centre and the first two
/// fine cells inside, at the ghost's centre. The coarse value is the mean of the `ratio`
/// ghost layers of `crse_interp` (the coarse level interpolated there, quadratic in
/// every direction) at the ghost's transverse position: the coarse cell's value,
/// interpolated across the face only. Not with a coarse-fine rule in u's exchange
/// (std::logic_error; as CompositeCfStage).
void composite_cf_ghosts(LevelData& u, const LevelData& crse_interp, int ratio);
/// The rule composite_cf_ghosts gives a correction whose coarse part is zero (for
/// LevelData::set_coarse_fine_from_inside).
LevelData::InsideRule composite_cf_rule(int ratio);
/// y += a x(p) on y's owned interiors; p = r + beta p; u += c.
void axpy(const LevelData& y, double a, const Refs& x);
void xpby(const LevelData& p, const LevelData& r, double beta);
/// Conjugate gradients' update in one launch: x += alpha p, r -= alpha q, returning max
/// |r r| over this rank's interiors (the scale of the next dot(r, r)); the same bits as
/// axpy(x, alpha, p), axpy(r, -alpha, q) and max_abs_product(r, r). x, r, p, q: one
/// layout.
double cg_step(const LevelData& x, const LevelData& r, double alpha, const LevelData& p,
               const LevelData& q);
/// u += c on the interiors, or with `ghosts` on every cell of the owned fabs (a ghost
/// that held its neighbour's value then holds the neighbour's new value, bit for bit).
void add_constant(const LevelData& u, double c, bool ghosts = false);
/// u = a u + b on the interiors (component 0).
void scale_shift(const LevelData& u, double a, double b);
/// to = a from[comp] + b on the interiors (to: one component, from: the same layout),
/// returning max |from[comp]| over them: the bits of copy_component, max_abs and
/// scale_shift in one launch (self-gravity's right-hand side from the density). With
/// `also` (one component, the same layout), also = from[also_comp] in that launch
/// (phi's first guess from the state).
double scaled_copy(const LevelData& to, const LevelData& from, int comp, double a,
                   double b, const LevelData* also = nullptr, int also_comp = 0);

/// max |u| over the owned interiors (0 when none).
double max_abs(const LevelData& u);
/// max |a c| over the owned interiors.
double max_abs_product(const LevelData& a, const LevelData& c);
/// Sum of u (or of a * c) over the owned interiors, each term scaled by inv_scale (a
/// power of two; see ExactSum::add).
ExactSum exact_sum(const LevelData& u, double inv_scale);
ExactSum exact_dot(const LevelData& a, const LevelData& c, double inv_scale);

}  // namespace pw::mg
