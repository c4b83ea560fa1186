// LayoutPlanner backed by a Balancer: turns the hierarchy's levels into the balancer's
// patch list (cost = cells x substeps of the level) and its plan back into level layouts.
#pragma once

#include <memory>

#include "amr/amr_config.hpp"
#include "amr/layout_planner.hpp"
#include "balance/balancer.hpp"
#include "balance/metrics.hpp"

namespace pw {

/// What the balancer did in one call of the planner.
struct PlanRecord {
  LoadMetrics load;  // of the whole hierarchy's distribution afterwards
  int patches = 0;   // patches handed to the balancer
  int split = 0;     // extra patches its splits made
  double seconds = 0;
};

class BalancerPlanner : public LayoutPlanner {
 public:
  /// Reads balance.method (and its parameters) and balance.levels = "each" (default:
  /// every level balanced on its own) | "all" (all free levels together).
  BalancerPlanner(const Deck& deck, const AmrConfig& cfg, int nranks);
  std::vector<LevelLayout> plan(const std::vector<LevelLayout>& proposed,
                                int first_free) override;
  const Balancer& balancer() const { return *balancer_; }
  /// One record per call of plan(), in order.
  const std::vector<PlanRecord>& records() const { return records_; }

 private:
  std::unique_ptr<Balancer> balancer_;
  AmrConfig cfg_;
  RankInfo ranks_;
  bool each_level_ = true;
  std::vector<PlanRecord> records_;
};

}  // namespace pw
