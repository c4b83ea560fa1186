// Berger-Rigoutsos clustering: cover a set of tagged cells with few, efficient, disjoint
// boxes.
#pragma once

#include <vector>

#include "amr/box_list.hpp"

namespace pw {

/// Boxes covering every cell of `tags` (any order, duplicates allowed; z = 0 when dim =
/// 2). Each box is cut until (#tags / #cells) >= efficiency or it is one cell wide in
/// every direction < dim; the cut is at the hole of the tag signature nearest the middle,
/// else at the strongest inflection of its Laplacian, else a bisection of the longest
/// side. Post: boxes disjoint and tight around their tags; directions >= dim are never
/// cut; sorted by Box::operator<, so the result depends only on the set of tags.
BoxList berger_rigoutsos(std::vector<IntVect> tags, double efficiency, int dim);

}  // namespace pw
