// Uintah's space-filling-curve balancer (Luitjens, Meng, Berzins & Henderson 2008): the
// patches of all levels ordered along a Hilbert (or Morton) curve through their
// centroids, then the curve cut into p contiguous pieces by the parallel threshold search
// of Fig. 4.
#pragma once

#include <limits>
#include <vector>

#include "balance/balancer.hpp"

namespace pw {

enum class SfcCurve { hilbert, morton };

/// The patch indices in curve order. Centroids are taken in one frame for all levels
/// (box centroid / refinement, in cells of the finest refinement present), keys on the
/// smallest 2^b grid that holds them (2D when every box has k = 0..0). Ties (equal keys)
/// break by level, then by index. Deterministic.
std::vector<int> sfc_order(const std::vector<PatchMeta>& patches, SfcCurve curve);

/// Contiguous pieces of a curve of weights: rank k owns positions [begin[k], begin[k+1]).
/// load_k = (weight of piece k) / speed[k]; max_load is the largest.
struct CurveCut {
  std::vector<int> begin;  // p + 1 entries, begin[0] = 0, begin[p] = n
  double max_load = std::numeric_limits<double>::infinity();
  bool valid = false;  // false: the pieces ran out before the curve did
};

/// The greedy prefix cut: a new rank starts once the running sum has passed rank k's
/// share, total * (speed[0] + ... + speed[k-1]) / sum(speed). Always valid.
CurveCut greedy_prefix_cut(const std::vector<double>& weights,
                           const std::vector<double>& speed);

/// One rank's pass of Fig. 4 with threshold `max_load` (myMaxWeight): walking the curve,
/// the current rank takes a patch while that lowers |its load - the remaining average|
/// and keeps its load below the threshold; else the patch opens the next rank's piece.
/// Loads and averages are per unit speed. Zero weights: see sfc.cpp. Pre: weights >= 0,
/// speed > 0. give_up_at: stop (invalid) as soon as the result is sure to be invalid or
/// to reach it, for the simulated collective, where such a rank cannot win the minimum.
CurveCut threshold_cut(const std::vector<double>& weights,
                       const std::vector<double>& speed, double max_load,
                       double give_up_at = std::numeric_limits<double>::infinity());

/// Fig. 4 for p = speed.size() ranks: each round, rank r searches with threshold
/// avg + (best - avg) * r / p, the min-reduction (lowest rank on ties) gives the new
/// best, the winner sends its cut; stop when a round finds nothing below it. Starts, as
/// the paper does, from the whole load on one rank (total / the slowest speed). Returns
/// the greedy prefix cut instead where that is better, or no pass was ever valid (one
/// rank): never worse than either. `rounds`, when given, receives the number of rounds
/// run. `comm`: the ranks' communicator (null: all p simulated here); the result is the
/// same on every rank and for every communicator.
CurveCut distribute_curve(const std::vector<double>& weights,
                          const std::vector<double>& speed, int* rounds = nullptr,
                          const RankComm* comm = nullptr);

class Sfc : public Balancer {
 public:
  /// per_level: order and distribute each level on its own, as Uintah does (paper §4);
  /// false puts all levels on one curve.
  explicit Sfc(SfcCurve curve = SfcCurve::hilbert, bool per_level = false)
      : curve_(curve), per_level_(per_level) {}
  /// Reads balance.sfc.curve ("hilbert" | "morton", default hilbert) and
  /// balance.sfc.per_level (default false).
  static std::unique_ptr<Balancer> from_deck(const Deck& deck, const SplitRules& rules);

  std::string name() const override { return "sfc"; }
  /// Whole patches; rank k owns the k-th piece of the curve. Weights are the costs,
  /// loads cost / speed. Deterministic.
  Plan plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const override;

 private:
  SfcCurve curve_;
  bool per_level_;
};

}  // namespace pw
