// A level of a few thousand cells held whole by every rank across ranks
// (solver/multigrid.cpp): the owners' patches of some fields, ghosts included, copied
// into every rank's copies of the whole level, and each rank's own patches copied back.
// A V-cycle on the level then takes what it takes on one rank (one launch per
// smoothing, no message) for a gather and a copy back per solve.
#pragma once

#include <vector>

#include "amr/comm.hpp"
#include "amr/level_data.hpp"
#include "amr/parallel_copy.hpp"

namespace pw::mg {

class LevelGather {
 public:
  LevelGather() = default;
  /// For fields held whole by this rank (every patch, one component each; their fab
  /// boxes say what is copied), whose distributed originals rank owner[b] of comm holds
  /// patch b of. Collective over nothing (every rank builds its own).
  LevelGather(const std::vector<const LevelData*>& whole, const std::vector<int>& owner,
              const Comm& comm);

  /// Copies the patches of `from` (distributed; each as big as the whole copy's or
  /// bigger) into `whole`, field by field, on every rank. Collective over comm.
  void gather(const std::vector<const LevelData*>& from,
              const std::vector<LevelData*>& whole, const Comm& comm);

 private:
  CopyPlan plan_;
  int ranks_ = 0;
};

/// The copies of a field held whole (`whole`) into this rank's patches of its
/// distributed original (layout `owner`), ghosts included: a plan of on-rank copies.
CopyPlan own_patches(const LevelData& whole, const std::vector<int>& owner, int me);

}  // namespace pw::mg
