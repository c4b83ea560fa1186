// Knapsack (as AMReX's): largest cost first onto the least loaded rank, then swaps
// between the most and the least loaded ranks while they lower the maximum. Ignores
// locality.
#pragma once

#include "balance/balancer.hpp"

namespace pw {

class Knapsack : public Balancer {
 public:
  /// max_passes bounds the swap phase (each pass makes one swap or stops).
  explicit Knapsack(int max_passes = 1000) : max_passes_(max_passes) {}
  std::string name() const override { return "knapsack"; }
  /// Loads are cost / speed of the rank. Deterministic: ties break by patch index.
  Plan plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const override;

 private:
  int max_passes_;
};

}  // namespace pw
