// The simulated communicator: every rank's part of a parallel balancer done in one
// process, with what the MPI collectives would give every rank. Lets an algorithm be
// written per rank, as in its paper, and run for all p ranks inside Balancer::plan, in
// the balance lab and in unit tests.
#pragma once

#include <vector>

#include "balance/rank_comm.hpp"

namespace pw {

/// The minimum of per_rank[r] over the simulated ranks r, and where it is.
RankMin allreduce_minloc(const std::vector<double>& per_rank);

class SimRankComm : public RankComm {
 public:
  bool plays(int) const override { return true; }
  /// Evaluates the ranks in order, each with the running minimum as its bound.
  RankMin allreduce_minloc(
      int nranks, const std::function<double(int, double)>& value_of) const override;
  std::vector<int> broadcast(
      int nranks, int root, const std::function<std::vector<int>()>& data) const override;
  std::vector<int> all_gather(
      int nranks, const std::function<std::vector<int>(int)>& data_of) const override;
  /// Every place is hosted here: the letters, sorted. A place with two letters breaks
  /// the precondition: std::logic_error.
  std::vector<Letter> exchange(int nranks, const std::function<int(int)>& host,
                               std::vector<Letter> out) const override;
};

}  // namespace pw
