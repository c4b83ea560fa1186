// Ghost fill of one level: same-level copies (on-rank and across ranks, periodic images
// included) and, while their messages fly, coarse-fine ghosts by conservative limited
// linear interpolation in space and linear interpolation in time between the coarse
// level's old and new states; then the physical boundaries: the walls' rules, and where
// a face takes the exact state (a time-dependent inflow), the physics module's state at
// the fill's time. In two halves, so that the stepper can update the patches whose ghost
// cells are this rank's alone between them. The coarse-fine part is timed as its own
// phase.
#include "amr/hierarchy.hpp"

namespace pw {

void Hierarchy::fill_ghosts(int l, double time) {
  fill_ghosts_begin(l, time);
  fill_ghosts_finish(l, time);
}

void Hierarchy::fill_ghosts_begin(int l, double time) {
  PhaseTimers::Scope timer(timers_, "ghost fill");
  Level& L = levels_[l];
  // The same-level exchange's messages fly while the coarse-fine ghosts, cells no patch
  // of this level covers (so disjoint from the exchange's), are interpolated.
  L.u_new.fill_boundary_begin(comm_);
  if (l > 0) {
    const Level& C = levels_[l - 1];
    // Weight of the coarse new state; exactly 0 or 1 at the ends of the coarse step.
    const double span = C.t_new - C.t_old;
    double a = span > 0 ? (time - C.t_old) / span : 1.0;
    if (time >= C.t_new) a = 1.0;
    if (time <= C.t_old) a = 0.0;
    // A phase of its own (nested: charged here, not to the ghost fill): on refined
    // levels it can cost more than the same-level exchange.
    PhaseTimers::Scope cf_timer(timers_, "coarse-fine fill");
    L.u_new.fill_from_coarse(C.u_old, C.u_new, a, cfg_.ratio(l - 1), interp_, bcs_,
                             comm_);
  }
}

void Hierarchy::fill_ghosts_finish(int l, double time) {
  PhaseTimers::Scope timer(timers_, "ghost fill");
  Level& L = levels_[l];
  L.u_new.fill_boundary_finish(comm_);
  L.u_new.fill_physical_boundary(bcs_);
  // One launch over every owned patch's ghost cells beyond the exact faces.
  unsigned exact = 0;
  for (int d = 0; d < L.geom.dim; ++d)
    for (int side = 0; side < 2; ++side)
      if (has_exact_face(bcs_, d, side)) exact |= 1u << (2 * d + side);
  if (exact != 0)
    physics_.initial_data(L.geom, L.u_new.ghosts_beyond_faces(exact), L.u_new.refs(),
                          time);
}

}  // namespace pw
