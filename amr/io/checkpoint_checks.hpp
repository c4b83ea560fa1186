// What a checkpoint's hierarchy must satisfy before a restart trusts it: the checks of
// boxes and clocks that a flipped bit, a buggy writer or a hand-edited file would break
// (the checksums catch the first; these catch files whose checksums were made to fit).
#pragma once

#include <string>
#include <vector>

#include "amr/amr_config.hpp"
#include "amr/hierarchy.hpp"

namespace pw {

/// Throws std::runtime_error "level_L: <what is wrong>" unless every level's boxes are
/// non-empty, inside the level's domain, aligned to and a multiple of
/// cfg.blocking_factor, disjoint, and (levels >= 1) properly nested: each box, coarsened
/// and grown by the coarse cells that coarse-fine interpolation reads for `nghost`
/// ghosts, lies on the coarser level's boxes (with periodic wrap; a physical boundary
/// does not count). Pre: layouts.size() <= cfg.max_level + 1.
void check_layouts(const std::vector<LevelLayout>& layouts, const AmrConfig& cfg,
                   int nghost);

/// Throws std::runtime_error naming the level or counter unless `step` and the counters
/// of `state` are >= 0, level 0 has taken `step` steps, every level's
/// 0 <= last_regrid_step <= steps, its times are finite, 0 <= t_old <= t_new, and every
/// level's t_new is level 0's (to round-off: a dump is taken at a coarse-step boundary).
void check_clocks(const RestoreState& state, int step);

}  // namespace pw
