// The deck's [ranks] section: groups of ranks (nodes, machines) with speed weights
// (seed 001) for the balancers, and emulated heterogeneity so that a distributed system
// can be studied on one machine.
#pragma once

#include <memory>

#include "amr/deck.hpp"
#include "amr/emulation.hpp"
#include "balance/balancer.hpp"

namespace pw {

struct RankSetup {
  RankInfo ranks;  // groups and speeds as the balancers see them
  // This rank's emulation; null when nothing is emulated.
  std::shared_ptr<const Emulation> emulation;
};

/// Reads ranks.group_size (consecutive ranks per group) or ranks.groups (a group id >= 0
/// per rank), ranks.speed (a weight in [1e-6, 1e6] per rank; default 1, or 1/slowdown on
/// slowed ranks), ranks.slow (ranks to slow down, each once), ranks.slowdown (>= 1) and
/// ranks.latency (seconds added to an exchange between groups, >= 0). Lists must have
/// one entry per rank of the run: a deck error otherwise, before any work.
RankSetup read_rank_setup(const Deck& deck, int nranks, int my_rank);

}  // namespace pw
