// Level: one refinement level's layout, data on this rank, times, and the communication
// plans built once per layout change.
#pragma once

#include <vector>

#include "amr/flux_register.hpp"
#include "amr/layout.hpp"
#include "amr/level_geom.hpp"
#include "amr/parallel_copy.hpp"

namespace pw {

struct Level {
  LevelGeom geom;
  LevelLayout layout;
  // State with ghost cells, allocated on owned patches only. u_new holds the state at
  // t_new, u_old at t_old (the previous step), for time interpolation of finer ghosts.
  std::vector<Fab> u_new, u_old;
  std::vector<Fab> flux[3];  // face fluxes of the last step, faces(box, d)
  double t_old = 0, t_new = 0;
  int steps = 0;
  int last_regrid_step = 0;
  // Kernel time of each owned patch, and the level steps it covers, since the last time
  // the planner was told (measured costs).
  std::vector<double> seconds;
  int timed_steps = 0;

  // Plans, rebuilt when this level or the next coarser one changes.
  CopyPlan ghost_plan;                // same-level ghost exchange (periodic images too)
  std::vector<BoxList> cf_regions;    // per patch: ghost cells to interpolate from coarse
  std::vector<BoxList> crse_regions;  // per patch: coarse cells those need (disjoint)
  std::vector<Fab> crse_old, crse_new;  // per patch: coarse data under the ghosts
  CopyPlan crse_plan;                   // coarse level -> crse_old / crse_new
  std::vector<Fab> avg;                 // per patch: this patch averaged to coarse cells
  CopyPlan avg_plan;                    // avg -> coarse level
  FluxRegister reg;                     // this level's fluxes vs the coarse level's

  bool owns(int p, int rank) const { return layout.owner[p] == rank; }
  long num_cells() const { return pw::num_cells(layout.boxes); }
};

}  // namespace pw
