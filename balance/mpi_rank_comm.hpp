// The collectives of the parallel balancers on MPI: each rank does its own part and the
// results are reduced or exchanged over a communicator of exactly nranks ranks.
#pragma once

#include <mpi.h>

#include "balance/rank_comm.hpp"

namespace pw {

class MpiRankComm : public RankComm {
 public:
  /// Works on a duplicate of `comm` (collective), so that its messages never meet the
  /// caller's.
  explicit MpiRankComm(MPI_Comm comm);
  ~MpiRankComm() override;
  MpiRankComm(const MpiRankComm&) = delete;
  MpiRankComm& operator=(const MpiRankComm&) = delete;

  /// Pre (all collectives): nranks is the communicator's size; else std::logic_error.
  bool plays(int rank) const override { return rank == rank_; }
  RankMin allreduce_minloc(
      int nranks, const std::function<double(int, double)>& value_of) const override;
  std::vector<int> broadcast(
      int nranks, int root, const std::function<std::vector<int>()>& data) const override;
  std::vector<int> all_gather(
      int nranks, const std::function<std::vector<int>(int)>& data_of) const override;
  /// Non-blocking sends (tag: the receiving place), then a probed receive of each
  /// expected letter; letters between places of this rank stay local.
  std::vector<Letter> exchange(int nranks, const std::function<int(int)>& host,
                               std::vector<Letter> out) const override;

 private:
  void check(int nranks) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace pw
