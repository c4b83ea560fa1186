// Lan, Taylor & Bryan's DLB (JPDC 62 (2002), Sec. 4, Fig. 8): when MaxLoad/AvgLoad >
// threshold, a moving-grid phase sends whole grids that bring the least loaded rank near
// AvgLoad, then a splitting-grid phase cuts the largest grid of the most loaded rank
// along its longest side so that one piece fills the least loaded rank's hole (cutting
// that piece again when even the thinnest slab is too large); rounds repeat until
// balanced or stuck. Incremental: it starts from the current owners.
#pragma once

#include <memory>

#include "balance/balancer.hpp"
#include "balance/load_moves.hpp"

namespace pw {

class Lan : public Balancer {
 public:
  /// Fig. 8 balances while MaxLoad/AvgLoad > threshold and stops as soon as it is not,
  /// so the threshold is also the imbalance lan leaves: about the threshold itself when
  /// it starts far off. The paper finds 1.25 best for ENZO's run time on 8-64 processors
  /// (Sec. 6, the default); its experiments of Sec. 5 use 1.20; a smaller one balances
  /// better at the price of more moves.
  static constexpr double kDefaultThreshold = 1.25;

  /// threshold >= 1: the MaxLoad/AvgLoad ratio that triggers balancing and ends it.
  Lan(const SplitRules& rules, double threshold = kDefaultThreshold)
      : rules_(rules), threshold_(threshold) {}
  std::string name() const override { return "lan"; }
  /// Loads are cost / speed; AvgLoad is total cost / total speed. Pieces are cut at
  /// multiples of the blocking factor with no side below min_size (a grid that cannot be
  /// cut so is not split); a piece costs its share of the patch's cells. The maximum load
  /// never rises. New patches are first placed by starting_owners(). Deterministic: ties
  /// go to the lower index (grid or rank).
  Plan plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const override {
    return trace(patches, ranks).plan;
  }
  /// The plan with the moves and splits that made it and the number of rounds.
  TracedPlan trace(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const;

 private:
  SplitRules rules_;
  double threshold_;
};

/// A BalancerFactory: reads balance.lan.threshold (default Lan::kDefaultThreshold) and
/// checks it is >= 1.
std::unique_ptr<Balancer> make_lan(const Deck& deck, const SplitRules& rules);

}  // namespace pw
