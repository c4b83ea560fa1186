#include "balance/mlb_phases.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace pw::mlb {

int gray_inverse(int g) {
  int r = 0;
  for (; g != 0; g >>= 1)
    r ^= g;
  return r;
}

Hypercube Hypercube::make(int nranks) {
  Hypercube h;
  while ((1 << h.dims) < nranks)
    ++h.dims;
  const int size = 1 << h.dims;
  const int virtuals = size - nranks;
  h.rank_at.assign(size, 0);
  for (int v = 0; v < virtuals; ++v)
    h.rank_at[size - 1 - 2 * v] = -1;
  for (int q = 0, r = 0; q < size; ++q)
    if (h.rank_at[q] == 0) {
      h.rank_at[q] = r++;
      h.pos_of.push_back(q);
    }
  return h;
}

LoadTree accumulate(const std::vector<double>& leaf) {
  int dims = 0;
  while ((size_t(1) << dims) < leaf.size())
    ++dims;
  LoadTree tree(dims + 1);
  tree[dims] = leaf;
  for (int l = dims - 1; l >= 0; --l) {
    tree[l].resize(size_t(1) << l);
    for (size_t j = 0; j < tree[l].size(); ++j)
      tree[l][j] = tree[l + 1][2 * j] + tree[l + 1][2 * j + 1];
  }
  return tree;
}

LoadTree desired(const LoadTree& capacity, double total) {
  LoadTree tree(capacity.size());
  tree[0] = {total};
  for (size_t l = 1; l < capacity.size(); ++l) {
    tree[l].resize(capacity[l].size());
    for (size_t j = 0; j < tree[l - 1].size(); ++j) {
      const double parent = tree[l - 1][j];
      const double c0 = capacity[l][2 * j], c1 = capacity[l][2 * j + 1];
      // The left child takes its share; the right one the rest, so that sums are exact.
      const double left = c0 + c1 > 0 ? parent * (c0 / (c0 + c1)) : parent;
      tree[l][2 * j] = c1 > 0 ? left : parent;
      tree[l][2 * j + 1] = c1 > 0 ? parent - left : 0.0;
    }
  }
  return tree;
}

namespace {

using Stretch = std::pair<double, double>;  // [first, second) of the load function

/// The first position of the right half of pos's block of 2^(k+1) positions: the cut
/// that edge k balances lies just before it.
int middle(int pos, int k) {
  return (pos & ~((2 << k) - 1)) + (1 << k);
}

void merge(std::vector<Stretch>& v) {
  std::sort(v.begin(), v.end());
  std::vector<Stretch> out;
  for (const Stretch& s : v) {
    if (s.second <= s.first) continue;
    if (!out.empty() && s.first <= out.back().second)
      out.back().second = std::max(out.back().second, s.second);
    else
      out.push_back(s);
  }
  v = std::move(out);
}

double measure(const std::vector<Stretch>& v) {
  double m = 0;
  for (const Stretch& s : v)
    m += s.second - s.first;
  return m;
}

}  // namespace

DivisibleSchedule balance_divisible(const std::vector<double>& start,
                                    const std::vector<double>& target, int dims) {
  const int size = 1 << dims;
  std::vector<std::vector<Stretch>> held(size);
  for (int q = 0; q < size; ++q)
    held[q] = {{start[q], start[q + 1]}};
  DivisibleSchedule out;
  for (int s = 0; s < dims; ++s) {
    const int k = dims - 1 - s;
    std::vector<std::vector<Stretch>> incoming(size);
    out.send.emplace_back(size, 0.0);
    for (int q = 0; q < size; ++q) {
      const int mid = middle(q, k);
      const double cut = target[mid];
      const bool left = q < mid;
      std::vector<Stretch> keep, go;
      for (const auto& [a, b] : held[q]) {
        // Left positions give away what lies at or above the cut, right ones what lies
        // below it: never what they received along this edge.
        const Stretch lo{a, std::min(b, cut)}, hi{std::max(a, cut), b};
        (left ? keep : go).push_back(lo);
        (left ? go : keep).push_back(hi);
      }
      merge(keep);
      merge(go);
      out.send[s][q] = measure(go);
      held[q] = std::move(keep);
      const int to = edge_partner(q, k);
      incoming[to].insert(incoming[to].end(), go.begin(), go.end());
    }
    out.held.emplace_back(size, 0.0);
    for (int q = 0; q < size; ++q) {
      held[q].insert(held[q].end(), incoming[q].begin(), incoming[q].end());
      merge(held[q]);
      out.held[s][q] = measure(held[q]);
    }
  }
  return out;
}

IndivisibleSchedule balance_indivisible(const std::vector<double>& cost,
                                        const std::vector<int>& holder,
                                        const std::vector<double>& target,
                                        const DivisibleSchedule& divisible, int dims) {
  const int n = int(cost.size());
  const int size = 1 << dims;
  std::vector<double> prefix(n + 1, 0.0);
  for (int i = 0; i < n; ++i)
    prefix[i + 1] = prefix[i] + cost[i];
  // Cut b (between positions b-1 and b) at the item boundary nearest target[b]; ties go
  // to the lower boundary. Nearest rounding is monotone, so the parts stay contiguous,
  // and each cut is off by at most half an item: the loan the finer edges carry.
  std::vector<int> cut(size + 1, 0);
  cut[size] = n;
  for (int b = 1; b < size; ++b) {
    int j =
        int(std::lower_bound(prefix.begin(), prefix.end(), target[b]) - prefix.begin());
    if (j > n || (j > 0 && target[b] - prefix[j - 1] <= prefix[j] - target[b])) --j;
    cut[b] = std::max(j, cut[b - 1]);
  }
  IndivisibleSchedule out;
  out.final_pos.resize(n);
  for (int q = 0; q < size; ++q)
    for (int i = cut[q]; i < cut[q + 1]; ++i)
      out.final_pos[i] = q;
  std::vector<int> at = holder;
  for (int s = 0; s < dims; ++s) {
    const int k = dims - 1 - s;
    for (int i = 0; i < n; ++i)
      if (((at[i] ^ out.final_pos[i]) >> k & 1) != 0) {
        const int to = edge_partner(at[i], k);
        out.hops.push_back({s, at[i], to, i});
        at[i] = to;
      }
    std::vector<double> held(size, 0.0);
    for (int i = 0; i < n; ++i)
      held[at[i]] += cost[i];
    out.loan.emplace_back(size, 0.0);
    for (int q = 0; q < size; ++q)
      out.loan[s][q] = held[q] - divisible.held[s][q];
  }
  return out;
}

}  // namespace pw::mlb
