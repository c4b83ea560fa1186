#include "amr/hierarchy.hpp"

#include <algorithm>

#include "amr/boundary.hpp"
#include "amr/box_index.hpp"
#include "amr/box_set.hpp"
#include "amr/device_array.hpp"
#include "amr/interpolate.hpp"
#include "amr/update_refs.hpp"

namespace pw {

namespace {

/// The layouts after each step of `hops`: planned's boxes, each patch at the rank it has
/// reached (before its first hop: that hop's `from`; without hops: its planned owner).
std::vector<std::vector<LevelLayout>> stages(const std::vector<LevelLayout>& planned,
                                             const std::vector<LayoutHop>& hops) {
  int steps = 0;
  for (const LayoutHop& h : hops)
    steps = std::max(steps, h.step + 1);
  std::vector<LevelLayout> at = planned;
  std::vector<std::vector<bool>> seen(planned.size());
  for (size_t l = 0; l < planned.size(); ++l)
    seen[l].assign(planned[l].size(), false);
  for (const LayoutHop& h : hops)  // by step, so the first seen is the first hop
    if (!seen[h.level][h.patch]) {
      seen[h.level][h.patch] = true;
      at[h.level].owner[h.patch] = h.from;
    }
  std::vector<std::vector<LevelLayout>> out;
  for (int s = 0; s < steps; ++s) {
    for (const LayoutHop& h : hops)
      if (h.step == s) at[h.level].owner[h.patch] = h.to;
    out.push_back(at);
  }
  return out;
}

}  // namespace

Hierarchy::Hierarchy(const AmrConfig& cfg, const Physics& physics, LayoutPlanner& planner,
                     const Comm& comm)
    : cfg_(cfg),
      physics_(physics),
      planner_(planner),
      comm_(comm),
      ncomp_(physics.ncomp()),
      nghost_(physics.nghost()),
      flux_padding_(physics.flux_padding()),
      bcs_(physics.boundary_conditions()),
      interp_(physics.interpolation()),
      counters_("physics::counters", physics.counter_names().size()) {}

std::vector<long> Hierarchy::physics_counters() const {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counters_);
  std::vector<long> sums(host.extent(0));
  for (size_t c = 0; c < sums.size(); ++c)
    sums[c] = comm_.sum(host(c));
  return sums;
}

Level Hierarchy::make_level(int l, const LevelLayout& layout) const {
  Level L;
  L.geom = cfg_.geom(l);
  L.layout = layout;
  return L;
}

void Hierarchy::allocate(Level& L, Level* old) {
  const int me = comm_.rank();
  const Kokkos::View<double*> none;
  // A remap (old given) writes every interior cell, copied or interpolated, and a ghost
  // fill every ghost cell before the state is read: no pass zeroing the new level.
  L.u_new = LevelData("u_new", L.layout, L.geom, ncomp_, ghosts(), me, -1,
                      old ? old->u_old.release_storage() : none,
                      old ? LevelData::Values::unset : LevelData::Values::zero);
  if (!old) L.u_old = L.u_new.like("u_old");
  L.seconds.assign(L.layout.size(), 0.0);
  L.timed_steps = 0;
  // Fluxes where old had them (see fit_fluxes); always for a module that cannot keep
  // them in scratch.
  const bool fluxes = !physics_.fluxes_in_scratch() || (old && old->flux[0].size() > 0);
  for (int d = 0; d < 3; ++d)
    L.flux[d] = fluxes ? flux_data(L, d, old ? old->flux[d].release_storage() : none)
                       : LevelData();
}

LevelData Hierarchy::flux_data(const Level& L, int d,
                               Kokkos::View<double*> storage) const {
  if (d >= cfg_.geom0.dim) return LevelData();
  // The update writes every face's flux of its patches before anything reads them, in
  // rows as long as the state's where the physics asks (Physics::flux_padding).
  return LevelData("flux", L.layout, L.geom, ncomp_, IntVect{flux_padding_, 0, 0},
                   comm_.rank(), d, std::move(storage), LevelData::Values::unset);
}

void Hierarchy::fit_fluxes(int l) {
  Level& L = levels_[l];
  const bool keep = physics_.flux_storage(l < finest_level()).stored;
  if (keep == (L.flux[0].size() > 0)) return;
  for (int d = 0; d < 3; ++d)
    L.flux[d] = keep ? flux_data(L, d, Kokkos::View<double*>()) : LevelData();
}

void Hierarchy::initialize() {
  const LevelGeom g0 = cfg_.geom(0);
  BoxList boxes = chop(g0.domain, cfg_.max_size(), cfg_.blocking());
  std::sort(boxes.begin(), boxes.end());
  levels_.clear();
  // Each new level is made on the owners the planner would give it (LayoutPlanner::place)
  // so that it can be filled and tagged; the planner balances the whole hierarchy once at
  // the end.
  for (int l = 0; l <= cfg_.max_level; ++l) {
    if (l > 0) {
      boxes = tag_and_cluster(l - 1);
      if (boxes.empty()) break;
    }
    if (l > 0) check_budget(l, boxes, "building the initial hierarchy");
    const LevelLayout base = placed(l, std::move(boxes));
    levels_.push_back(make_level(l, base));
    Level& L = levels_.back();
    allocate(L);
    physics_.initial_data(L.geom, L.u_new.interiors(), L.u_new.refs(), 0.0);
    build_plans(l);
  }
  average_down_all();
  for (int l = 0; l <= finest_level(); ++l)
    physics_.check_initial_state(levels_[l].u_new, l, comm_);
  balance(0);
  for (int l = 0; l <= finest_level(); ++l)
    fit_fluxes(l);
  if (hook_) hook_->at_sync(*this, SyncPoint::built);
}

void Hierarchy::restore(const std::vector<LevelLayout>& layouts,
                        const RestoreState& state, const LevelReader& read) {
  levels_.clear();
  for (size_t l = 0; l < layouts.size(); ++l) {
    LevelLayout layout = layouts[l];
    for (size_t p = 0; p < layout.size(); ++p)
      if (layout.owner[p] < 0 || layout.owner[p] >= comm_.size())
        layout.owner[p] = int(p % size_t(comm_.size()));
    if (l > 0) check_budget(int(l), layout.boxes, "restoring the dump's hierarchy");
    levels_.push_back(make_level(int(l), layout));
    Level& L = levels_.back();
    const LevelClock& c = state.clocks[l];
    L.t_old = c.t_old;
    L.t_new = c.t_new;
    L.steps = c.steps;
    L.last_regrid_step = c.last_regrid_step;
    allocate(L);
    read(int(l), L.layout, L.u_new.fabs());
    // u_old is rewritten by the next step before it is read (see write_chombo); a copy
    // keeps it finite meanwhile.
    for (size_t p = 0; p < L.layout.size(); ++p)
      if (L.owns(int(p), comm_.rank()))
        Kokkos::deep_copy(L.u_old[p].data, L.u_new[p].data);
    build_plans(int(l));
  }
  cell_updates_ = state.cell_updates;
  // The run's counts so far, held by rank 0 (the summary sums over ranks).
  Kokkos::deep_copy(counters_, 0L);
  if (!state.physics_counters.empty() &&
      state.physics_counters.size() != counters_.extent(0))
    throw std::runtime_error(
        "checkpoint: " + std::to_string(state.physics_counters.size()) +
        " physics counters, the module counts " + std::to_string(counters_.extent(0)));
  if (comm_.rank() == 0 && !state.physics_counters.empty()) {
    const auto host = Kokkos::create_mirror_view(counters_);
    for (size_t c = 0; c < host.extent(0); ++c)
      host(c) = state.physics_counters[c];
    Kokkos::deep_copy(counters_, host);
  }
  regrids_ = state.regrids;
  balance(0);
  for (int l = 0; l <= finest_level(); ++l)
    fit_fluxes(l);
  if (hook_) hook_->at_sync(*this, SyncPoint::restored);
}

double Hierarchy::stable_dt() const {
  double dt = 1e300;
  double sub = 1.0;  // level-0 time per level-l step
  for (int l = 0; l <= finest_level(); ++l) {
    const Level& L = levels_[l];
    dt = std::min(
        dt, sub * physics_.stable_dt_level(L.geom, L.u_new, L.t_new, largest_scratch(L)));
    if (l < cfg_.max_level) sub *= cfg_.ref_ratio[l];
  }
  return cfg_.cfl * comm_.min(dt);
}

void Hierarchy::build_plans(int l) {
  if (l == 0) return;
  Level& L = levels_[l];
  const Level& C = levels_[l - 1];
  L.reg =
      FluxRegister(L.layout, C.layout, C.geom, cfg_.ratio(l - 1), ncomp_, comm_.rank());
}

Scratch Hierarchy::largest_scratch(const Level& L) const {
  const long n = largest_scratch_size(physics_, L.u_new);
  if (long(scratch_.extent(0)) < n) {
    scratch_ = Scratch();  // free before allocating the larger one
    scratch_ = Scratch(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "physics::scratch"), size_t(n));
  }
  return scratch_;
}

long Hierarchy::remap(int l, const LevelLayout& next) {
  Level& L = levels_[l];
  Level N = make_level(l, next);
  N.t_old = L.t_old;
  N.t_new = L.t_new;
  N.steps = L.steps;
  N.last_regrid_step = L.last_regrid_step;
  allocate(N, &L);
  const int me = comm_.rank();
  const size_t n = next.size();

  // Cells the old layout does not cover are interpolated from the coarse level first.
  if (l > 0) {
    const Level& C = levels_[l - 1];
    const IntVect r = cfg_.ratio(l - 1);
    const IntVect one = IntVect::in_dims(N.geom.dim, 1, 0);
    const BoxIndex old_index(L.layout.boxes);
    std::vector<BoxList> uncovered(n), crse_regions(n);
    std::vector<Box> crse_boxes(n);
    std::vector<int> hits;
    // Only the new patches this rank fills or sends coarse data to are looked at: its
    // own, and those whose coarse cells (plus one for slopes) meet one of its coarse
    // patches, through an image too.
    std::vector<char> involved;
    {
      BoxList under(n), mine;
      for (size_t p = 0; p < n; ++p)
        under[p] = grow(coarsen(next.boxes[p], r), one);
      for (size_t q = 0; q < C.layout.size(); ++q)
        if (C.owns(int(q), me)) mine.push_back(C.layout.boxes[q]);
      involved = meeting(under, mine, periodic_shifts(C.geom.domain, C.geom.periodic));
      for (size_t p = 0; p < n; ++p)
        involved[p] |= N.owns(int(p), me);
    }
    for (size_t p = 0; p < n; ++p) {
      if (!involved[p]) continue;
      BoxList olds;
      old_index.query(next.boxes[p], hits);
      for (int q : hits)
        olds.push_back(L.layout.boxes[q]);
      uncovered[p] = difference(BoxList{next.boxes[p]}, olds);
      if (uncovered[p].empty()) continue;
      const Box cb = grow(coarsen(next.boxes[p], r), one);
      crse_regions[p] = {cb};
      if (N.owns(int(p), me)) crse_boxes[p] = cb;
    }
    std::vector<Fab> crse;  // views into crse_memory, which must live as long
    const auto crse_memory = zeroed_fabs("remap::crse", crse_boxes, ncomp_, crse);
    const auto shifts = periodic_shifts(C.geom.domain, C.geom.periodic);
    CopyPlan::intersecting(C.layout, crse_regions, next.owner, shifts, me)
        .copy(C.u_new.fabs(), crse, comm_);
    const StructArray<FabRef> crse_refs = fab_refs(crse);
    WallFill(C.geom, crse_boxes).apply(crse_refs, bcs_);
    std::vector<FineRegion> regions;  // one launch for all of them
    std::vector<Box> cells;
    for (size_t p = 0; p < n; ++p) {
      if (!N.owns(int(p), me) || uncovered[p].empty()) continue;
      for (const Box& b : uncovered[p]) {
        regions.push_back({int(p), b});
        cells.push_back(coarsen(b, r));
      }
    }
    interpolate_regions(crse_refs, N.u_new.refs(), device_copy("remap::regions", regions),
                        BoxSet(cells), r, N.geom.dim, interp_, ncomp_);
  }
  std::vector<BoxList> interiors(n);
  for (size_t p = 0; p < n; ++p)
    interiors[p] = {next.boxes[p]};
  CopyPlan move = CopyPlan::intersecting(L.layout, interiors, next.owner, {}, me);
  move.copy(L.u_new.fabs(), N.u_new.fabs(), comm_);
  // What the next step writes its new state into (every interior cell) and then takes
  // as its state, its ghosts filled before it is read: a finer level's time
  // interpolation reads this level's u_old only once this level has stepped.
  N.u_old =
      N.u_new.like("u_old", -1, L.u_new.release_storage(), LevelData::Values::unset);
  L = std::move(N);
  build_plans(l);
  if (l < finest_level()) build_plans(l + 1);
  return move.cells_received() * ncomp_ * long(sizeof(double));
}

void Hierarchy::balance(int first_free) {
  PhaseTimers::Scope timer(timers_, "balance");
  std::vector<LevelLayout> current;
  for (const Level& L : levels_)
    current.push_back(L.layout);
  const std::vector<LevelLayout> planned = planner_.plan(current, first_free);
  long bytes = 0;
  // A planner's route (MLB's hypercube hops) is taken one step at a time: in each step
  // every level exchanges the patches that move in it. The data ends up as if it had
  // gone straight; every hop counts as migrated bytes.
  for (const std::vector<LevelLayout>& via : stages(planned, planner_.hops()))
    for (int l = first_free; l <= finest_level(); ++l)
      if (via[l] != levels_[l].layout) bytes += remap(l, via[l]);
  for (int l = first_free; l <= finest_level(); ++l)
    if (planned[l] != levels_[l].layout) bytes += remap(l, planned[l]);
  // The communication cut: ghost cells whose source patch lives on another rank.
  long cut = 0;
  for (Level& L : levels_)
    cut += L.u_new.cells_received();
  events_.push_back(
      {levels_[0].steps, levels_[0].t_new, comm_.sum(bytes), comm_.sum(cut)});
}

void Hierarchy::report_costs() {
  std::vector<LevelLayout> layouts;
  std::vector<std::vector<double>> per_step;
  double substeps = 1;  // level-l steps per coarse step
  for (int l = 0; l <= finest_level(); ++l) {
    Level& L = levels_[l];
    if (l > 0) substeps *= cfg_.ref_ratio[l - 1];
    layouts.push_back(L.layout);
    // Each rank knows its own patches' times; the sum over ranks gives every rank all.
    std::vector<double> s = comm_.sum(L.seconds);
    const double scale = L.timed_steps > 0 ? substeps / L.timed_steps : 0.0;
    for (double& x : s)
      x *= scale;
    per_step.push_back(std::move(s));
    std::fill(L.seconds.begin(), L.seconds.end(), 0.0);
    L.timed_steps = 0;
  }
  planner_.observe(layouts, per_step);
}

void Hierarchy::average_down_all() {
  for (int l = finest_level(); l > 0; --l)
    average_down(l);
}

void Hierarchy::average_down(int fine) {
  Level& F = levels_[fine];
  F.u_new.average_down_to(levels_[fine - 1].u_new, cfg_.ratio(fine - 1), comm_);
}

}  // namespace pw
