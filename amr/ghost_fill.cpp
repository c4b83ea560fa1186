// Ghost fill of one level: same-level copies (on-rank and across ranks, periodic images
// included), then coarse-fine ghosts by conservative limited linear interpolation in
// space and linear interpolation in time between the coarse level's old and new states,
// then the physical boundaries.
#include "amr/boundary.hpp"
#include "amr/hierarchy.hpp"
#include "amr/interpolate.hpp"

namespace pw {

void Hierarchy::fill_ghosts(int l, double time) {
  PhaseTimers::Scope timer(timers_, "ghost fill");
  Level& L = levels_[l];
  const int me = comm_.rank();
  L.ghost_plan.copy(L.u_new, L.u_new, comm_);
  if (l > 0) {
    const Level& C = levels_[l - 1];
    const IntVect r = cfg_.ratio(l - 1);
    // Weight of the coarse new state; exactly 0 or 1 at the ends of the coarse step.
    const double span = C.t_new - C.t_old;
    double a = span > 0 ? (time - C.t_old) / span : 1.0;
    if (time >= C.t_new) a = 1.0;
    if (time <= C.t_old) a = 0.0;
    if (a > 0.0) L.crse_plan.copy(C.u_new, L.crse_new, comm_);
    if (a < 1.0) L.crse_plan.copy(C.u_old, L.crse_old, comm_);
    for (size_t p = 0; p < L.layout.size(); ++p) {
      if (!L.owns(int(p), me) || L.cf_regions[p].empty()) continue;
      // Both scratch fabs are this level's own; blending in place is element-wise.
      Fab& crse = (a == 0.0) ? L.crse_old[p] : L.crse_new[p];
      if (a > 0.0 && a < 1.0)
        for (const Box& b : L.crse_regions[p])
          blend(L.crse_old[p], L.crse_new[p], a, crse, b);
      fill_outflow(C.geom, crse);
      for (const Box& b : L.cf_regions[p])
        interpolate_to_fine(crse, L.u_new[p], b, r, L.geom.dim);
    }
  }
  for (size_t p = 0; p < L.layout.size(); ++p)
    if (L.owns(int(p), me)) fill_outflow(L.geom, L.u_new[p]);
}

}  // namespace pw
