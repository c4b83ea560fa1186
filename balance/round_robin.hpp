// Baseline: patch i (in the canonical order of the list) goes to rank i mod p.
#pragma once

#include "balance/balancer.hpp"

namespace pw {

class RoundRobin : public Balancer {
 public:
  std::string name() const override { return "round_robin"; }
  Plan plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const override;
};

}  // namespace pw
