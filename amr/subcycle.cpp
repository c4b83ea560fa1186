// Berger-Colella recursive subcycling: level l+1 takes r steps per step of level l, then
// the coarse-fine faces are refluxed and the fine level is averaged down.
#include <utility>

#include "amr/hierarchy.hpp"

namespace pw {

void Hierarchy::advance(double dt) {
  advance_level(0, dt);
  if (hook_) hook_->at_sync(*this, SyncPoint::stepped);
}

void Hierarchy::advance_patches(int l, double time, double dt,
                                const LevelData::PatchGroup& group) {
  if (group.patches.empty()) return;
  Level& L = levels_[l];
  // The update goes into the old state's storage, which then becomes the new state, and
  // on a refined level the fine fluxes go into its flux register. One call for the
  // group; its time is shared among the patches by cells (the update costs the same per
  // cell), and the emulated extra work, uneven by design, is timed patch by patch on top.
  const double start = MPI_Wtime();
  const auto stored = [&](int d) { return L.flux[d].size() > 0 ? &L.flux[d] : nullptr; };
  LevelUpdate update{L.u_new,
                     L.u_old,
                     {stored(0), stored(1), stored(2)},
                     flux_padding_,
                     largest_scratch(L),
                     l > 0 ? &L.reg : nullptr};
  update.patches = &group.interiors;
  physics_.advance_level(L.geom, update, time, dt, counters_);
  Kokkos::fence();
  std::vector<double> seconds = shared_by_cells(l, group.patches, MPI_Wtime() - start);
  if (physics_.emulates_work()) {
    for (int p : group.patches) {
      const double t0 = MPI_Wtime();
      physics_.emulated_work(L.layout.boxes[p], L.u_old[p].array(), update.scratch);
      Kokkos::fence();
      seconds[p] += MPI_Wtime() - t0;
    }
  }
  // A slower rank (emulation): every patch takes `slowdown` times as long.
  if (const Emulation* e = comm_.emulation(); e && e->slowdown > 1) {
    spin_until(start + e->slowdown * (MPI_Wtime() - start));
    for (double& s : seconds)
      s *= e->slowdown;
  }
  for (size_t p = 0; p < seconds.size(); ++p)
    L.seconds[p] += seconds[p];
}

std::vector<double> Hierarchy::shared_by_cells(int l, const std::vector<int>& patches,
                                               double seconds) const {
  const Level& L = levels_[l];
  double cells = 0;
  for (int p : patches)
    cells += double(L.layout.boxes[p].num_cells());
  std::vector<double> out(L.layout.size(), 0.0);
  for (int p : patches)
    out[p] = seconds * double(L.layout.boxes[p].num_cells()) / cells;
  return out;
}

void Hierarchy::add_measured_seconds(int l, double seconds) {
  std::vector<int> owned;
  for (size_t p = 0; p < levels_[l].layout.size(); ++p)
    if (levels_[l].owns(int(p), comm_.rank())) owned.push_back(int(p));
  if (owned.empty()) return;
  const std::vector<double> s = shared_by_cells(l, owned, seconds);
  for (size_t p = 0; p < s.size(); ++p)
    levels_[l].seconds[p] += s[p];
}

void Hierarchy::advance_level(int l, double dt) {
  // Regrid the finer levels every regrid_interval steps of this level, unless a coarser
  // level's regrid just rebuilt them at this step.
  if (l < cfg_.max_level && cfg_.regrid_interval > 0 && levels_[l].steps > 0 &&
      levels_[l].steps % cfg_.regrid_interval == 0 &&
      levels_[l].steps > levels_[l].last_regrid_step)
    regrid(l);

  fit_fluxes(l);
  Level& L = levels_[l];
  const double time = L.t_new;
  // The patches whose ghost cells are this rank's alone are updated while the same-level
  // exchange's messages fly; the others once they have arrived.
  fill_ghosts_begin(l, time);
  {
    PhaseTimers::Scope timer(timers_, "advance");
    advance_patches(l, time, dt, L.u_new.ghosts_on_rank(true));
  }
  fill_ghosts_finish(l, time);
  {
    PhaseTimers::Scope timer(timers_, "advance");
    advance_patches(l, time, dt, L.u_new.ghosts_on_rank(false));
    std::swap(L.u_old, L.u_new);
    L.t_old = time;
    L.t_new = time + dt;
    L.steps += 1;
    L.timed_steps += 1;
    cell_updates_ += L.num_cells();
    if (level_steps_.size() <= size_t(l)) level_steps_.resize(size_t(l) + 1, 0);
    level_steps_[size_t(l)] += 1;
  }
  if (hook_) hook_->after_level_step(*this, l, dt);
  if (l < finest_level()) {
    levels_[l + 1].reg.reset();
    const int r = cfg_.ref_ratio[l];
    for (int s = 0; s < r; ++s)
      advance_level(l + 1, dt / r);
    PhaseTimers::Scope timer(timers_, "sync");
    Level& C = levels_[l];
    const FluxRegister::Refs crse_flux[3] = {C.flux[0].refs(), C.flux[1].refs(),
                                             C.flux[2].refs()};
    levels_[l + 1].reg.reflux(C.u_new.refs(), crse_flux, dt, comm_);
    average_down(l + 1);
  }
}

}  // namespace pw
