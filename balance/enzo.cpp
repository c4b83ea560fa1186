#include "balance/enzo.hpp"

#include <set>

namespace pw {

TracedPlan Enzo::trace(const std::vector<PatchMeta>& patches,
                       const RankInfo& ranks) const {
  const int n = int(patches.size());
  RankLoads loads(ranks);
  std::vector<int> owner = starting_owners(patches, loads);
  // Grids of each rank in index order: Fig. 3 takes the first suitable grid of the list.
  std::vector<std::set<int>> grids(size_t(ranks.nranks));
  for (int i = 0; i < n; ++i)
    grids[size_t(owner[size_t(i)])].insert(i);

  TracedPlan out;
  // Each move lowers sum(cost_r^2 / speed_r), so the loop ends; the cap only guards
  // against round-off keeping it alive.
  const long max_moves = 64L * (n + ranks.nranks);
  while (out.rounds < max_moves) {
    const int hi = loads.max_rank(), lo = loads.min_rank();
    const double max = loads.load(hi), min = loads.load(lo);
    if (hi == lo || !(max > threshold_ * min)) break;
    // Moving cost c keeps the receiver below the sender iff
    // c (1/s_hi + 1/s_lo) < max - min; for equal speeds, c < (max - min) / 2.
    const double span = 1.0 / loads.speed(hi) + 1.0 / loads.speed(lo);
    int pick = -1;
    // For equal speeds a grid too large to move holds over (max - min)/2 > max (1 -
    // 1/t)/2 (t the threshold), so the sender has fewer than 2t/(t - 1) of them: the scan
    // is O(1) per move, not O(grids). Grids of zero cost would move nothing, so they
    // stay.
    for (int i : grids[size_t(hi)]) {
      const double c = patches[size_t(i)].cost;
      if (c > 0 && c * span < max - min) {
        pick = i;
        break;
      }
    }
    if (pick < 0) break;
    const double c = patches[size_t(pick)].cost;
    grids[size_t(hi)].erase(pick);
    grids[size_t(lo)].insert(pick);
    owner[size_t(pick)] = lo;
    loads.add(hi, -c);
    loads.add(lo, c);
    ++out.rounds;
    out.moves.push_back({out.rounds, pick, hi, lo, c, false});
  }
  for (int i = 0; i < n; ++i) {
    out.plan.boxes.push_back(patches[size_t(i)].box);
    out.plan.level.push_back(patches[size_t(i)].level);
    out.plan.owner.push_back(owner[size_t(i)]);
    out.plan.source.push_back(i);
  }
  return out;
}

std::unique_ptr<Balancer> make_enzo(const Deck& deck, const SplitRules&) {
  const std::string key = "balance.enzo.threshold";
  const double threshold = deck.get<double>(key, 1.5);
  if (!(threshold >= 1.0))
    deck.fail(key, "expected a MaxLoad/MinLoad ratio >= 1, got " + to_toml(threshold));
  return std::make_unique<Enzo>(threshold);
}

}  // namespace pw
