// Launches of the inter-level kernels over boxes.
#pragma once

#include "amr/fab.hpp"

namespace pw {

/// fine(box) = conservative limited linear interpolation of crse. Pre: crse holds every
/// coarse cell under `box` plus one neighbour in each used direction.
void interpolate_to_fine(const Fab& crse, Fab& fine, const Box& box, const IntVect& ratio,
                         int dim);

/// crse(cbox) = average of fine over each coarse cell of cbox. Pre: fine covers
/// refine(cbox).
void average_to_coarse(const Fab& fine, Fab& crse, const Box& cbox, const IntVect& ratio);

/// out = (1 - a) * x + a * y on `box`, all components (time interpolation).
void blend(const Fab& x, const Fab& y, double a, Fab& out, const Box& box);

}  // namespace pw
