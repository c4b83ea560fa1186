// The MUSCL-Hancock update of one patch: the launches of its stages (primitives,
// predictor, Riemann fluxes per direction, conservative update with floors).
#pragma once

#include "amr/fab.hpp"
#include "amr/level_geom.hpp"
#include "amr/physics.hpp"
#include "physics/hydro_kernels.hpp"

namespace pw {

/// Doubles of scratch hydro_advance needs for `box` in `dim` dimensions.
long hydro_scratch_size(const HydroParams& hp, int dim, const Box& box);

/// Advance the interior `box` from u_old (ghosts filled) to u_new over dt, writing the
/// face fluxes (Physics::advance's contract) and counting fallbacks and floors in
/// counters (hydro_counter's slots). mem holds hydro_scratch_size doubles.
void hydro_advance(const HydroParams& hp, int dim, const LevelGeom& g, const Box& box,
                   const Array4& u_old, const Array4& u_new, const Array4 flux[3],
                   double dt, double* mem, const Counters& counters);

}  // namespace pw
