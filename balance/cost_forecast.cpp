#include "balance/cost_forecast.hpp"

namespace pw {

RegionForecast::RegionForecast(const IntVect& region, int window)
    : region_(region), alpha_(2.0 / (window + 1.0)) {}

void RegionForecast::observe(int level, const Box& box, double cost) {
  const Box regions = coarsen(box, region_);
  const double each = cost / double(regions.num_cells());
  for (int k = regions.lo[2]; k <= regions.hi[2]; ++k)
    for (int j = regions.lo[1]; j <= regions.hi[1]; ++j)
      for (int i = regions.lo[0]; i <= regions.hi[0]; ++i) {
        const auto [it, fresh] = weight_.try_emplace(Key{level, i, j, k}, each);
        auto& [sum, count] = level_total_[level];
        if (fresh) {
          sum += each;
          ++count;
        } else {
          const double next = alpha_ * each + (1 - alpha_) * it->second;
          sum += next - it->second;
          it->second = next;
        }
      }
}

double RegionForecast::predict(int level, const Box& box) const {
  if (weight_.empty()) return -1.0;
  // Regions not seen yet start at the average of their level, else of all regions.
  double all_sum = 0;
  long all_n = 0;
  for (const auto& [l, total] : level_total_) {
    all_sum += total.first;
    all_n += total.second;
  }
  const auto mine = level_total_.find(level);
  const double fallback = mine != level_total_.end()
                              ? mine->second.first / double(mine->second.second)
                              : all_sum / double(all_n);
  const Box regions = coarsen(box, region_);
  double cost = 0;
  for (int k = regions.lo[2]; k <= regions.hi[2]; ++k)
    for (int j = regions.lo[1]; j <= regions.hi[1]; ++j)
      for (int i = regions.lo[0]; i <= regions.hi[0]; ++i) {
        const auto it = weight_.find(Key{level, i, j, k});
        cost += it != weight_.end() ? it->second : fallback;
      }
  return cost;
}

}  // namespace pw
