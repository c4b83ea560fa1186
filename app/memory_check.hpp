// The memory a run's level 0 needs, checked against what a node gives it before anything
// is allocated: a deck whose sizes would not fit is a deck error naming both figures,
// not a std::bad_alloc or the kernel's OOM killer half-way through initialisation.
#pragma once

#include "amr/amr_config.hpp"
#include "amr/comm.hpp"
#include "amr/deck.hpp"
#include "amr/memory_budget.hpp"

namespace pw {

/// Bytes of field data of level 0, all ranks together: the state (old and new) with
/// `nghost` ghost layers and, where stored, the face fluxes of every patch of the deck's
/// level-0 cut.
double level0_bytes(const AmrConfig& cfg, int ncomp, int nghost, FluxStorage fluxes);

/// Bytes `ranks.memory_per_node` gives a node, or 0 for "physical" (the default).
/// Throws UserError on a bad value.
double memory_per_node(const Deck& deck);

/// The budget: `ranks.memory_per_node` (a size: "16GB", "512MiB", or bytes; the command
/// line's --max-memory) or, by default, the node's physical memory, for the node with the
/// most ranks. Throws UserError (at domain.n_cell) when level 0's share there exceeds
/// it. Collective.
MemoryBudget check_memory(const Deck& deck, const AmrConfig& cfg, int ncomp, int nghost,
                          FluxStorage fluxes, const Comm& comm);

}  // namespace pw
