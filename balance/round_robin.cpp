#include "balance/round_robin.hpp"

namespace pw {

Plan RoundRobin::plan(const std::vector<PatchMeta>& patches,
                      const RankInfo& ranks) const {
  std::vector<int> owner(patches.size());
  for (size_t i = 0; i < patches.size(); ++i)
    owner[i] = int(i % size_t(ranks.nranks));
  return whole_patches(patches, owner);
}

}  // namespace pw
