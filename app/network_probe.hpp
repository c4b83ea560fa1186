// Seed 001 §4.2: "the scheme sends two messages between groups, and calculates the
// network performance parameters alpha and beta" of T_comm = alpha + beta * L.
#pragma once

#include <vector>

#include "amr/comm.hpp"

namespace pw {

struct NetworkModel {
  double alpha = 0;  // s
  double beta = 0;   // s per byte
};

/// Times a small and a large message (each a ping-pong) between rank 0 and
/// the lowest rank of another group, honouring the Comm's emulated latency, and gives
/// every rank the same alpha and beta (zero when all ranks are in one group).
/// Collective.
NetworkModel probe_network(const Comm& comm, const std::vector<int>& group);

}  // namespace pw
