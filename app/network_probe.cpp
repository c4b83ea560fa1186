#include "app/network_probe.hpp"

#include <algorithm>

namespace pw {

namespace {

/// One-way time of a message of n doubles between `me` and `peer`: a ping-pong, halved,
/// best of `repeats`. Emulated latency is added to each message on arrival.
double one_way(const Comm& comm, int peer, bool first, std::vector<double>& buf,
               int repeats) {
  const Emulation* e = comm.emulation();
  const double latency = e && e->crosses(comm.rank(), peer) ? e->latency : 0.0;
  const int n = int(buf.size());
  double best = 1e300;
  for (int k = 0; k < repeats; ++k) {
    const double start = MPI_Wtime();
    for (int leg = 0; leg < 2; ++leg) {
      if ((leg == 0) == first) {
        MPI_Send(buf.data(), n, MPI_DOUBLE, peer, 11, comm.raw());
      } else {
        MPI_Recv(buf.data(), n, MPI_DOUBLE, peer, 11, comm.raw(), MPI_STATUS_IGNORE);
        spin_until(MPI_Wtime() + latency);
      }
    }
    best = std::min(best, (MPI_Wtime() - start) / 2);
  }
  return best;
}

}  // namespace

NetworkModel probe_network(const Comm& comm, const std::vector<int>& group) {
  int peer = -1;
  for (int r = 1; r < comm.size() && peer < 0; ++r)
    if (group[size_t(r)] != group[0]) peer = r;
  double model[2] = {0, 0};
  if (peer < 0) return {};
  if (comm.rank() == 0 || comm.rank() == peer) {
    const int other = comm.rank() == 0 ? peer : 0;
    const bool first = comm.rank() == 0;
    const int small = 1, large = 1 << 17;  // 8 B and 1 MiB
    std::vector<double> a(small, 0.0), b(large, 0.0);
    // The paper's two messages, each timed by a ping-pong.
    const double ts = one_way(comm, other, first, a, 1);
    const double tl = one_way(comm, other, first, b, 1);
    const double bytes_s = 8.0 * small, bytes_l = 8.0 * large;
    model[1] = std::max(0.0, (tl - ts) / (bytes_l - bytes_s));
    model[0] = std::max(0.0, ts - model[1] * bytes_s);
  }
  MPI_Bcast(model, 2, MPI_DOUBLE, 0, comm.raw());
  return {model[0], model[1]};
}

}  // namespace pw
