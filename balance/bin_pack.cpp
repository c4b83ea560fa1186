#include "balance/bin_pack.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <utility>

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
    uniform_ =
        std::all_of(speed.begin(), speed.end(), [&](double s) { return s == speed[0]; });
    uniform_speed_ = speed[0];
    for (int n = leaves_ - 1; n >= 1; --n) {
      pull(n);
      speed_[n] = std::max(speed_[2 * n], speed_[2 * n + 1]);
      rank_[n] = std::min(rank_[2 * n], rank_[2 * n + 1]);
    }
  }

  /// The leaf of the rank that finishes `cost` first (ties: lower rank).
  int best(double cost) const {
    if (uniform_) {
      // Then a node's bound is the finish of its least loaded leaf, and the ranks run
      // left to right: go down to the lower bound, left on ties.
      const double time = cost / uniform_speed_;
      // Two levels at a time: the leftmost of the four grandchildren with the lowest
      // bound, which is where the two steps lead; their loads are read together.
      int n = 1;
      while (4 * n < 2 * leaves_) {  // n is at least two levels above the leaves
        const double* g = &load_[4 * n];
        const double f0 = g[0] + time, f1 = g[1] + time, f2 = g[2] + time,
                     f3 = g[3] + time;
        const bool c01 = f1 < f0, c23 = f3 < f2;
        const double v01 = c01 ? f1 : f0, v23 = c23 ? f3 : f2;
        n = 4 * n + (v23 < v01 ? 2 + int(c23) : int(c01));
      }
      if (n < leaves_) n = 2 * n + int(load_[2 * n + 1] + time < load_[2 * n] + time);
      return n;
    }
    return best_with([&](int n) { return cost / speed_[n]; });
  }

  int rank(int leaf) const { return rank_[leaf]; }
  double finish(int leaf, double cost) const { return load_[leaf] + cost / speed_[leaf]; }

  void set_load(int leaf, double load) {
    // pull() up the path, the new minimum kept in a register rather than reloaded.
    int c = leaf;
    double v = load;
    load_[c] = v;
    while (c > 1) {
      const double other = load_[c ^ 1];
      v = (c & 1) ? std::min(other, v) : std::min(v, other);
      c /= 2;
      load_[c] = v;
    }
  }

 private:
  /// best() with time(n) = cost / speed_[n].
  template <class Time>
  int best_with(Time time) const {
    int leaf = 0;
    double finish = std::numeric_limits<double>::infinity();
    int stack[64 * 2];
    int top = 0;
    stack[top++] = 1;
    while (top > 0) {
      const int n = stack[--top];
      // rank_[n] is the least rank below n, so a tie with it cannot beat the best either.
      const double bound = load_[n] + time(n);
      if (bound > finish || (bound == finish && rank_[n] > rank_[leaf])) continue;
      if (n >= leaves_) {
        leaf = n;
        finish = bound;
        continue;
      }
      // The child with the lower bound (then lower rank) is searched first.
      const int a = 2 * n, b = 2 * n + 1;
      const double ba = load_[a] + time(a), bb = load_[b] + time(b);
      const bool left_first = ba < bb || (ba == bb && rank_[a] < rank_[b]);
      stack[top++] = left_first ? 2 * n + 1 : 2 * n;
      stack[top++] = left_first ? 2 * n : 2 * n + 1;
    }
    return leaf;
  }

  void pull(int n) { load_[n] = std::min(load_[2 * n], load_[2 * n + 1]); }

  int leaves_ = 1;
  bool uniform_ = false;        // all ranks (not the padding) have the same speed,
  double uniform_speed_ = 1.0;  // this one
  std::vector<double> load_, speed_;
  std::vector<int> rank_;
};

}  // namespace

std::vector<int> bin_pack(const std::vector<double>& cost,
                          const std::vector<double>& speed) {
  const int n = int(cost.size());
  const std::vector<int> order = largest_first(cost);
  std::vector<double> sorted(n);  // gathered apart: the loop below is a chain of loads
  for (int k = 0; k < n; ++k)
    sorted[k] = cost[order[k]];
  FinishTree tree(speed);
  std::vector<int> owner(n, 0);
  for (int k = 0; k < n; ++k) {
    const int leaf = tree.best(sorted[k]);
    tree.set_load(leaf, tree.finish(leaf, sorted[k]));
    owner[order[k]] = tree.rank(leaf);
  }
  return owner;
}

std::vector<int> largest_first(const std::vector<double>& cost) {
  // Keys that sort as the costs do, descending: the bits of a double read as an integer
  // grow with it once the sign is folded in (-0 counts as +0, as it compares equal).
  struct Item {
    std::uint64_t key;
    int index;
  };
  const std::size_t n = cost.size();
  std::vector<Item> v(n), tmp(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double c = cost[i] == 0 ? 0.0 : cost[i];
    std::uint64_t u;
    std::memcpy(&u, &c, sizeof u);
    u = (u >> 63) ? ~u : u | (std::uint64_t(1) << 63);
    v[i] = {~u, int(i)};
  }
  // Least significant byte first, each pass stable; bytes all keys share are skipped.
  std::vector<std::array<std::size_t, 256>> count(8);
  for (auto& c : count)
    c.fill(0);
  for (const Item& e : v)
    for (int b = 0; b < 8; ++b)
      ++count[b][(e.key >> (8 * b)) & 0xFF];
  for (int b = 0; b < 8; ++b) {
    std::array<std::size_t, 256>& c = count[b];
    if (std::find(c.begin(), c.end(), n) != c.end()) continue;
    std::size_t sum = 0;
    for (std::size_t& x : c)
      sum += std::exchange(x, sum);
    for (const Item& e : v)
      tmp[c[(e.key >> (8 * b)) & 0xFF]++] = e;
    v.swap(tmp);
  }
  std::vector<int> order(n);
  for (std::size_t i = 0; i < n; ++i)
    order[i] = v[i].index;
  return order;
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
