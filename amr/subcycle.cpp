// Berger-Colella recursive subcycling: level l+1 takes r steps per step of level l, then
// the coarse-fine faces are refluxed and the fine level is averaged down.
#include <utility>

#include "amr/hierarchy.hpp"

namespace pw {

void Hierarchy::advance(double dt) {
  advance_level(0, dt);
  if (hook_) hook_->at_sync(*this, SyncPoint::stepped);
}

void Hierarchy::advance_level(int l, double dt) {
  // Regrid the finer levels every regrid_interval steps of this level, unless a coarser
  // level's regrid just rebuilt them at this step.
  if (l < cfg_.max_level && cfg_.regrid_interval > 0 && levels_[l].steps > 0 &&
      levels_[l].steps % cfg_.regrid_interval == 0 &&
      levels_[l].steps > levels_[l].last_regrid_step)
    regrid(l);

  Level& L = levels_[l];
  const double time = L.t_new;
  fill_ghosts(l, time);
  {
    PhaseTimers::Scope timer(timers_, "advance");
    for (size_t p = 0; p < L.layout.size(); ++p) {
      if (!L.owns(int(p), comm_.rank())) continue;
      const std::array<Fab, 3> fluxes = L.fluxes(p);
      const Array4 flux[3] = {fluxes[0].array(), fluxes[1].array(), fluxes[2].array()};
      // The update goes into the old state's storage, which then becomes the new state.
      // Timed per patch (kernels finished) for measured costs.
      const double start = MPI_Wtime();
      physics_.advance(L.geom, L.layout.boxes[p], L.u_new[p].array(), L.u_old[p].array(),
                       flux, time, dt, scratch(L.layout.boxes[p]), counters_);
      Kokkos::fence();
      if (const Emulation* e = comm_.emulation(); e && e->slowdown > 1)
        spin_until(start + e->slowdown * (MPI_Wtime() - start));
      L.seconds[p] += MPI_Wtime() - start;
      if (l > 0) {
        // While this patch's fluxes are still in cache.
        PhaseTimers::Scope sync(timers_, "sync");
        L.reg.add_fine(int(p), fluxes.data(), dt);
      }
    }
    std::swap(L.u_old, L.u_new);
    L.t_old = time;
    L.t_new = time + dt;
    L.steps += 1;
    L.timed_steps += 1;
    cell_updates_ += L.num_cells();
  }
  if (hook_) hook_->after_level_step(*this, l, dt);
  if (l < finest_level()) {
    levels_[l + 1].reg.reset();
    const int r = cfg_.ref_ratio[l];
    for (int s = 0; s < r; ++s)
      advance_level(l + 1, dt / r);
    PhaseTimers::Scope timer(timers_, "sync");
    Level& C = levels_[l];
    const std::vector<Fab> crse_flux[3] = {C.flux[0].fabs(), C.flux[1].fabs(),
                                           C.flux[2].fabs()};
    levels_[l + 1].reg.reflux(C.u_new.fabs(), crse_flux, dt, comm_);
    average_down(l + 1);
  }
}

}  // namespace pw
