// Bookkeeping shared by the incremental balancers that move work one grid at a time from
// the most to the least loaded rank (enzo, lan): ordered rank loads, the placement of new
// patches, and the log of the moves made.
#pragma once

#include <set>
#include <utility>
#include <vector>

#include "balance/balancer.hpp"

namespace pw {

/// Loads of the ranks (cost / speed, so a rank twice as fast carries twice the cost for
/// the same load), kept ordered so that the most and the least loaded rank are found in
/// O(log p). Ties go to the lower rank, which keeps the balancers deterministic.
class RankLoads {
 public:
  /// All loads zero. A missing speed list counts as all ranks at speed 1.
  explicit RankLoads(const RankInfo& ranks);
  int nranks() const { return int(load_.size()); }
  double speed(int r) const { return speed_[size_t(r)]; }
  double load(int r) const { return load_[size_t(r)]; }
  /// Add `cost` (negative to take it away) to rank r.
  void add(int r, double cost);
  int max_rank() const;
  int min_rank() const;
  double max_load() const { return load(max_rank()); }
  double min_load() const { return load(min_rank()); }
  /// The load of every rank in a perfect balance: total cost / total speed.
  double avg_load() const { return total_cost_ / total_speed_; }

 private:
  std::vector<double> speed_, load_;
  double total_cost_ = 0, total_speed_ = 0;
  std::set<std::pair<double, int>> order_;  // (load, rank)
};

/// The owner each patch starts from, with its cost added to `loads`. Patches keep their
/// current owner; new ones (owner outside [0, nranks), e.g. -1) go largest cost first to
/// the least loaded rank, so an incremental scheme starts from a sensible state.
std::vector<int> starting_owners(const std::vector<PatchMeta>& patches, RankLoads& loads);

/// One step of an incremental balancer, for tests and diagnostics.
struct LoadMove {
  int round = 0;   // 1-based iteration of the balancer's outer loop
  int source = 0;  // input patch the moved work belongs to
  int from = 0, to = 0;
  double cost = 0;     // cost moved
  bool split = false;  // a piece cut off the grid rather than the whole grid
};

/// A plan with the steps that made it.
struct TracedPlan {
  Plan plan;
  std::vector<LoadMove> moves;
  int rounds = 0;
};

}  // namespace pw
