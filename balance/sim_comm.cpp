#include "balance/sim_comm.hpp"

#include <limits>

namespace pw {

RankMin allreduce_minloc(const std::vector<double>& per_rank) {
  RankMin m{std::numeric_limits<double>::infinity(), -1};
  for (int r = 0; r < int(per_rank.size()); ++r)
    if (per_rank[r] < m.value || m.rank < 0) m = {per_rank[r], r};
  return m;
}

}  // namespace pw
