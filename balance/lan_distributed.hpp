// Lan & Taylor's distributed DLB (seed 001, Sec. 4): the ranks form groups (machines,
// nodes) of equal ranks, with a speed weight each. When the level-0 patches are being
// balanced (after a level-0 step) a global phase weighs the gain of evening out the
// groups' loads (eqs. 2-4) against the cost of moving the work (eq. 1), and when
// Gain > gamma * Cost moves the groups' boundaries so that each group holds a share of
// the work proportional to the sum of its ranks' speeds; finer patches go with their
// level-0 ancestor. Then, and after finer steps, a local phase runs Lan's scheme (`lan`)
// inside each group, level by level: patches never leave their group there, so children
// stay in their parents' group and only level-0 moves cross the slow network.
#pragma once

#include <memory>
#include <vector>

#include "balance/balancer.hpp"

namespace pw {

/// What the global phase found, for tests and the log.
struct GroupDecision {
  bool global_phase = false;  // the list held level 0, with two groups or more
  bool initial = false;       // no step measured yet: split without weighing
  bool redistributed = false;
  double gain = 0;      // eq. 4, seconds
  double cost = 0;      // eq. 1, seconds
  double bytes = 0;     // W of eq. 1: field data the proposal moves between groups
  bool probed = false;  // alpha and beta were measured for this decision
  std::vector<double> group_load;  // W_group / (sum of its speeds), before
};

/// Eq. 4 with the groups' loads per unit speed (for groups of equal speed this is the
/// paper's formula): T * (max - min) / (number of groups * max). 0 for no load.
double group_gain(double step_seconds, const std::vector<double>& group_load);

class LanDistributed : public Balancer {
 public:
  /// gamma: how many times the gain must exceed the cost (the paper's default 2.0);
  /// threshold: the local phase's MaxLoad/AvgLoad trigger (lan's 1.25).
  explicit LanDistributed(const SplitRules& rules, double gamma = 2.0,
                          double threshold = 1.25)
      : rules_(rules), gamma_(gamma), threshold_(threshold) {}
  /// Reads balance.lan_distributed.gamma (> 0) and .threshold (>= 1).
  static std::unique_ptr<Balancer> from_deck(const Deck& deck, const SplitRules& rules);

  std::string name() const override { return "lan_distributed"; }
  bool whole_hierarchy() const override { return true; }
  bool weighs_cost() const override { return true; }

  struct Traced {
    Plan plan;
    GroupDecision decision;
  };
  /// Groups are the distinct values of ranks.group, in ascending order. A patch's group
  /// is its owner's; a new patch's is its parent owner's, else its family root's; a
  /// family with none is placed by the global phase (or, without one, on the group
  /// with the least load per speed). Before any step is measured
  /// (ranks.measured.step_seconds = 0) the global phase takes its proposal unweighed. The
  /// global phase orders the family roots along a Hilbert curve and cuts it into one
  /// contiguous piece per group (the "boundaries" of Fig. 6), weighted by whole families.
  /// Cost = alpha + beta * bytes moved + delta (ranks.measured; alpha and beta from its
  /// probe_network when set, called only when the decision depends on them).
  /// Deterministic.
  Traced trace(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const;
  Plan plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const override {
    return trace(patches, ranks).plan;
  }

 private:
  SplitRules rules_;
  double gamma_;
  double threshold_;
};

}  // namespace pw
