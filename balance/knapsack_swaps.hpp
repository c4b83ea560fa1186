// Knapsack's swap phase: after the greedy packing, repeatedly exchange one patch of the
// most loaded rank for one (or none) of the least loaded, the exchange that lowers the
// larger of their two loads the most, while one does.
#pragma once

#include <vector>

namespace pw {

/// Runs at most max_passes swaps. cost: per patch; speed: per rank; owner (per patch) and
/// load (per rank, cost / speed) are updated. Each pass takes the first most loaded and
/// the first least loaded rank; among the exchanges that lower the larger of their loads
/// by more than a relative 1e-12, it makes one of those that lower it most, ties broken
/// by the lower patch index on the heavy rank, then on the light one (no patch first).
/// Costs are read per distinct value: a pass costs O(p + D log D) for D distinct costs on
/// the two ranks (D <= n / p-ish, far fewer on AMR patches), not O((n / p)^2).
void knapsack_swaps(const std::vector<double>& cost, const std::vector<double>& speed,
                    std::vector<int>& owner, std::vector<double>& load, int max_passes);

}  // namespace pw
