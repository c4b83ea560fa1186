// The balancer interface: a pure function of patch metadata and costs, never of field
// data. Every rank calls it with the same input and so computes the same plan.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "amr/box.hpp"
#include "amr/deck.hpp"

namespace pw {

class RankComm;

struct PatchMeta {
  Box box;
  int level = 0;
  int owner = 0;  // current owner (-1 for a patch that has just been made)
  double cost = 0;
  // Cells of this level per level-0 cell along an axis: box / refinement is the patch in
  // level-0 index space, common to all levels (for geometric balancers).
  int refinement = 1;
  // Owner of the next coarser level's patch under this one's centre, as the caller knows
  // it (-1: level 0, or not known). Lets a balancer keep children with their parents.
  int parent_owner = -1;
};

/// What the run has measured, for balancers that weigh the gain of a redistribution
/// against its cost (seed 001 §4.2-4.3). The app measures them; the lab takes them as
/// options. Every rank must hold the same values.
struct RunMeasurements {
  double step_seconds = 0;      // T(t): wall time of the last level-0 step
  double alpha = 0;             // latency of a message between groups, s
  double beta = 0;              // transfer time between groups, s per byte
  double overhead_seconds = 0;  // delta: the computational overhead of the last balancing
  double bytes_per_cell = 8;    // field data per cell, all components
  // When set, measures (alpha, beta) now, for a balancer that needs them; collective
  // over the run's ranks, so a balancer calls it on every rank or on none.
  std::function<std::pair<double, double>()> probe_network;
};

/// The relative rank speeds the balancers and their metrics take (the app's ranks.speed,
/// the lab's --speed): beyond, loads (cost / speed) and their sums overflow or underflow
/// (a speed of 1e-308 read "imbalance inf", 1e-320 NaN).
constexpr double kMinRankSpeed = 1e-6;
constexpr double kMaxRankSpeed = 1e6;
/// The range as the error messages write it.
constexpr const char* kRankSpeedRange = "[1e-6, 1e6]";

struct RankInfo {
  int nranks = 1;
  std::vector<double> speed;  // relative speed per rank (1 = nominal)
  std::vector<int> group;     // group (node) per rank
  RunMeasurements measured;
  // What the parallel balancers (sfc, mlb) communicate through; null: the simulated one
  // (every rank's part in this process). Else its ranks must be the nranks.
  const RankComm* comm = nullptr;
  static RankInfo uniform(int n) {
    return {n, std::vector<double>(n, 1.0), std::vector<int>(n, 0), {}};
  }
};

/// What a balancer that splits patches must respect: pieces are aligned to and multiples
/// of the blocking factor (in the patch's level index space) in the first `dim`
/// directions, and no side shorter than min_size. (Whole patches already satisfy both.)
struct SplitRules {
  int dim = 3;
  int blocking_factor = 1;
  int min_size = 1;
};

/// One hop of a transfer schedule: at `step`, patch (input index) moves from -> to.
struct Transfer {
  int step;
  int from;
  int to;
  int patch;
};

/// The outcome of balancing: the patches (possibly split) with an owner each. `source[i]`
/// is the index of the input patch that boxes[i] came from, so that data can follow.
struct Plan {
  std::vector<Box> boxes;
  std::vector<int> level;
  std::vector<int> owner;
  std::vector<int> source;
  std::vector<Transfer> schedule;  // MLB's hops, empty for other balancers
  std::string note;         // a one-line account of the balancer's decision, for the log
  bool hop_by_hop = false;  // data should follow the schedule's hops, not go straight
};

/// The plan that keeps every patch whole: patch i goes to owner[i].
Plan whole_patches(const std::vector<PatchMeta>& patches, const std::vector<int>& owner);

class Balancer {
 public:
  virtual ~Balancer() = default;
  virtual std::string name() const = 0;
  /// Post: every output box lies in one input box; the boxes of an input patch cover it
  /// exactly; owners are in [0, ranks.nranks).
  virtual Plan plan(const std::vector<PatchMeta>& patches,
                    const RankInfo& ranks) const = 0;
  /// True: plan() must see every level being balanced in one call, whatever
  /// balance.levels says (a balancer that keeps patch families together).
  virtual bool whole_hierarchy() const { return false; }
  /// True: plan() reads ranks.measured, which the app then measures (step and balancing
  /// times after every coarse step; the network through probe_network).
  virtual bool weighs_cost() const { return false; }
};

/// Makes a balancer; it reads its own parameters from the deck's [balance.<name>] table
/// (paper defaults when absent) and reports bad ones with deck.fail.
using BalancerFactory =
    std::function<std::unique_ptr<Balancer>(const Deck&, const SplitRules&)>;

/// The balancers known by name, for the deck's balance.method.
const std::map<std::string, BalancerFactory>& balancer_registry();

/// Read balance.method (default "round_robin") and make that balancer; an unknown name is
/// a UserError listing the known ones.
std::unique_ptr<Balancer> make_balancer(const Deck& deck, const SplitRules& rules);

}  // namespace pw
