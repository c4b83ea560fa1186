// Set operations on lists of disjoint boxes, and the periodic images of a domain.
#pragma once

#include <vector>

#include "amr/box.hpp"

namespace pw {

using BoxList = std::vector<Box>;

/// a \ b as at most 6 disjoint boxes.
BoxList difference(const Box& a, const Box& b);
/// Cells of `a` not covered by any box of `b`, as disjoint boxes (deterministic order).
BoxList difference(const BoxList& a, const BoxList& b);
/// Cells of `a` covered by `b`.
BoxList intersection(const BoxList& a, const Box& b);
long num_cells(const BoxList& a);
/// Bounding box of the list (empty box for an empty list).
Box bounding_box(const BoxList& a);

/// Split b into pieces no longer than max_size in any direction, cutting at multiples of
/// `blocking` (global index), into pieces of nearly equal size.
/// Pre: b is aligned to `blocking`, max_size is a multiple of `blocking`.
BoxList chop(const Box& b, const IntVect& max_size, const IntVect& blocking);

/// The nonzero shifts s such that domain + s is a periodic image next to the domain
/// (26 in fully periodic 3D, 8 in 2D, fewer without periodicity).
std::vector<IntVect> periodic_shifts(const Box& domain, const bool periodic[3]);

}  // namespace pw
