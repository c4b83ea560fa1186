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

}  // namespace pw::testing
