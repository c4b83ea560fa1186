// Whole-hierarchy diagnostics: conserved totals and a fingerprint of the solution bits.
#pragma once

#include <cstdint>
#include <vector>

#include "amr/hierarchy.hpp"

namespace pw {

/// Integral of each component over the domain, from level 0 (which holds the average of
/// the finer levels once they are averaged down): the composite total.
std::vector<double> component_totals(const Hierarchy& h);

/// A 64-bit hash of the bits of every cell value of every level, keyed by (level,
/// component, k, j, i) and combined by a wrapping sum, so that it does not depend on how
/// a level is cut into patches, which rank owns them, or in what order they are visited.
std::uint64_t fingerprint(const Hierarchy& h);

}  // namespace pw
