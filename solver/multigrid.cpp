#include "solver/multigrid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "amr/deck.hpp"
#include "amr/parallel_copy.hpp"
#include "amr/run_failure.hpp"
#include "solver/level_gather.hpp"
#include "solver/mg_ops.hpp"
#include "solver/shared_feed.hpp"
#include "solver/team_cg.hpp"

namespace pw {

/// One grid of the hierarchy: distributed (the level's patches, coarsened) or gathered
/// (held whole by every rank, as patches or one box, on a communicator of this rank
/// alone).
struct Multigrid::Grid {
  LevelGeom geom;
  Comm comm;
  bool gathered = false;
  // A correction grid of a refined level: its coarse-fine ghosts follow the cell inside,
  // cf_w1 times it, set by phi's exchange (and cg_p's) as copies within the patches
  // (exchange_cf_rules). For a solve, zero where the level's own ghost centres hold its
  // boundary values, half a fine cell beyond the face (set in the constructor); zero at
  // the face (the default, minus their mirror) made refined levels converge three times
  // slower than level 0, and zero at this grid's ghost centres would move the boundary
  // out by half a coarse cell. The composite solve's truncated grids keep the default;
  // the level's own grid follows the rule of the caller's field (correct()).
  bool cf_inside = false;
  double cf_w1 = -1.0;
  PoissonStencil stencil;  // grid 0: the domain's values; coarser grids: zero values
  LevelData phi, rhs, res;
  BoxSet colour;         // mg::colour_rows of this grid's patches
  LevelData cg_p, cg_q;  // the bottom grid's CG directions
  // A gathered bottom grid's CG, in one launch.
  std::unique_ptr<mg::TeamCg> team_cg;
  // How rhs comes from the grid above (not on grid 0), and the correction goes back:
  // coarsened: this grid's patches are those above, halved, on the same ranks; the
  // residual is restricted onto them and the correction prolonged back in the sweeps'
  // launches. Else this grid is held whole by every rank and the grid above is not.
  // shared: this grid's patches are those above, halved; each rank restricts the
  // residual into its own patches' rhs and sends them to every other rank (packed by
  // the restriction's launch, received by this grid's first launch); the prolongation
  // is a stage of the post-smoothing. Or (level 0's one box) the residual is restricted
  // onto the patches above, halved, on their ranks (restricted_copy), or taken as it is
  // (copy: the coarsest patch grid, whose patches cannot be halved), then copied into
  // rhs on every rank; the correction goes back in launches of its own.
  enum class Feed { coarsened, shared, restricted_copy, copy };
  Feed feed = Feed::coarsened;
  bool one_box = false;  // level 0's grids below its patches: the domain in one box
  mg::SharedFeed shared;
  LevelData restricted;  // restricted_copy: what gather copies into rhs
  CopyPlan gather;
  std::vector<Fab> gather_dst;  // gather's destinations (rhs's fabs first)
  // The first one-box grid's phi once per patch of the grid above (the correction each
  // of those patches takes).
  mg::Refs phi_per_fine_patch;

  // phi, rhs, res and colour on layout L (geom set first), as rank `me` of c.
  void allocate(const LevelLayout& L, const Comm& c, int me) {
    comm = c;
    phi = LevelData("mg::phi", L, geom, 1, IntVect::in_dims(geom.dim, 1, 0), me);
    rhs = LevelData("mg::rhs", L, geom, 1, IntVect{}, me);
    res = rhs.like("mg::res");
    colour = mg::colour_rows(res);
  }
  size_t size() const { return res.size(); }
  bool owns(size_t p) const { return res.owns(p); }
  // Across a periodic seam of odd length a ghost's colour is not its source's.
  bool colours_differ_across_a_seam() const {
    for (int d = 0; d < geom.dim; ++d)
      if (geom.periodic[d] && geom.domain.size()[d] % 2 != 0) return true;
    return false;
  }
  const Box& box(size_t p) const { return res.box(p); }
};

/// The level held whole by every rank (a copy of each field on this rank, every patch),
/// and the solver that runs there.
struct Multigrid::Whole {
  std::unique_ptr<Multigrid> mg;  // on this rank alone
  LevelData phi, f;               // solve()'s (and correct()'s r in f)
  LevelData e;                    // correct()'s, with the caller's coarse-fine rule
  mg::LevelGather phi_f, r;       // of solve() and correct()
  CopyPlan back;                  // phi or e: this rank's patches, ghosts included
};

namespace {

LevelGeom coarsened(const LevelGeom& g) {
  LevelGeom c = g;
  const IntVect r = IntVect::in_dims(g.dim, 2, 1);
  c.domain = coarsen(g.domain, r);
  for (int d = 0; d < g.dim; ++d)
    c.dx[d] = 2.0 * g.dx[d];
  return c;
}

/// Every box even and at least 2 * `least` cells wide in the used directions, and, with
/// `stay_even`, still even once halved.
bool can_coarsen(const BoxList& boxes, int dim, int least, bool stay_even = false) {
  const int multiple = stay_even ? 4 : 2;
  for (const Box& b : boxes)
    for (int d = 0; d < dim; ++d)
      if (b.size()[d] % multiple != 0 || b.size()[d] < 2 * least) return false;
  return true;
}

/// Every box's corner and sizes multiples of `granule` in the used directions.
bool on_granule(const BoxList& boxes, int dim, int granule) {
  for (const Box& b : boxes)
    for (int d = 0; d < dim; ++d)
      if (b.size()[d] % granule != 0 || b.lo[d] % granule != 0) return false;
  return true;
}

}  // namespace

bool SolveReport::finite() const {
  return std::isfinite(rhs_norm) && std::isfinite(initial_residual) &&
         std::isfinite(final_residual);
}

double SolveReport::mean_reduction() const {
  if (cycles == 0 || initial_residual == 0 || !finite()) return 0.0;
  return std::pow(final_residual / initial_residual, 1.0 / cycles);
}

Multigrid::Multigrid(const LevelLayout& layout, const LevelGeom& geom,
                     const PoissonBc& bc, const MgConfig& cfg, const Comm& comm,
                     int granule, int depth)
    : cfg_(cfg),
      bc_(bc),
      comm_(comm),
      covers_domain_(num_cells(layout.boxes) == geom.domain.num_cells()),
      truncated_(depth > 0),
      singular_(covers_domain_ && bc.singular(geom)),
      walls_(bc.homogeneous().as_bcs()[0]) {
  if (cfg_.omega == 0.0) cfg_.omega = geom.dim == 3 ? 1.3 : 1.15;
  const int me = comm.rank();
  const int dim = geom.dim;
  const IntVect one = IntVect::in_dims(dim, 1, 0);
  const IntVect r = IntVect::in_dims(dim, 2, 1);
  const PoissonBc zero = bc.homogeneous();

  auto top = std::make_unique<Grid>();
  top->geom = geom;
  top->comm = comm;
  top->stencil = mg::stencil(geom, bc);
  top->res = LevelData("mg::res", layout, geom, 1, IntVect{}, me);
  top->colour = mg::colour_rows(top->res);
  grids_.push_back(std::move(top));
  // Across ranks a small level is held whole, and solved as one rank would solve it.
  if (comm.size() > 1 && !truncated_ &&
      num_cells(layout.boxes) <= gather_limit(cfg_, comm.size())) {
    hold_level_whole(layout, geom, granule);
    return;
  }

  // The patch grids below the level, at most `depth` of them when truncated. Covering
  // the domain: while every patch stays at least 4 cells wide and even once halved, so
  // that the one-box grids start one halving below (the same grids follow whatever the
  // cut). A refined level, whose bottom is solved in place (the smaller, the fewer CG
  // steps): while every cut allows patches 2 cells wide, as its granule says; its
  // smallest patch would make the grids, and so the bits, depend on the cut.
  if (!covers_domain_ && (granule <= 0 || !on_granule(layout.boxes, dim, granule)))
    throw std::logic_error(fmt::format(
        "Multigrid: a level that does not cover the domain needs the granule its boxes "
        "keep (got {})",
        granule));
  std::vector<LevelLayout> below;
  LevelLayout L = layout;
  LevelGeom g = geom;
  const auto deeper = [&] {
    if (truncated_ && int(below.size()) + 1 >= depth) return false;
    if (covers_domain_) return can_coarsen(L.boxes, dim, 4, /*stay_even=*/true);
    return granule % 2 == 0 && granule >= 4;
  };
  while (deeper()) {
    granule /= 2;
    for (Box& b : L.boxes)
      b = coarsen(b, r);
    below.push_back(L);
  }
  // Held whole by every rank from the first of them with at most gather_limit
  // cells: across ranks, so that their smoothing takes no message and one launch, for
  // work every rank repeats; on one rank only a refined level's bottom, whose CG is then
  // one launch. Where they start does not change the arithmetic.
  const bool refined_bottom = !covers_domain_ && !truncated_;
  size_t whole_from = below.size();
  for (size_t i = 0; i < below.size(); ++i)
    if (num_cells(below[i].boxes) <= gather_limit(cfg_, comm.size()) &&
        (comm.size() > 1 || (refined_bottom && i + 1 == below.size()))) {
      whole_from = i;
      break;
    }
  for (size_t i = 0; i < below.size(); ++i) {
    g = coarsened(g);
    auto grid = std::make_unique<Grid>();
    grid->geom = g;
    grid->stencil = mg::stencil(g, zero);
    grid->cf_inside = !covers_domain_;
    if (grid->cf_inside && !truncated_) {
      // Linear through the cell inside (s/2 fine cells in) and zero half a fine cell
      // out, taken at the ghost's centre (s/2 out): -(s - 1) / (s + 1) of the cell.
      const double s = double(1 << grids_.size());  // this grid's spacing / the level's
      grid->cf_w1 = -(s - 1.0) / (s + 1.0);
    }
    grids_.push_back(std::move(grid));
    if (i < whole_from)
      grids_.back()->allocate(below[i], comm, me);
    else
      hold_whole(below[i], i == whole_from);
  }
  L = below.empty() ? layout : below.back();

  if (truncated_) {
    exchange_cf_rules();
    return;
  }
  // A level that does not cover the domain (a refined level, with coarse-fine ghosts
  // holding Dirichlet values) and is not truncated ends here: CG on its coarsest grid
  // (not the level itself, which the caller's fields hold).
  if (!covers_domain_) {
    Grid& last = *grids_.back();
    last.cg_p = last.gathered ? last.phi.like("mg::cg_p")
                              : LevelData("mg::cg_p", L, g, 1, one, me);
    last.cg_q = last.res.like("mg::cg_q");
    exchange_cf_rules();  // before the one-launch CG takes the exchange's copies
    if (last.gathered)
      last.team_cg = std::make_unique<mg::TeamCg>(last.cg_p, last.stencil);
    return;
  }
  // The one-box grids: the coarsest patch grid restricted once more (when its patches
  // allow; else at its own resolution) into one box that every rank holds, then halved
  // while it stays at least 2 cells wide.
  const Grid& above = *grids_.back();
  const bool restrict_first = can_coarsen(L.boxes, dim, 1);
  LevelLayout restricted = above.res.layout();  // on the owners of the grid above
  if (restrict_first) {
    for (Box& b : restricted.boxes)
      b = coarsen(b, r);
    g = coarsened(g);
  }
  const Comm self(MPI_COMM_SELF);
  LevelLayout one_box{{g.domain}, {0}};
  bool first = true;
  while (true) {
    auto grid = std::make_unique<Grid>();
    grid->geom = g;
    grid->allocate(one_box, self, 0);
    grid->gathered = true;
    grid->one_box = true;
    grid->stencil = mg::stencil(g, zero);
    if (first) {
      // From the grid above's owners (every rank, where it is held whole) to every rank.
      grid->feed = restrict_first ? Grid::Feed::restricted_copy : Grid::Feed::copy;
      const int P = above.comm.size(), at = above.comm.rank();
      grid->restricted = LevelData("mg::restricted", restricted, g, 1, IntVect{}, at);
      std::vector<BoxList> whole(size_t(P), BoxList{g.domain});
      std::vector<int> owners(static_cast<size_t>(P));
      for (int q = 0; q < P; ++q)
        owners[size_t(q)] = q;
      grid->gather = CopyPlan::intersecting(restricted, whole, owners, {}, at);
      grid->gather_dst.assign(size_t(P), Fab());
      grid->gather_dst[size_t(at)] = grid->rhs[0];
      grid->phi_per_fine_patch = fab_refs(std::vector<Fab>(L.size(), grid->phi[0]));
      first = false;
    }
    if (!can_coarsen(one_box.boxes, dim, 2)) {
      grid->cg_p = grid->phi.like("mg::cg_p");
      grid->cg_q = grid->res.like("mg::cg_q");
      grid->team_cg = std::make_unique<mg::TeamCg>(grid->cg_p, grid->stencil);
      grids_.push_back(std::move(grid));
      break;
    }
    grids_.push_back(std::move(grid));
    one_box.boxes[0] = coarsen(one_box.boxes[0], r);
    g = coarsened(g);
  }
}

void Multigrid::hold_level_whole(const LevelLayout& layout, const LevelGeom& geom,
                                 int granule) {
  whole_ = std::make_unique<Whole>();
  Whole& w = *whole_;
  LevelLayout all = layout;
  all.owner.assign(layout.size(), 0);
  const Comm self(MPI_COMM_SELF);
  w.mg = std::make_unique<Multigrid>(all, geom, bc_, cfg_, self, granule);
  w.mg->announces_ = false;  // this solver announces, and fails, for every rank
  const IntVect one = IntVect::in_dims(geom.dim, 1, 0);
  w.phi = LevelData("mg::whole_phi", all, geom, 1, one, 0);
  w.f = LevelData("mg::whole_f", all, geom, 1, IntVect{}, 0);
  w.phi_f = mg::LevelGather({&w.phi, &w.f}, layout.owner, comm_);
  w.r = mg::LevelGather({&w.f}, layout.owner, comm_);
  w.back = mg::own_patches(w.phi, layout.owner, comm_.rank());
}

SolveReport Multigrid::solve_whole(LevelData& phi, const LevelData& f, double floor) {
  const double start = MPI_Wtime();
  Whole& w = *whole_;
  fits_whole(phi);
  w.phi_f.gather({&phi, &f}, {&w.phi, &w.f}, comm_);
  SolveReport rep = w.mg->solve(w.phi, w.f, floor);
  shift_ = w.mg->removed_mean();
  w.back.copy(w.phi.fabs(), phi.fabs(), comm_);
  finish(rep, start, stop_at(rep.rhs_norm, floor));
  return rep;
}

void Multigrid::correct_whole(LevelData& e, const LevelData& r, int cycles) {
  Whole& w = *whole_;
  fits_whole(e);
  const auto rule = e.coarse_fine_from_inside();
  if (w.e.size() == 0) {  // the caller's rule is the field's, set once
    w.e = LevelData("mg::whole_e", w.phi.layout(), w.phi.geom(), 1, w.phi.ghost(), 0);
    if (rule) w.e.set_coarse_fine_from_inside(rule->w1, rule->w2);
  }
  const auto held = w.e.coarse_fine_from_inside();
  if (rule.has_value() != held.has_value() ||
      (rule && (rule->w1 != held->w1 || rule->w2 != held->w2)))
    throw std::logic_error("Multigrid::correct: e's coarse-fine rule changed");
  w.r.gather({&r}, {&w.f}, comm_);
  w.mg->correct(w.e, w.f, cycles);
  shift_ = w.mg->removed_mean();
  w.back.copy(w.e.fabs(), e.fabs(), comm_);
}

void Multigrid::fits_whole(const LevelData& u) const {
  // The copy back writes every value of the caller's fab from the whole copy's.
  if (u.ncomp() != 1 || u.ghost() != whole_->phi.ghost())
    throw std::logic_error(
        "Multigrid: a level held whole takes phi and e of one component and one ghost "
        "layer");
}

void Multigrid::hold_whole(const LevelLayout& L, bool first) {
  Grid& g = *grids_.back();
  LevelLayout whole = L;
  whole.owner.assign(L.size(), 0);
  g.gathered = true;
  g.allocate(whole, Comm(MPI_COMM_SELF), 0);
  // Coarsened from the grid above where every rank holds that one too, or where this
  // rank is the only one (the grid above's patches halved, here as there).
  if (!first || comm_.size() == 1) return;
  // The first: each rank restricts the residual into its own patches of rhs and sends
  // them to every other rank.
  g.feed = Grid::Feed::shared;
  g.shared = mg::SharedFeed(g.rhs, L.owner, comm_);
}

Multigrid::~Multigrid() = default;

int Multigrid::num_grids() const {
  return whole_ ? whole_->mg->num_grids() : int(grids_.size());
}

void Multigrid::exchange_cf_rules() {
  for (auto& g : grids_) {
    if (!g->cf_inside) continue;
    g->phi.set_coarse_fine_from_inside(g->cf_w1);
    if (g->cg_p.size() > 0) g->cg_p.set_coarse_fine_from_inside(g->cf_w1);
  }
}

int Multigrid::residual_parity(const Grid& g, bool swept) {
  // After a sweep of colour 1, colour 0's ghosts still hold the cells they copy, unless a
  // seam gives a ghost the other colour than its source. Not the coarse-fine ghosts,
  // which follow the cell inside, of the other colour: all of them where the exchange
  // sets them (its other copies hold what they held).
  return swept && !g.colours_differ_across_a_seam() && !g.cf_inside ? 1 : -1;
}

void Multigrid::residual_ghosts(Grid& g, LevelData& u, bool swept) {
  u.fill_boundary(g.comm, true, residual_parity(g, swept));
}

std::optional<int> Multigrid::smooth(Grid& g, LevelData& phi, const LevelData& f,
                                     int sweeps, const mg::ProlongStage& before,
                                     const mg::RestrictStage& after, bool fresh,
                                     std::optional<int> next, const mg::FeedStage& fed) {
  // The prolongation's coarse ghosts' messages first, unpacked by its launch (the coarse
  // grid's communicator is g's: both are distributed, or both gathered; or the coarse
  // grid is held whole by every rank, and its exchange sends nothing).
  if (before.crse)
    before.crse->fill_boundary(
        g.comm, false, -1,
        before.packed ? LevelData::Copies::packed : LevelData::Copies::messages);
  // Where this rank's exchanges of g send and receive nothing, the whole smoothing is
  // one launch, with the prolongation before it or the restriction after it: one team of
  // every thread, the copies, sweeps and those stages one after the other (on a device,
  // where one team has a small part of the threads, on small grids only: as the bottoms
  // gathered into one launch by default).
  constexpr long device_team_cells = 4096;
  if (!phi.exchange_has_messages(true) &&
      (detail::host_exec() || phi.interiors().cells() <= device_team_cells)) {
    mg::smooth_in_one_team(phi, phi.copies_by_patch(true), f, g.colour, sweeps, g.stencil,
                           cfg_.omega, before, after, fed);
    return std::nullopt;
  }
  // A zero first guess (a correction's, fresh: nothing to exchange) is set by the first
  // half-sweep's teams, each its own patch's fab, where that launch makes no copies.
  const bool zero_in_sweep = fed.zero && !fed.copies && fresh && sweeps > 0 &&
                             !before.crse && !g.colours_differ_across_a_seam();
  mg::feed(phi, f, zero_in_sweep ? mg::FeedStage{} : fed);
  // Then a half-sweep's on-rank copies and the sweep are one launch, each patch's team
  // making its own copies before it sweeps, where no copy reads what another team
  // writes: a copy from another patch reads the colour it writes (the colour not swept),
  // unless a periodic seam of odd length mixes them; the coarse-fine rule reads the
  // team's own patch. The messages come first; the launch unpacks them too, and packs
  // what the next exchange sends (the cells it swept, or the restriction's parity:
  // colour 1's, or all where the coarse-fine ghosts need them; or `next`'s), so that
  // only the first half-sweep's exchange launches a pack of its own (none after a
  // prolongation, whose launch packs it). `fresh`: that
  // first exchange would change nothing (the residual norm's filled the ghosts since
  // phi last changed, or phi is a zero first guess, ghosts included), so there is none.
  const bool one_launch = !g.colours_differ_across_a_seam();
  using Copies = LevelData::Copies;
  std::optional<int> packed;  // the parity the last launch packed for
  // The prolongation's launch packs what the first half-sweep's exchange sends.
  if (before.crse && one_launch && sweeps > 0) {
    packed = 1;
    mg::prolong_add_with_copies(phi, before, &phi.copies_by_patch(true), *packed);
  } else if (before.crse) {
    mg::prolong_add_with_copies(phi, before);
  }
  const auto messages = [&](int parity) {
    return packed == parity ? Copies::packed : Copies::messages;
  };
  for (int s = 0; s < sweeps; ++s)
    for (int color = 0; color < 2; ++color) {
      // A cell of one colour reads only the other colour's neighbours.
      if (one_launch) {
        const bool copy = !(fresh && s == 0 && color == 0);
        if (copy) phi.fill_boundary(g.comm, true, 1 - color, messages(1 - color));
        const bool last = s + 1 == sweeps && color == 1;
        packed = !last        ? std::optional<int>(color)
                 : after.crse ? std::optional<int>(after.parity)
                              : next;
        // For a prolongation from g: its exchange's plan, every parity.
        const bool for_prolongation = packed == prolongation_exchange;
        mg::gauss_seidel_with_copies(
            phi, phi.copies_by_patch(true), f, g.colour, color, g.stencil, cfg_.omega,
            for_prolongation ? std::optional<int>(-1) : packed, copy,
            zero_in_sweep && !copy,
            for_prolongation ? &phi.copies_by_patch(false) : nullptr);
      } else {
        phi.fill_boundary(g.comm, true, 1 - color);
        mg::gauss_seidel(phi, f, g.colour, color, g.stencil, cfg_.omega);
      }
    }
  if (after.crse) {
    phi.fill_boundary(g.comm, true, after.parity, messages(after.parity));
    mg::restrict_residual_with_copies(phi, phi.copies_by_patch(true), f, g.stencil,
                                      after);
    return std::nullopt;
  }
  return packed;
}

void Multigrid::residual(Grid& g, LevelData& phi, const LevelData& f, LevelData& r) {
  residual_ghosts(g, phi, false);
  mg::residual(r, phi, f, g.stencil);
}

void Multigrid::residual(LevelData& phi, const LevelData& f, LevelData& r) {
  Grid& g = *grids_[0];
  residual(g, phi, f, r);
  if (shift_ != 0.0)  // the mean the last solve removed: its residual, not f's
    mg::add_constant(r, -shift_);
}

double Multigrid::residual_norm(LevelData& phi, const LevelData& f, bool swept) {
  return residual_norm(phi, f, swept, std::nullopt);
}

double Multigrid::residual_norm(LevelData& phi, const LevelData& f, bool swept,
                                std::optional<int> packed) {
  // The exchange's messages, then its copies and the residual in one launch.
  Grid& g = *grids_[0];
  const int parity = residual_parity(g, swept);
  using Copies = LevelData::Copies;
  phi.fill_boundary(g.comm, true, parity,
                    packed == parity ? Copies::packed : Copies::messages);
  return comm_.max(mg::residual_max_with_copies(g.res, phi, phi.copies_by_patch(true),
                                                parity, f, g.stencil));
}

mg::RestrictStage Multigrid::restriction_stage(size_t k, bool swept) {
  Grid& f = *grids_[k];
  Grid& c = *grids_[k + 1];
  const int parity = residual_parity(f, swept);
  // The residual is formed in the restriction, never stored on the fine grid.
  switch (c.feed) {
    case Grid::Feed::coarsened:
      return {&c.rhs, &c.phi, parity};
    case Grid::Feed::shared:  // this rank's patches, packed for the others
      return {&c.rhs, nullptr, parity, &c.shared.rows(), &c.shared.copies()};
    case Grid::Feed::restricted_copy:
      return {&c.restricted, nullptr, parity};
    case Grid::Feed::copy:  // the coarsest grid as it is (a residual, not a restriction)
      break;
  }
  return {};
}

void Multigrid::restrict_residual(size_t k, LevelData& phi, const LevelData& rhs,
                                  bool swept) {
  Grid& f = *grids_[k];
  Grid& c = *grids_[k + 1];
  if (c.feed == Grid::Feed::shared)
    throw std::logic_error("Multigrid: a shared feed is restricted in a stage");
  residual_ghosts(f, phi, swept);
  if (c.feed == Grid::Feed::copy)  // the coarsest grid, as it is
    mg::residual(c.restricted, phi, rhs, f.stencil);
  else
    mg::restrict_residual(c.feed == Grid::Feed::coarsened ? c.rhs : c.restricted, phi,
                          rhs, f.stencil);
}

void Multigrid::finish_restriction(size_t k) {
  Grid& f = *grids_[k];
  Grid& c = *grids_[k + 1];
  if (c.feed == Grid::Feed::shared)  // received by c's first launch
    c.shared.exchange(c.rhs, f.comm);
  else if (c.feed != Grid::Feed::coarsened)
    c.gather.copy(c.restricted.fabs(), c.gather_dst, f.comm);
}

mg::FeedStage Multigrid::feed_stage(size_t k, const mg::RestrictStage& down) {
  Grid& c = *grids_[k + 1];
  return {down.zeroed == nullptr,
          c.feed == Grid::Feed::shared ? &c.shared.copies() : nullptr};
}

mg::ProlongStage Multigrid::prolongation_stage(size_t k) {
  Grid& c = *grids_[k + 1];
  // Where each fine patch's correction is the coarse patch of its index: not from the
  // one box into the patches above it (every fine patch reads it). From patches held
  // whole, the stage's teams fill the ghosts of the coarse patches below their own fine
  // patches from the copy every rank holds; their exchange sends nothing.
  if (c.one_box && c.feed != Grid::Feed::coarsened) return {};
  return {&c.phi, &c.phi.copies_by_patch(false), walls_, prolongation(c)};
}

Prolong Multigrid::prolongation(const Grid& c) const {
  return !cfg_.linear_prolongation ? Prolong::constant
         : c.cf_inside             ? Prolong::faces
                                   : Prolong::multilinear;
}

void Multigrid::prolong_from(size_t k) {
  Grid& f = *grids_[k];
  Grid& c = *grids_[k + 1];
  LevelData& fine_phi = k == 0 ? *top_phi_ : f.phi;
  // From level 0's one box (prolongation_stage gives the rest): every fine patch reads
  // it.
  c.phi.fill_boundary(c.comm, false);
  c.phi.fill_physical_boundary({walls_});
  if (c.feed == Grid::Feed::copy)
    mg::axpy(fine_phi, 1.0, c.phi_per_fine_patch);  // same resolution
  else
    mg::prolong_add(fine_phi, c.phi_per_fine_patch, f.geom.dim, prolongation(c));
}

std::optional<int> Multigrid::cycle(size_t k, bool f_cycle, bool fresh,
                                    std::optional<int> next, const mg::FeedStage& fed) {
  Grid& g = *grids_[k];
  LevelData& phi = k == 0 ? *top_phi_ : g.phi;
  const LevelData& f = k == 0 ? *top_f_ : g.rhs;
  if (k + 1 == grids_.size()) {
    if (truncated_)
      return smooth(g, phi, f, cfg_.pre_smooth + cfg_.post_smooth, {}, {}, fresh, next,
                    fed);
    bottom_solve(g, phi, f, fed);
    return std::nullopt;
  }
  // The restriction ends the pre-smoothing's launches, the prolongation starts the
  // post-smoothing's, where they can (restriction_stage, prolongation_stage).
  const mg::RestrictStage down = restriction_stage(k, cfg_.pre_smooth > 0);
  smooth(g, phi, f, cfg_.pre_smooth, {}, down, fresh, std::nullopt, fed);
  if (!down.crse) restrict_residual(k, phi, f, cfg_.pre_smooth > 0);
  finish_restriction(k);
  // An F-cycle solves the coarse problem by an F-cycle and then a V-cycle. The coarse
  // grid's first guess is 0, ghosts included (and its rhs whole): the restriction stage
  // set them, or its first launch does. So its first visit is fresh: an exchange would
  // copy zeros onto zeros. The V-cycle's last launch on it packs what the prolongation
  // stage's exchange of it sends.
  const mg::FeedStage below = feed_stage(k, down);
  mg::ProlongStage up = prolongation_stage(k);
  if (f_cycle) cycle(k + 1, true, true, std::nullopt, below);
  const std::optional<int> then =
      up.crse ? std::optional<int>(prolongation_exchange) : std::nullopt;
  up.packed = cycle(k + 1, false, !f_cycle, then, f_cycle ? mg::FeedStage{} : below) ==
              prolongation_exchange;
  if (!up.crse) prolong_from(k);
  return smooth(g, phi, f, cfg_.post_smooth, up, {}, false, next);
}

double Multigrid::mean(const LevelData& u) const {
  const double scale = power_of_two_above(comm_.max(mg::max_abs(u)));
  const ExactSum s = mg::exact_sum(u, 1.0 / scale);
  return all_ranks(s, comm_).value(scale) / double(num_cells(u.layout().boxes));
}

void Multigrid::bottom_solve(Grid& g, LevelData& x, const LevelData& rhs,
                             const mg::FeedStage& fed) {
  // Conjugate gradients on the coarsest grid, from the current phi. L is symmetric and
  // definite (semi-definite with a consistent rhs for a singular problem), negative
  // rather than positive, which CG does not mind. Dot products are exact sums, so every
  // rank count takes the same steps.
  // Each dot product takes two reductions: the largest |term| (this rank's, max_uv),
  // then the exact sum on the grid it fixes. The first rides along with the launch that
  // makes one of its factors (laplacian_max_product, cg_step).
  LevelData &r = g.res, &p = g.cg_p, &q = g.cg_q;
  auto dot_scaled = [&](const LevelData& u, const LevelData& v, double max_uv) {
    const double scale = power_of_two_above(g.comm.max(max_uv));
    const ExactSum s = mg::exact_dot(u, v, 1.0 / scale);
    return all_ranks(s, g.comm).value(scale);
  };
  auto dot = [&](const LevelData& u, const LevelData& v) {
    return dot_scaled(u, v, mg::max_abs_product(u, v));
  };
  mg::FeedStage first = fed;
  if (singular_ && g.gathered) {  // the rhs's mean is round-off; remove it exactly
    mg::feed(x, rhs, first);      // rhs whole first
    first = {};
    const double scale = power_of_two_above(mg::max_abs(g.rhs));
    const double avg = mg::exact_sum(g.rhs, 1.0 / scale).value(scale) /
                       double(num_cells(g.rhs.layout().boxes));
    mg::add_constant(g.rhs, -avg);
  }
  if (g.team_cg) {  // the same steps, in one launch
    g.team_cg->solve(x, rhs, r, p, q, cfg_.bottom_rtol, cfg_.bottom_max_iter, first);
    return;
  }
  mg::feed(x, rhs, first);
  residual(g, x, rhs, r);
  p.set_val(0.0);  // its ghosts beyond the patches stay 0 (homogeneous)
  mg::axpy(p, 1.0, r.refs());
  double rr = dot(r, r);
  // Relative to the rhs, not to the first residual: a second visit starts from the
  // answer, and CG on round-off alone would wander. Where the level itself is the
  // bottom (a refined level whose blocking factor allows no coarser grid), to the
  // solve's own target: its 2-norm bounds the max norm the solve stops on (1e-4 of the
  // rhs left every cycle after the first with nothing to do).
  double target = cfg_.bottom_rtol * cfg_.bottom_rtol * dot(rhs, rhs);
  if (&g == grids_[0].get() && top_target_ > 0)
    target = std::min(target, top_target_ * top_target_);
  for (int it = 0; it < cfg_.bottom_max_iter && rr > target; ++it) {
    p.fill_boundary(g.comm, true);
    const double pq = dot_scaled(p, q, mg::laplacian_max_product(q, p, g.stencil));
    if (pq == 0.0) break;
    const double alpha = rr / pq;
    const double rr_new = dot_scaled(r, r, mg::cg_step(x, r, alpha, p, q));
    mg::xpby(p, r, rr_new / rr);
    rr = rr_new;
  }
}

const LevelData& Multigrid::less_constant(const LevelData& f, double c) {
  if (f_used_.size() == 0) f_used_ = f.like("mg::f");
  f_used_.copy_from(f);
  mg::add_constant(f_used_, -c);
  return f_used_;
}

void Multigrid::correct(LevelData& e, const LevelData& r, int cycles) {
  if (whole_) return correct_whole(e, r, cycles);
  Grid& g0 = *grids_[0];
  if (cycles < 1) e.set_val(0.0);
  top_phi_ = &e;
  top_f_ = &r;
  if (singular_) {
    shift_ = mean(r);
    top_f_ = &less_constant(r, shift_);
  }
  g0.cf_inside = !covers_domain_ && e.coarse_fine_from_inside().has_value();
  // Grid 0 as the bottom would run CG on cg_p, whose exchange has no rule.
  if (g0.cf_inside && grids_.size() == 1 && !truncated_)
    throw std::logic_error(
        "Multigrid::correct: a coarse-fine rule on a level that is its own bottom");
  // The first cycle starts from 0, set by its first launch (FeedStage): nothing to
  // exchange before it.
  for (int c = 0; c < cycles; ++c)
    cycle(0, cfg_.f_cycle, /*fresh=*/c == 0, std::nullopt,
          mg::FeedStage{c == 0, nullptr});
  g0.cf_inside = false;
  top_phi_ = nullptr;
  top_f_ = nullptr;
}

SolveReport Multigrid::solve(LevelData& phi, const LevelData& f, double floor) {
  if (whole_) return solve_whole(phi, f, floor);
  const double start = MPI_Wtime();
  Grid& g0 = *grids_[0];
  top_phi_ = &phi;
  top_f_ = &f;
  if (singular_) {
    // Solvable only when the residual has zero mean (for periodic walls: f does); remove
    // its mean exactly.
    residual(g0, phi, f, g0.res);
    const double shift = mean(g0.res);
    shift_ = shift;
    top_f_ = &less_constant(f, shift);
  }
  SolveReport rep;
  rep.rhs_norm = comm_.max(mg::max_abs(*top_f_));
  const double target = stop_at(rep.rhs_norm, floor);
  rep.initial_residual = residual_norm(phi, *top_f_);
  rep.final_residual = rep.initial_residual;
  top_target_ = target;
  // A cycle ends with the post-smoothing sweeps unless grid 0 is the bottom; their last
  // launch packs what the residual norm's exchange sends. Each cycle starts after that
  // exchange, with phi's ghosts current.
  const bool swept = grids_.size() > 1 && cfg_.post_smooth > 0;
  while (rep.final_residual > target && rep.cycles < cfg_.max_cycles && rep.finite()) {
    const std::optional<int> packed =
        cycle(0, cfg_.f_cycle, /*fresh=*/true, residual_parity(g0, swept));
    ++rep.cycles;
    rep.final_residual = residual_norm(phi, *top_f_, swept, packed);
  }
  rep.converged = rep.finite() && rep.final_residual <= target;
  if (singular_ && rep.cycles > 0) {  // fix the level of phi: zero mean (a guess that
                                      // already converged is left bit for bit), its
                                      // ghosts too, which stay their neighbours'
    mg::add_constant(phi, -mean(phi), /*ghosts=*/true);
  }
  top_phi_ = nullptr;
  top_f_ = nullptr;
  top_target_ = 0.0;
  finish(rep, start, target);
  return rep;
}

double Multigrid::stop_at(double rhs_norm, double floor) const {
  return std::max({cfg_.rtol * rhs_norm, cfg_.atol, floor});
}

void Multigrid::finish(SolveReport& rep, double start, double target) const {
  Kokkos::fence();  // the time of the solve's work, not of its launches
  rep.seconds = comm_.max(MPI_Wtime() - start);
  if (announces_) announce(rep, "poisson: ", target, cfg_, comm_);
}

void announce(const SolveReport& rep, const std::string& what, double target,
              const MgConfig& cfg, const Comm& comm) {
  const std::string line =
      fmt::format(
          "{}{} cycles, residual {:.3e} -> {:.3e} (|f| {:.3e}, target {:.3e}), mean "
          "reduction {:.3f} per cycle, {:.3f} s",
          what, rep.cycles, rep.initial_residual, rep.final_residual, rep.rhs_norm,
          target, rep.mean_reduction(), rep.seconds) +
      (rep.finite() ? "" : " (f or phi holds a NaN or an infinity)");
  if (!rep.converged) {
    if (cfg.fail_on_divergence)
      throw RunFailure("poisson.fail_on_divergence: the solve did not converge: " + line);
    if (comm.rank() == 0)
      fmt::print(stderr, "patchwork: warning: not converged: {}\n", line);
  } else if (cfg.verbose && comm.rank() == 0) {
    fmt::print("{}\n", line);
  }
}

}  // namespace pw
