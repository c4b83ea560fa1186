#include "balance/knapsack.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <utility>

namespace pw {

namespace {

/// One swap (or move, when b < 0) of items between the heaviest rank hi and the lightest
/// lo that lowers max(load[hi], load[lo]) the most; false when none does.
bool best_swap(const std::vector<double>& cost, std::vector<int>& owner,
               std::vector<double>& load, const std::vector<double>& speed, int hi,
               int lo) {
  std::vector<int> on_hi, on_lo{-1};  // -1: move without a partner
  for (int i = 0; i < int(owner.size()); ++i) {
    if (owner[i] == hi) on_hi.push_back(i);
    if (owner[i] == lo) on_lo.push_back(i);
  }
  const double before = std::max(load[hi], load[lo]);
  double best = before;
  int best_a = -1, best_b = -1;
  for (int a : on_hi)
    for (int b : on_lo) {
      const double cb = b < 0 ? 0.0 : cost[b];
      const double new_hi = load[hi] + (cb - cost[a]) / speed[hi];
      const double new_lo = load[lo] + (cost[a] - cb) / speed[lo];
      const double worst = std::max(new_hi, new_lo);
      if (worst < best * (1 - 1e-12)) {
        best = worst;
        best_a = a;
        best_b = b;
      }
    }
  if (best_a < 0) return false;
  const double cb = best_b < 0 ? 0.0 : cost[best_b];
  load[hi] += (cb - cost[best_a]) / speed[hi];
  load[lo] += (cost[best_a] - cb) / speed[lo];
  owner[best_a] = lo;
  if (best_b >= 0) owner[best_b] = hi;
  return true;
}

}  // namespace

Plan Knapsack::plan(const std::vector<PatchMeta>& patches, const RankInfo& ranks) const {
  const int n = int(patches.size());
  const int p = ranks.nranks;
  std::vector<double> cost(n), load(p, 0.0);
  for (int i = 0; i < n; ++i)
    cost[i] = patches[i].cost;
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return cost[a] > cost[b]; });
  // Least loaded first; ties go to the lower rank.
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  for (int r = 0; r < p; ++r)
    heap.push({0.0, r});
  std::vector<int> owner(n, 0);
  for (int i : order) {
    const auto [l, r] = heap.top();
    heap.pop();
    owner[i] = r;
    load[r] = l + cost[i] / ranks.speed[r];
    heap.push({load[r], r});
  }
  for (int pass = 0; pass < max_passes_ && p > 1; ++pass) {
    const int hi = int(std::max_element(load.begin(), load.end()) - load.begin());
    const int lo = int(std::min_element(load.begin(), load.end()) - load.begin());
    if (!best_swap(cost, owner, load, ranks.speed, hi, lo)) break;
  }
  return whole_patches(patches, owner);
}

}  // namespace pw
