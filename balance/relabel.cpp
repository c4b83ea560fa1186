#include "balance/relabel.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace pw {

void keep_data_in_place(Plan& plan, const std::vector<PatchMeta>& patches,
                        const RankInfo& ranks) {
  const int p = ranks.nranks;
  for (int r = 1; r < p; ++r)
    if (ranks.speed[r] != ranks.speed[0] || ranks.group[r] != ranks.group[0]) return;
  std::map<std::pair<int, int>, double> kept;  // (bin, current owner) -> cost
  for (size_t i = 0; i < plan.owner.size(); ++i) {
    const int now = patches[plan.source[i]].owner;
    if (now >= 0 && now < p) {
      const Box& b = plan.boxes[i];
      kept[{plan.owner[i], now}] += patches[plan.source[i]].cost * double(b.num_cells()) /
                                    double(patches[plan.source[i]].box.num_cells());
    }
  }
  std::vector<std::tuple<double, int, int>> pairs;  // most cost first, then lowest ranks
  for (const auto& [key, cost] : kept)
    pairs.emplace_back(-cost, key.first, key.second);
  std::sort(pairs.begin(), pairs.end());
  std::vector<int> rank_of(p, -1), bin_of(p, -1);
  for (const auto& [c, bin, rank] : pairs)
    if (rank_of[bin] < 0 && bin_of[rank] < 0) {
      rank_of[bin] = rank;
      bin_of[rank] = bin;
    }
  int next = 0;
  for (int bin = 0; bin < p; ++bin) {
    if (rank_of[bin] >= 0) continue;
    while (bin_of[next] >= 0)
      ++next;
    rank_of[bin] = next;
    bin_of[next] = bin;
  }
  for (int& o : plan.owner)
    o = rank_of[o];
}

}  // namespace pw
