#include "balance/load_moves.hpp"

#include <algorithm>
#include <climits>

namespace pw {

RankLoads::RankLoads(const RankInfo& ranks)
    : speed_(size_t(ranks.nranks), 1.0), load_(size_t(ranks.nranks), 0.0) {
  if (ranks.speed.size() == speed_.size()) speed_ = ranks.speed;
  for (int r = 0; r < ranks.nranks; ++r) {
    total_speed_ += speed_[size_t(r)];
    order_.insert({0.0, r});
  }
}

void RankLoads::add(int r, double cost) {
  order_.erase({load_[size_t(r)], r});
  load_[size_t(r)] += cost / speed_[size_t(r)];
  total_cost_ += cost;
  order_.insert({load_[size_t(r)], r});
}

int RankLoads::max_rank() const {
  // The highest load is last; among equal loads the lowest rank comes first.
  return order_.lower_bound({order_.rbegin()->first, INT_MIN})->second;
}

int RankLoads::min_rank() const {
  return order_.begin()->second;
}

std::vector<int> starting_owners(const std::vector<PatchMeta>& patches,
                                 RankLoads& loads) {
  const int n = int(patches.size());
  std::vector<int> owner(size_t(n), -1);
  std::vector<int> fresh;
  for (int i = 0; i < n; ++i) {
    const int o = patches[size_t(i)].owner;
    if (o >= 0 && o < loads.nranks()) {
      owner[size_t(i)] = o;
      loads.add(o, patches[size_t(i)].cost);
    } else {
      fresh.push_back(i);
    }
  }
  std::stable_sort(fresh.begin(), fresh.end(), [&](int a, int b) {
    return patches[size_t(a)].cost > patches[size_t(b)].cost;
  });
  for (int i : fresh) {
    owner[size_t(i)] = loads.min_rank();
    loads.add(owner[size_t(i)], patches[size_t(i)].cost);
  }
  return owner;
}

}  // namespace pw
