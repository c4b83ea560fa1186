// The feed of a multigrid grid that every rank holds whole from the distributed grid
// above it (solver/multigrid.cpp): each rank restricts the residual into its own patches
// of the held grid's rhs, and the restriction's launch packs them (mg::RestrictStage's
// rows and send); the exchange sends them to every other rank; the held grid's first
// launch takes what came (mg::FeedStage). No launch of its own.
#pragma once

#include <vector>

#include "amr/comm.hpp"
#include "amr/level_data.hpp"
#include "amr/parallel_copy.hpp"

namespace pw::mg {

class SharedFeed {
 public:
  SharedFeed() = default;
  /// For rhs, held whole by this rank (every patch; one component), whose patch b rank
  /// owner[b] of comm restricts into. Collective over nothing (every rank builds its
  /// own).
  SharedFeed(const LevelData& rhs, const std::vector<int>& owner, const Comm& comm);

  /// The interiors of this rank's patches (items: patches): what it restricts into.
  const BoxSet& rows() const { return rows_; }
  /// What the restriction's launch packs (its sent pieces) and the first launch takes
  /// (the cells received).
  const CopiesByPatch& copies() const { return copies_; }
  /// Sends what the restriction's launch packed, and receives the other ranks' patches
  /// (taken by the next launch through copies()). Collective over comm.
  void exchange(const LevelData& rhs, const Comm& comm);

 private:
  CopyPlan plan_;
  std::vector<Fab> dst_;  // by destination index: rhs's fabs, then one empty per rank
  BoxSet rows_;
  CopiesByPatch copies_;
};

}  // namespace pw::mg
