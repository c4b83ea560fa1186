#include "amr/comm.hpp"

#include <algorithm>

namespace pw {

Comm::Comm(MPI_Comm c) : comm_(c), device_buffers_(PATCHWORK_GPU_AWARE_MPI) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

double Comm::min(double x) const {
  double r = x;
  MPI_Allreduce(&x, &r, 1, MPI_DOUBLE, MPI_MIN, comm_);
  return r;
}

double Comm::max(double x) const {
  double r = x;
  MPI_Allreduce(&x, &r, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return r;
}

double Comm::sum(double x) const {
  double r = x;
  MPI_Allreduce(&x, &r, 1, MPI_DOUBLE, MPI_SUM, comm_);
  return r;
}

long Comm::sum(long x) const {
  long r = x;
  MPI_Allreduce(&x, &r, 1, MPI_LONG, MPI_SUM, comm_);
  return r;
}

std::uint64_t Comm::sum(std::uint64_t x) const {
  std::uint64_t r = x;
  MPI_Allreduce(&x, &r, 1, MPI_UINT64_T, MPI_SUM, comm_);
  return r;
}

std::vector<double> Comm::sum(const std::vector<double>& x) const {
  std::vector<double> r(x.size());
  MPI_Allreduce(x.data(), r.data(), int(x.size()), MPI_DOUBLE, MPI_SUM, comm_);
  return r;
}

std::vector<int> Comm::all_gather(const std::vector<int>& mine) const {
  int n = int(mine.size());
  std::vector<int> counts(size_), displs(size_, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
  for (int r = 1; r < size_; ++r)
    displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<int> all(size_t(displs[size_ - 1] + counts[size_ - 1]));
  MPI_Allgatherv(mine.data(), n, MPI_INT, all.data(), counts.data(), displs.data(),
                 MPI_INT, comm_);
  return all;
}

std::string Comm::broadcast(const std::string& text, int root) const {
  long n = long(text.size());
  MPI_Bcast(&n, 1, MPI_LONG, root, comm_);
  std::string out = rank_ == root ? text : std::string(size_t(n), '\0');
  // In pieces below INT_MAX bytes, the count MPI takes.
  for (long at = 0; at < n; at += 1L << 30) {
    const int count = int(std::min(n - at, 1L << 30));
    MPI_Bcast(out.data() + at, count, MPI_CHAR, root, comm_);
  }
  return out;
}

void Comm::barrier() const {
  MPI_Barrier(comm_);
}

}  // namespace pw
