#include "balance/knapsack.hpp"

#include "balance/bin_pack.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <utility>

namespace pw {

namespace {

/// Move patch i from one rank's list to another's, keeping both ascending.
void move_item(std::vector<int>& from, std::vector<int>& to, int i) {
  from.erase(std::lower_bound(from.begin(), from.end(), i));
  to.insert(std::lower_bound(to.begin(), to.end(), i), i);
}

/// One swap (or move, when b < 0) of items between the heaviest rank hi and the lightest
/// lo that lowers max(load[hi], load[lo]) the most; false when none does. items[r]: the
/// patches on rank r, ascending (the order in which ties are broken).
bool best_swap(const std::vector<double>& cost, std::vector<std::vector<int>>& items,
               std::vector<double>& load, const std::vector<double>& speed, int hi,
               int lo) {
  const std::vector<int>& on_hi = items[size_t(hi)];
  const std::vector<int>& on_lo = items[size_t(lo)];
  const double before = std::max(load[hi], load[lo]);
  double best = before;
  int best_a = -1, best_b = -1;
  for (int a : on_hi)
    for (size_t k = 0; k <= on_lo.size(); ++k) {
      const int b = k == 0 ? -1 : on_lo[k - 1];  // -1 first: a move without a partner
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
  move_item(items[size_t(hi)], items[size_t(lo)], best_a);
  if (best_b >= 0) move_item(items[size_t(lo)], items[size_t(hi)], best_b);
  return true;
}

}  // namespace

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
  std::vector<std::vector<int>> items(static_cast<size_t>(p));
  for (int i = 0; i < n; ++i)
    items[size_t(owner[i])].push_back(i);
  for (int pass = 0; pass < max_passes_ && p > 1; ++pass) {
    const int hi = int(std::max_element(load.begin(), load.end()) - load.begin());
    const int lo = int(std::min_element(load.begin(), load.end()) - load.begin());
    if (!best_swap(cost, items, load, ranks.speed, hi, lo)) break;
  }
  for (int r = 0; r < p; ++r)
    for (int i : items[size_t(r)])
      owner[size_t(i)] = r;
  return whole_patches(patches, owner);
}

}  // namespace pw
