#include "balance/mpi_rank_comm.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace pw {

MpiRankComm::MpiRankComm(MPI_Comm comm) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiRankComm::~MpiRankComm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&comm_);
}

void MpiRankComm::check(int nranks) const {
  if (nranks != size_)
    throw std::logic_error("MpiRankComm: a balancer ran for " + std::to_string(nranks) +
                           " ranks on a communicator of " + std::to_string(size_));
}

RankMin MpiRankComm::allreduce_minloc(
    int nranks, const std::function<double(int, double)>& value_of) const {
  check(nranks);
  struct {
    double value;
    int rank;
  } in{value_of(rank_, std::numeric_limits<double>::infinity()), rank_}, out{};
  MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm_);
  return {out.value, out.rank};
}

std::vector<int> MpiRankComm::broadcast(
    int nranks, int root, const std::function<std::vector<int>()>& data) const {
  check(nranks);
  std::vector<int> v;
  if (rank_ == root) v = data();
  int n = int(v.size());
  MPI_Bcast(&n, 1, MPI_INT, root, comm_);
  v.resize(size_t(n));
  MPI_Bcast(v.data(), n, MPI_INT, root, comm_);
  return v;
}

std::vector<int> MpiRankComm::all_gather(
    int nranks, const std::function<std::vector<int>(int)>& data_of) const {
  check(nranks);
  const std::vector<int> mine = data_of(rank_);
  const int n = int(mine.size());
  std::vector<int> counts(static_cast<size_t>(size_), 0);
  std::vector<int> displs(static_cast<size_t>(size_), 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
  for (int r = 1; r < size_; ++r)
    displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<int> all(size_t(displs.back() + counts.back()));
  MPI_Allgatherv(mine.data(), n, MPI_INT, all.data(), counts.data(), displs.data(),
                 MPI_INT, comm_);
  return all;
}

std::vector<Letter> MpiRankComm::exchange(int nranks, const std::function<int(int)>& host,
                                          std::vector<Letter> out) const {
  check(nranks);
  std::vector<Letter> in;
  std::vector<MPI_Request> sends;
  sends.reserve(out.size());
  for (const Letter& l : out) {
    if (host(l.to) == rank_) {
      in.push_back(l);
      continue;
    }
    sends.emplace_back();
    MPI_Isend(l.body.data(), int(l.body.size()), MPI_DOUBLE, host(l.to), l.to, comm_,
              &sends.back());
  }
  for (const Letter& l : out) {
    const int src = host(l.to);
    if (src == rank_) continue;
    // The partner's letter back to l.from, whatever its length.
    MPI_Status status;
    MPI_Probe(src, l.from, comm_, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_DOUBLE, &count);
    Letter back{l.to, l.from, std::vector<double>(size_t(count))};
    MPI_Recv(back.body.data(), count, MPI_DOUBLE, src, l.from, comm_, MPI_STATUS_IGNORE);
    in.push_back(std::move(back));
  }
  MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  std::sort(in.begin(), in.end(), [](const Letter& a, const Letter& b) {
    return std::make_pair(a.to, a.from) < std::make_pair(b.to, b.from);
  });
  return in;
}

}  // namespace pw
