// ENZO's original dynamic load balancer (Lan, Taylor & Bryan, JPDC 62 (2002), Sec. 2.3
// and Fig. 3): while MaxLoad/MinLoad > threshold, move the first grid of the most loaded
// rank that is smaller than half the load difference to the least loaded rank.
// Incremental: it starts from the current owners, and never splits a grid.
#pragma once

#include <memory>

#include "balance/balancer.hpp"
#include "balance/load_moves.hpp"

namespace pw {

class Enzo : public Balancer {
 public:
  /// threshold >= 1: the MaxLoad/MinLoad ratio that triggers a move (ENZO's default 1.5).
  explicit Enzo(double threshold = 1.5) : threshold_(threshold) {}
  std::string name() const override { return "enzo"; }
  /// Loads are cost / speed. A grid moves only when the receiver stays below the sender
  /// afterwards (for equal speeds: cost < (MaxLoad - MinLoad) / 2, as in Fig. 3). New
  /// patches are first placed by starting_owners(). Deterministic: grids are tried in
  /// index order, ties between ranks go to the lower rank.
  Plan plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const override {
    return trace(patches, ranks).plan;
  }
  /// The plan with the moves that made it (one move per round).
  TracedPlan trace(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const;

 private:
  double threshold_;
};

/// A BalancerFactory: reads balance.enzo.threshold (default 1.5, the paper's) and checks
/// it is >= 1. Enzo never splits, so the rules are unused.
std::unique_ptr<Balancer> make_enzo(const Deck& deck, const SplitRules& rules);

}  // namespace pw
