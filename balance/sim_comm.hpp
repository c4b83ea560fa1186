// An in-process stand-in for the one collective of Uintah's curve distribution: the
// values of p simulated ranks go in, what MPI_Allreduce(MPI_MINLOC) would give every rank
// comes out. Lets an algorithm be written per rank, as in its paper, and run for all p
// ranks inside Balancer::plan, which must not communicate.
#pragma once

#include <vector>

namespace pw {

struct RankMin {
  double value;
  int rank;  // the lowest rank holding value (MINLOC's tie rule); -1 when no ranks
};

/// The minimum of per_rank[r] over the simulated ranks r, and where it is.
RankMin allreduce_minloc(const std::vector<double>& per_rank);

}  // namespace pw
