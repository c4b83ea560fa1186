// Chop and pack (Morris, "Non-uniform load balancing of AMR codes", SAMRAI): boxes above
// the ideal load are cut by modified recursive bisection into whole ideal loads plus a
// leftover, then all pieces are bin-packed largest first onto the least loaded rank
// (packing "greedy"), or packed by place instead (packing "spatial", spatial_pack.hpp).
#pragma once

#include <utility>
#include <vector>

#include "balance/balancer.hpp"

namespace pw {

/// A box's load in units of the ideal load: `wholes` pieces of one ideal load each, plus
/// one leftover piece when `leftover` is set (3.2 ideals = {3, true}).
struct Share {
  int wholes = 0;
  bool leftover = false;
};

/// One cut of modified recursive bisection (Morris §3, Fig. 3): the lo side takes the
/// larger half of the whole loads, the hi side the rest and the leftover, so 3.2 ideals
/// are cut 2 | 1.2. The halves are as equal as they can be (no thin slabs, Fig. 4) and
/// the leftover is cut off last, deepest in the recursion, where it absorbs the error of
/// every cut before it. Pre: s holds at least two pieces.
std::pair<Share, Share> split_share(Share s);

/// The pieces modified recursive bisection cuts `box` into, for a cost spread evenly over
/// its cells: whole ideal loads plus a leftover, each cut across the longest direction
/// that has a legal cut (see SplitRules), at the legal position nearest its target.
/// Post: the pieces tile box exactly, in depth-first order (lo side first). A box of at
/// most (1 + tolerance) ideal loads, or with no legal cut, is returned whole.
std::vector<Box> chop_to_ideal(const Box& box, double cost, double ideal,
                               const SplitRules& rules, double tolerance);

class ChopPack : public Balancer {
 public:
  /// greedy: the paper's bin packing, blind to place; spatial: see spatial_pack.hpp.
  enum class Packing { greedy, spatial };
  /// tolerance: boxes up to (1 + tolerance) ideal loads are not cut, and a leftover up to
  /// tolerance ideal loads is shared among the whole pieces instead of cut off. The
  /// paper's 0 cuts every box above the ideal. With spatial packing: a cut may miss
  /// its share by up to tolerance ideal loads when that cuts fewer faces.
  explicit ChopPack(const SplitRules& rules, double tolerance = 0.0,
                    Packing packing = Packing::greedy)
      : rules_(rules), tolerance_(tolerance), packing_(packing) {}
  /// Reads and checks balance.chop_pack.tolerance (>= 0, default 0) and
  /// balance.chop_pack.packing ("greedy", the default, or "spatial").
  static std::unique_ptr<Balancer> from_deck(const Deck& deck, const SplitRules& rules);

  std::string name() const override { return "chop_pack"; }
  /// Ideal load = total cost / sum of rank speeds. A piece costs its patch's cost times
  /// its share of the cells. Deterministic: ties break by piece index, then by rank.
  Plan plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const override;

 private:
  SplitRules rules_;
  double tolerance_;
  Packing packing_;
};

/// The cost of each box of a plan: its source patch's cost times its share of the cells.
std::vector<double> piece_costs(const Plan& plan, const std::vector<PatchMeta>& patches);

}  // namespace pw
