// Whole-hierarchy diagnostics: conserved totals and a fingerprint of the solution bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "amr/hierarchy.hpp"
#include "amr/run_failure.hpp"

namespace pw {

/// Integral of each component over the domain, from level 0 (which holds the average of
/// the finer levels once they are averaged down): the composite total.
std::vector<double> component_totals(const Hierarchy& h);

/// A 64-bit hash of the bits of every cell value of every level, keyed by (level,
/// component, k, j, i) and combined by a wrapping sum, so that it does not depend on how
/// a level is cut into patches, which rank owns them, or in what order they are visited.
std::uint64_t fingerprint(const Hierarchy& h);

/// Throws RunFailure, on every rank, when a cell of any level holds a NaN or an
/// infinity in any component, naming the first (level, patch, component) in that order;
/// `names` are the components', `step` the coarse step just completed. One pass over
/// the data and one reduction: cheap beside a step. `synced`: every finer level has
/// been averaged down since it last changed (the end of a coarse step), so that level 0
/// shows any bad value and the pass reads level 0 alone unless it finds one (a restored
/// checkpoint's levels need not be so). Collective.
void check_finite(const Hierarchy& h, const std::vector<std::string>& names, int step,
                  bool synced = false);

}  // namespace pw
