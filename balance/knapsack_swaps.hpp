// Knapsack's swap phase: after the greedy packing, repeatedly exchange one patch of the
// most loaded rank for one (or none) of the least loaded, the exchange that lowers the
// larger of their two loads the most, while one does.
#pragma once

#include <vector>

namespace pw {

/// Runs at most max_passes swaps. cost: per patch; speed: per rank; owner (per patch) and
/// load (per rank, cost / speed) are updated. Each pass takes the first most loaded and
/// the first least loaded rank and the exchanges that lower the larger of their loads by
/// more than a relative 1e-12; of those within a relative 1e-12 of the lowest result it
/// makes the first by the patch index on the heavy rank, then on the light one (no patch
/// first): the swaps of the plain double loop over both ranks' patches. Costs are read
/// per distinct value: a pass costs O(p + D + log m) for D distinct costs on the two
/// ranks (at most their patch count m, far fewer on AMR patches), not O(m^2), after an
/// O(m log m) sort of a rank's patches the first time it is the heaviest or lightest.
void knapsack_swaps(const std::vector<double>& cost, const std::vector<double>& speed,
                    std::vector<int>& owner, std::vector<double>& load, int max_passes);

}  // namespace pw
