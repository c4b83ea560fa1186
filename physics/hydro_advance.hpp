// The MUSCL-Hancock update of many patches in one launch (primitives, predictor, Riemann
// fluxes per direction, conservative update with floors), and the kick of self-gravity.
#pragma once

#include "amr/fab.hpp"
#include "amr/level_geom.hpp"
#include "amr/physics.hpp"
#include "amr/update_refs.hpp"
#include "physics/hydro_kernels.hpp"

namespace pw {

/// Doubles of scratch hydro_advance needs for `box` in `dim` dimensions.
long hydro_scratch_size(const HydroParams& hp, int dim, const Box& box);

/// Advance the patches of refs from u_old (ghosts filled) to u_new over dt, writing the
/// face fluxes (Physics::advance's contract) and counting fallbacks and floors in
/// counters (hydro_counter's slots), a team per patch with `doubles` of scratch (the
/// largest hydro_scratch_size).
void hydro_advance(const HydroParams& hp, int dim, const LevelGeom& g,
                   const UpdateRefs& refs, long doubles, double dt,
                   const Counters& counters);

/// Physics::gravity_kick for the hydro module, in one launch: the momenta of the cells
/// of `cells` (item: patch) of u gain dt rho g with g = -grad phi centred (phi:
/// component 0, one ghost layer filled), the energy the kinetic energy that adds, and
/// u's component `keep` takes phi.
void hydro_gravity_kick(int dim, const LevelGeom& g, const BoxSet& cells,
                        const StructArray<FabRef>& u, const StructArray<FabRef>& phi,
                        double dt, int keep);

}  // namespace pw
