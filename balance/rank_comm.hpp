// The collectives that the parallel balancers (sfc's curve search, mlb's hypercube
// phases) are written against, per rank as in their papers. Two implementations: the
// simulated one (sim_comm.hpp) does the part of every rank in one process, for the lab
// and the unit tests; the MPI one (mpi_rank_comm.hpp) does this rank's part only and
// communicates. Both give every rank the same results, so a plan does not depend on which
// one computed it.
#pragma once

#include <functional>
#include <vector>

namespace pw {

struct RankMin {
  double value;
  int rank;  // the lowest rank holding value (MINLOC's tie rule); -1 when no ranks
};

/// A message between two places of an algorithm's own topology (hypercube positions,
/// say), each place hosted by a rank.
struct Letter {
  int from;
  int to;
  std::vector<double> body;
};

class RankComm {
 public:
  virtual ~RankComm() = default;

  /// Whether this process does the part of rank r (of the `nranks` the algorithm runs
  /// on): every r for the simulated communicator, only its own rank for MPI.
  virtual bool plays(int rank) const = 0;

  /// MPI_Allreduce(MPI_MINLOC) of value_of(r, bound) over the ranks r < nranks: the
  /// minimum and the lowest rank holding it. `bound` is the smallest value this process
  /// has seen in this reduction so far (+inf at first); value_of may return +inf for a
  /// value not below it, which cannot change the result.
  virtual RankMin allreduce_minloc(
      int nranks,
      const std::function<double(int rank, double bound)>& value_of) const = 0;

  /// MPI_Bcast: root's data() on every rank; data is called only by the process that
  /// plays root.
  virtual std::vector<int> broadcast(
      int nranks, int root, const std::function<std::vector<int>()>& data) const = 0;

  /// MPI_Allgatherv: data_of(r) of every rank r < nranks, concatenated in rank order;
  /// data_of is called for the ranks this process plays.
  virtual std::vector<int> all_gather(
      int nranks, const std::function<std::vector<int>(int rank)>& data_of) const = 0;

  /// One round of pairwise exchanges between places: `out` holds the letters of the
  /// places this process hosts (host(place) is its rank). Pre: pairwise, i.e. a place
  /// sends at most one letter, and only to a place that sends one back to it. Returns
  /// the letters addressed to this process's places, ordered by (to, from).
  virtual std::vector<Letter> exchange(int nranks, const std::function<int(int)>& host,
                                       std::vector<Letter> out) const = 0;
};

}  // namespace pw
