#include "balance/bin_pack.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace pw {

namespace {

/// The ranks as leaves of a binary tree, fastest first, each node holding the least load
/// and the greatest speed below it: load + cost / speed of a node is then a lower bound
/// on when any rank below it would finish an item, so a search for the earliest finish
/// skips most of the tree (all of it but one path when the speeds are equal).
class FinishTree {
 public:
  explicit FinishTree(const std::vector<double>& speed) {
    const int p = int(speed.size());
    while (leaves_ < p)
      leaves_ *= 2;
    std::vector<int> ranks(p);
    std::iota(ranks.begin(), ranks.end(), 0);
    std::stable_sort(ranks.begin(), ranks.end(),
                     [&](int a, int b) { return speed[a] > speed[b]; });
    const double inf = std::numeric_limits<double>::infinity();
    load_.assign(2 * leaves_, inf);  // padding leaves never win
    speed_.assign(2 * leaves_, 1.0);
    rank_.assign(2 * leaves_, std::numeric_limits<int>::max());
    for (int k = 0; k < p; ++k) {
      load_[leaves_ + k] = 0.0;
      speed_[leaves_ + k] = speed[ranks[k]];
      rank_[leaves_ + k] = ranks[k];
    }
    for (int n = leaves_ - 1; n >= 1; --n) {
      pull(n);
      speed_[n] = std::max(speed_[2 * n], speed_[2 * n + 1]);
      rank_[n] = std::min(rank_[2 * n], rank_[2 * n + 1]);
    }
  }

  /// The leaf of the rank that finishes `cost` first (ties: lower rank).
  int best(double cost) const {
    int leaf = 0;
    double finish = std::numeric_limits<double>::infinity();
    int stack[64 * 2];
    int top = 0;
    stack[top++] = 1;
    while (top > 0) {
      const int n = stack[--top];
      // rank_[n] is the least rank below n, so a tie with it cannot beat the best either.
      const double bound = this->bound(n, cost);
      if (bound > finish || (bound == finish && rank_[n] > rank_[leaf])) continue;
      if (n >= leaves_) {
        leaf = n;
        finish = bound;
        continue;
      }
      const bool left_first = bound_order(2 * n, 2 * n + 1, cost);
      stack[top++] = left_first ? 2 * n + 1 : 2 * n;
      stack[top++] = left_first ? 2 * n : 2 * n + 1;
    }
    return leaf;
  }

  int rank(int leaf) const { return rank_[leaf]; }
  double finish(int leaf, double cost) const { return bound(leaf, cost); }

  void set_load(int leaf, double load) {
    load_[leaf] = load;
    for (int n = leaf / 2; n >= 1; n /= 2)
      pull(n);
  }

 private:
  double bound(int n, double cost) const { return load_[n] + cost / speed_[n]; }
  /// True when node a should be searched before b (lower bound, then lower rank).
  bool bound_order(int a, int b, double cost) const {
    const double ba = bound(a, cost), bb = bound(b, cost);
    return ba < bb || (ba == bb && rank_[a] < rank_[b]);
  }
  void pull(int n) { load_[n] = std::min(load_[2 * n], load_[2 * n + 1]); }

  int leaves_ = 1;
  std::vector<double> load_, speed_;
  std::vector<int> rank_;
};

}  // namespace

std::vector<int> bin_pack(const std::vector<double>& cost,
                          const std::vector<double>& speed) {
  const int n = int(cost.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return cost[a] > cost[b]; });
  FinishTree tree(speed);
  std::vector<int> owner(n, 0);
  for (int i : order) {
    const int leaf = tree.best(cost[i]);
    tree.set_load(leaf, tree.finish(leaf, cost[i]));
    owner[i] = tree.rank(leaf);
  }
  return owner;
}

double estimated_load_balance(const std::vector<double>& cost,
                              const std::vector<int>& owner,
                              const std::vector<double>& speed) {
  std::vector<double> load(speed.size(), 0.0);
  for (size_t i = 0; i < cost.size(); ++i)
    load[owner[i]] += cost[i] / speed[owner[i]];
  const double total = std::accumulate(cost.begin(), cost.end(), 0.0);
  const double ideal = total / std::accumulate(speed.begin(), speed.end(), 0.0);
  const double worst = *std::max_element(load.begin(), load.end());
  return worst > 0 ? ideal / worst : 1.0;
}

}  // namespace pw
