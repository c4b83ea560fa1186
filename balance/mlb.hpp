// MLB, multilevel load balancing (Quinlan & Berndt, SIAM PP 1997): the patches in
// space-filling-curve order form a 1D load function, distributed by current owner, that
// the four phases of the paper balance on a Gray-code hypercube. Besides the owners, the
// plan holds the transfer schedule: at most ceil(log2 p) steps, one edge each.
#pragma once

#include <cstdint>

#include "balance/balancer.hpp"

namespace pw {

/// Morton (Z-order) key of a patch's centroid in the level-0 frame (box centroid /
/// refinement), quantized to 21 bits per axis over [lo, hi] (per axis, the range of all
/// centroids). Bits interleave x (least significant), y, z.
std::uint64_t morton_key(const PatchMeta& patch, const double lo[3], const double hi[3]);

/// The patches' indices in Morton order of their centroids; ties keep the input order.
std::vector<int> morton_order(const std::vector<PatchMeta>& patches);

/// Every patch's owner before balancing: its own when in [0, nranks); otherwise (new
/// patch, -1, or a rank that is gone) the owner of the nearest patch before it in curve
/// order that has one, else of the nearest after it; when no patch has an owner, the
/// k-th of n patches in curve order goes to rank k * nranks / n.
std::vector<int> mlb_initial_owners(const std::vector<PatchMeta>& patches, int nranks);

class Mlb : public Balancer {
 public:
  /// hops: plans ask for the data to follow the schedule hop by hop (Plan::hop_by_hop)
  /// rather than go straight to its final owner.
  explicit Mlb(bool hops = false) : hops_(hops) {}
  /// Reads balance.mlb.hops (bool, default false).
  static std::unique_ptr<Balancer> from_deck(const Deck& deck, const SplitRules& rules);

  std::string name() const override { return "mlb"; }
  /// The load function is the patches ordered by (initial owner, curve position), so
  /// each rank's piece is contiguous. Desired loads follow the ranks' speeds. Final
  /// parts are contiguous along it in rank order, and a rank's load is at most its
  /// desired load + the largest patch cost (each cut off by at most half a patch).
  /// plan.schedule: the hops by step (0 = coarsest edge), from initial owner
  /// (mlb_initial_owners) to plan.owner; a rank sends in at most ceil(log2 p) steps, to
  /// one partner per step (two when it also plays a virtual rank, p not a power of 2).
  /// Patches are never split. Deterministic. The phases run per hypercube position on
  /// ranks.comm (each rank plays its own position and a virtual one it hosts); the plan
  /// is the same on every rank and for every communicator.
  Plan plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const override;

 private:
  bool hops_ = false;
};

}  // namespace pw
