// LayoutPlanner backed by a Balancer: turns the hierarchy's levels into the balancer's
// patch list (cost = cells x substeps of the level) and its plan back into level layouts.
#pragma once

#include <memory>

#include "amr/amr_config.hpp"
#include "amr/layout_planner.hpp"
#include "balance/balancer.hpp"

namespace pw {

class BalancerPlanner : public LayoutPlanner {
 public:
  BalancerPlanner(std::unique_ptr<Balancer> balancer, const AmrConfig& cfg, int nranks)
      : balancer_(std::move(balancer)), cfg_(cfg), ranks_(RankInfo::uniform(nranks)) {}
  std::vector<LevelLayout> plan(const std::vector<LevelLayout>& proposed,
                                int first_free) override;
  const Balancer& balancer() const { return *balancer_; }

 private:
  std::unique_ptr<Balancer> balancer_;
  AmrConfig cfg_;
  RankInfo ranks_;
};

}  // namespace pw
