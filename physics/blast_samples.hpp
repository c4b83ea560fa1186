// The samples of a level's initial data that fall inside a blast's ball, counted on the
// host, so that the blast deposits its energy exactly at any resolution.
#pragma once

#include "amr/level_geom.hpp"

namespace pw {

/// The volume n^dim samples per cell of level g give the ball of radius r about c: the
/// samples strictly inside it (in_ball at sample_coordinate, as the initial data decides)
/// times a sample's volume. The lattice goes on beyond the domain, so that a ball a wall
/// cuts (a Sedov blast in a corner with reflecting walls, energy the whole ball's) gets
/// the part of the energy its part of the ball has, as with the exact volume. 0 when no
/// sample is inside.
double sampled_ball_volume(const LevelGeom& g, const double c[3], double r, int n);

}  // namespace pw
