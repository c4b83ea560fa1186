#include "balance/knapsack.hpp"

#include "balance/bin_pack.hpp"
#include "balance/knapsack_swaps.hpp"

#include <algorithm>
#include <queue>
#include <utility>

namespace pw {

Plan Knapsack::plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const {
  const int n = int(patches.size());
  const int p = ranks.nranks;
  std::vector<double> cost(n), load(p, 0.0);
  for (int i = 0; i < n; ++i)
    cost[i] = patches[i].cost;
  std::vector<int> owner;
  if (std::all_of(ranks.speed.begin(), ranks.speed.end(),
                  [&](double v) { return v == ranks.speed[0]; })) {
    // One speed: least loaded before taking an item is least loaded after, which is
    // bin_pack's rule (and its faster heap).
    owner = bin_pack(cost, ranks.speed);
    for (int i = 0; i < n; ++i)
      load[size_t(owner[size_t(i)])] += cost[size_t(i)] / ranks.speed[0];
  } else {
    // Least loaded first; ties go to the lower rank.
    using Entry = std::pair<double, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    for (int r = 0; r < p; ++r)
      heap.push({0.0, r});
    owner.assign(size_t(n), 0);
    for (int i : largest_first(cost)) {
      const auto [l, r] = heap.top();
      heap.pop();
      owner[size_t(i)] = r;
      load[size_t(r)] = l + cost[size_t(i)] / ranks.speed[size_t(r)];
      heap.push({load[size_t(r)], r});
    }
  }
  knapsack_swaps(cost, ranks.speed, owner, load, max_passes_);
  return whole_patches(patches, owner);
}

}  // namespace pw
