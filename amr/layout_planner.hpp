// The seam between regridding (amr/) and balancing (balance/): after every regrid the
// hierarchy asks its planner who owns each patch (and, for balancers that split, which
// boxes to use), then moves the data itself.
#pragma once

#include <vector>

#include "amr/layout.hpp"

namespace pw {

/// One hop of a patch on its way to its new owner: at `step`, patch `patch` of level
/// `level` (an index into the layouts plan() returned) moves from rank `from` to `to`.
struct LayoutHop {
  int step;
  int level;
  int patch;
  int from;
  int to;
};

class LayoutPlanner {
 public:
  virtual ~LayoutPlanner() = default;
  /// proposed[l]: level l's boxes with their current owners (-1 for a patch just made).
  /// Levels below `first_free` are in the middle of a step and must keep their layout
  /// (they still count as load). Returns every level's layout; the boxes of a level must
  /// cover the same cells as the proposed ones. Called with the same input on every rank;
  /// must return the same answer.
  virtual std::vector<LevelLayout> plan(const std::vector<LevelLayout>& proposed,
                                        int first_free) = 0;
  /// Owners for levels[level], whose boxes a regrid has just made (current owners where a
  /// box is unchanged, -1 where it is new; the levels below as they are), asked before
  /// the hierarchy fills the level so that its data is made where the next plan() will
  /// keep it, not moved there afterwards. Keeps the boxes; is not a balancing step.
  /// Called with the same input on every rank; must return the same answer. Empty (the
  /// default): no preference, and the new boxes go round robin.
  virtual std::vector<int> place(const std::vector<LevelLayout>& /*levels*/,
                                 int /*level*/) {
    return {};
  }
  /// The route of the last plan()'s data, for planners whose patches travel rank to rank
  /// (MLB's hypercube): the hops by step; a patch with hops starts at its first hop's
  /// `from`. Empty (the default, and for every patch without hops): straight to the new
  /// owner. Same on every rank.
  virtual std::vector<LayoutHop> hops() const { return {}; }
  /// Measured wall seconds per coarse step of every patch of the current layouts (the
  /// same on every rank), handed over before each regrid, for cost models that learn from
  /// them.
  virtual void observe(const std::vector<LevelLayout>& layouts,
                       const std::vector<std::vector<double>>& seconds) = 0;
};

}  // namespace pw
