// Parent and family relations between the patches of a balancer's list, from geometry
// alone: a patch's parent is the next coarser patch under the centre of its box.
#pragma once

#include <vector>

#include "balance/balancer.hpp"

namespace pw {

/// For each patch of `fine`, the index in `coarse` of the patch one level coarser that
/// holds the centre cell of its box (PatchMeta::refinement gives the ratio), or -1.
std::vector<int> parents_in(const std::vector<PatchMeta>& fine,
                            const std::vector<PatchMeta>& coarse);

/// For each patch, the index of its ancestor at the coarsest level of the list: itself
/// at that level, and for a patch whose parent is not in the list (an orphan is the
/// root of its own family).
std::vector<int> family_roots(const std::vector<PatchMeta>& patches);

}  // namespace pw
