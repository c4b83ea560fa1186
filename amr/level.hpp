// Level: one refinement level's layout, its fields on this rank, and the time stepper's
// clock and measurements.
#pragma once

#include <vector>

#include "amr/flux_register.hpp"
#include "amr/layout.hpp"
#include "amr/level_data.hpp"
#include "amr/level_geom.hpp"

namespace pw {

struct Level {
  LevelGeom geom;
  LevelLayout layout;
  // The state with ghost cells, allocated on owned patches only. u_new holds the state at
  // t_new, u_old at t_old (the previous step), for time interpolation of finer ghosts.
  // The two share their copy plans.
  LevelData u_new, u_old;
  // Face fluxes of the last step, faces(box, d) (padded: Physics::flux_padding), where a
  // later step reads them (none on the finest level where the physics keeps them in
  // scratch: Hierarchy::fit_fluxes).
  LevelData flux[3];
  double t_old = 0, t_new = 0;
  int steps = 0;
  int last_regrid_step = 0;
  // Kernel time of each owned patch, and the level steps it covers, since the last time
  // the planner was told (measured costs).
  std::vector<double> seconds;
  int timed_steps = 0;
  FluxRegister reg;  // this level's fluxes vs the coarse level's, rebuilt with either

  bool owns(int p, int rank) const { return layout.owner[p] == rank; }
  long num_cells() const { return pw::num_cells(layout.boxes); }
};

}  // namespace pw
