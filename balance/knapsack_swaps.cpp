#include "balance/knapsack_swaps.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace pw {

namespace {

/// The patches of one rank by cost: each distinct cost with its patch indices, ascending.
using RankItems = std::map<double, std::set<int>>;

/// A cost value of a rank with the lowest index holding it (-1: "no patch", cost 0).
struct Value {
  double cost;
  int index;
};

/// The distinct costs of a rank, ascending, each with its lowest patch index; with_none
/// adds "no patch" (cost 0, index -1, before any real patch of cost 0).
std::vector<Value> values(const RankItems& items, bool with_none) {
  std::vector<Value> v;
  v.reserve(items.size() + 1);
  bool none = !with_none;
  for (const auto& [c, idx] : items) {
    if (!none && c >= 0) {
      v.push_back({0.0, -1});
      none = true;
      if (c == 0) continue;  // index -1 comes before every real patch of cost 0
    }
    v.push_back({c, *idx.begin()});
  }
  if (!none) v.push_back({0.0, -1});
  return v;
}

struct Swap {
  double worst;  // max of the two loads afterwards
  int a = -1;    // patch leaving hi
  int b = -1;    // patch leaving lo, -1: none
  double cb = 0;
};

void move_item(RankItems& from, RankItems& to, double c, int i) {
  auto it = from.find(c);
  it->second.erase(i);
  if (it->second.empty()) from.erase(it);
  to[c].insert(i);
}

}  // namespace

void knapsack_swaps(const std::vector<double>& cost, const std::vector<double>& speed,
                    std::vector<int>& owner, std::vector<double>& load, int max_passes) {
  const int p = int(load.size());
  if (p < 2) return;
  // Patches per rank as listed, turned into RankItems the first time the rank is the
  // heaviest or the lightest: with many ranks a few passes touch a few ranks.
  std::vector<std::vector<int>> listed(static_cast<size_t>(p));
  for (size_t i = 0; i < cost.size(); ++i)
    listed[size_t(owner[i])].push_back(int(i));
  std::vector<RankItems> by_cost(static_cast<size_t>(p));
  std::vector<char> built(static_cast<size_t>(p), 0);
  auto items = [&](int r) -> RankItems& {
    RankItems& m = by_cost[size_t(r)];
    if (!built[size_t(r)]) {
      for (int i : listed[size_t(r)])
        m[cost[size_t(i)]].insert(m[cost[size_t(i)]].end(), i);
      built[size_t(r)] = 1;
    }
    return m;
  };
  for (int pass = 0; pass < max_passes; ++pass) {
    const int hi = int(std::max_element(load.begin(), load.end()) - load.begin());
    const int lo = int(std::min_element(load.begin(), load.end()) - load.begin());
    if (hi == lo) break;
    const double sh = speed[size_t(hi)], sl = speed[size_t(lo)];
    const double lh = load[size_t(hi)], ll = load[size_t(lo)];
    // Moving d = cost[a] - cost[b] from hi to lo gives max(lh - d / sh, ll + d / sl):
    // falling in d up to d_star, rising after. So for each cost of hi only the costs of
    // lo around cost[a] - d_star matter, and those move up as cost[a] does.
    const double d_star = (lh - ll) / (1 / sh + 1 / sl);
    const std::vector<Value> on_hi = values(items(hi), false);
    const std::vector<Value> on_lo = values(items(lo), true);
    // The plain loop over (a, b) in index order keeps a candidate only when it beats the
    // best so far by a relative 1e-12: among the candidates within that of the lowest,
    // the first in that order wins (ties in exact arithmetic that rounding tells apart).
    const double accept = std::max(lh, ll) * (1 - 1e-12);
    std::vector<Swap> found;
    double lowest = accept;
    size_t j = 0;  // first cost of lo at or above the target
    for (const Value& a : on_hi) {
      const double target = a.cost - d_star;
      while (j < on_lo.size() && on_lo[j].cost < target)
        ++j;
      // Two on each side of the target, so that its rounding cannot hide the best.
      const size_t first = j >= 2 ? j - 2 : 0, last = std::min(on_lo.size(), j + 2);
      for (size_t k = first; k < last; ++k) {
        const Value& b = on_lo[k];
        // The same arithmetic as the plain loop.
        const double worst =
            std::max(lh + (b.cost - a.cost) / sh, ll + (a.cost - b.cost) / sl);
        if (worst >= accept) continue;
        found.push_back({worst, a.index, b.index, b.cost});
        lowest = std::min(lowest, worst);
      }
    }
    Swap best{0};
    for (const Swap& c : found)
      if (c.worst * (1 - 1e-12) <= lowest &&
          (best.a < 0 || std::make_pair(c.a, c.b) < std::make_pair(best.a, best.b)))
        best = c;
    if (best.a < 0) break;
    const double ca = cost[size_t(best.a)];
    load[size_t(hi)] += (best.cb - ca) / sh;
    load[size_t(lo)] += (ca - best.cb) / sl;
    move_item(items(hi), items(lo), ca, best.a);
    owner[size_t(best.a)] = lo;
    if (best.b >= 0) {
      move_item(items(lo), items(hi), best.cb, best.b);
      owner[size_t(best.b)] = hi;
    }
  }
}

}  // namespace pw
