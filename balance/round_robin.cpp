#include "balance/round_robin.hpp"

namespace pw {

Plan RoundRobin::plan(const std::vector<PatchMeta>& patches,
                      const RankInfo& ranks) const {
  Plan p;
  for (size_t i = 0; i < patches.size(); ++i) {
    p.boxes.push_back(patches[i].box);
    p.level.push_back(patches[i].level);
    p.owner.push_back(int(i % size_t(ranks.nranks)));
    p.source.push_back(int(i));
  }
  return p;
}

}  // namespace pw
