// Physical boundaries: outflow (zero-gradient) in every non-periodic direction. Periodic
// directions are handled by the same-level copy through periodic images.
#pragma once

#include "amr/fab.hpp"
#include "amr/level_geom.hpp"

namespace pw {

/// Fill the cells of fab.box outside geom.domain in non-periodic directions from the
/// nearest cell inside. Pre: the cells inside the domain are filled.
void fill_outflow(const LevelGeom& geom, Fab& fab);

}  // namespace pw
