// Renaming the ranks of a plan so that as much data as possible stays where it is: a
// balancer decides which patches go together; any permutation of equally fast ranks gives
// the same loads, so pick the one that migrates the least.
#pragma once

#include "balance/balancer.hpp"

namespace pw {

/// Permutes plan.owner among ranks (only when all ranks have the same speed and group) to
/// maximise the cost of patches whose new owner is their current owner (patches[source]
/// .owner; -1 for new patches). Greedy on the (new bin, current owner) pairs with the
/// most cost; deterministic.
void keep_data_in_place(Plan& plan, const std::vector<PatchMeta>& patches,
                        const RankInfo& ranks);

}  // namespace pw
