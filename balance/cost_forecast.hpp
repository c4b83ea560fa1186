// Measured-cost forecasting per region (Luitjens et al., seed 004 §4.2.1): the domain of
// each level is cut into a fixed lattice of regions; a patch's measured time is spread
// evenly over its regions and each region's weight is smoothed exponentially, W <- a E +
// (1 - a) W with a = 2 / (T + 1). Patches change at every regrid; regions do not, so
// forecasts carry over.
#pragma once

#include <array>
#include <map>

#include "amr/box.hpp"

namespace pw {

class RegionForecast {
 public:
  /// region: the lattice spacing (cells of the patch's level; the blocking factor in the
  /// used directions, so that patches hold whole regions); window: T.
  RegionForecast(const IntVect& region, int window);

  double alpha() const { return alpha_; }
  /// A measured cost (per coarse step) of a patch of `level` covering `box`.
  void observe(int level, const Box& box, double cost);
  /// The forecast cost of a patch: the sum of its regions' weights; a region never
  /// observed starts at the average weight of its level's regions (of all regions when
  /// its level has none). Returns a negative value when nothing has been observed yet.
  double predict(int level, const Box& box) const;

 private:
  using Key = std::array<int, 4>;  // level, region index
  IntVect region_;
  double alpha_;
  std::map<Key, double> weight_;
  std::map<int, std::pair<double, long>> level_total_;  // sum of weights, regions
};

}  // namespace pw
