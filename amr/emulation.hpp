// Emulated heterogeneity (seed 001's distributed systems on one machine): some ranks
// compute slower, and messages between groups of ranks arrive later. Carried by the Comm,
// so that the kernels' loop and every CopyPlan see it; absent, nothing is slowed.
#pragma once

#include <mpi.h>

#include <vector>

namespace pw {

struct Emulation {
  std::vector<int> group;  // group (node) of each rank of the communicator
  double latency = 0;      // seconds added to an exchange that crosses groups
  double slowdown = 1;     // this rank's kernels take slowdown x their time

  bool crosses(int a, int b) const {
    return !group.empty() && group[size_t(a)] != group[size_t(b)];
  }
};

/// Busy-wait until MPI_Wtime() reaches t (sleeping is too coarse for microseconds).
inline void spin_until(double t) {
  while (MPI_Wtime() < t) {
  }
}

}  // namespace pw
