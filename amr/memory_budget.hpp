// What a node gives a run's field data, and the estimate of what a hierarchy needs, so
// that a level that would not fit is refused before it is allocated (level 0 at set-up,
// app/memory_check.hpp; finer levels as tagging builds them, Hierarchy).
#pragma once

#include <string>
#include <vector>

#include "amr/box.hpp"

namespace pw {

struct MemoryBudget {
  double bytes_per_node = 0;  // 0: nothing checked
  int ranks_per_node = 1;     // ranks on the node with the most of them
  int ranks = 1;
  std::string source;  // "of the node's memory" or "of ranks.memory_per_node"
};

/// How a level stores its face fluxes: at all (not where the update keeps them in
/// scratch: Physics::fluxes_in_scratch), and widened by how many columns each side in x
/// (Physics::flux_padding).
struct FluxStorage {
  bool stored = true;
  int padding = 0;
};

/// Bytes of one patch's field data: the state (old and new) with `nghost` ghost layers
/// and, where stored, the face fluxes of every direction.
double patch_bytes(const Box& box, int dim, int ncomp, int nghost, FluxStorage fluxes);

/// "39.5 GB", "151 kB": three digits and a decimal unit.
std::string size_text(double bytes);

/// Empty when `bytes` of field data (all ranks together) fit the budget at an even
/// share per rank, else why not: the estimate, the busiest node's share and the budget.
std::string exceeds_budget(double bytes, const MemoryBudget& budget);

}  // namespace pw
