// Helpers for balancer tests.
#pragma once

#include <vector>

#include "balance/balancer.hpp"

namespace pw::testing {

/// Cost per rank of a plan that keeps patches whole (the cost of patch plan.source[i]).
inline std::vector<double> loads(const Plan& plan, const std::vector<PatchMeta>& patches,
                                 int p) {
  std::vector<double> l(size_t(p), 0.0);
  for (size_t i = 0; i < plan.owner.size(); ++i)
    l[size_t(plan.owner[i])] += patches[size_t(plan.source[i])].cost;
  return l;
}

/// True when `pieces` are disjoint, inside `whole`, and hold all its cells.
inline bool tiles(const std::vector<Box>& pieces, const Box& whole) {
  long cells = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (!whole.contains(pieces[i]) || pieces[i].empty()) return false;
    for (size_t j = 0; j < i; ++j)
      if (intersects(pieces[i], pieces[j])) return false;
    cells += pieces[i].num_cells();
  }
  return cells == whole.num_cells();
}

}  // namespace pw::testing
