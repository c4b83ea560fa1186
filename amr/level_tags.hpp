// Refinement tags of a level's owned patches, on the device: the physics module sets them
// in one launch over the level, and reached_blocks() reduces them there to the clustering
// blocks they reach, so regridding gathers a few blocks' indices, not a tag per cell of
// every patch, nor the tagged cells.
#pragma once

#include <Kokkos_Core.hpp>

#include <vector>

#include "amr/box.hpp"
#include "amr/box_set.hpp"
#include "amr/tag_reach.hpp"

namespace pw {

/// One patch's tags: t(i, j, k) over the patch's interior, global indices.
struct PatchTags {
  int* p = nullptr;
  IntVect lo;
  long sj = 0, sk = 0;
  KOKKOS_INLINE_FUNCTION int& operator()(int i, int j, int k) const {
    return p[(i - lo[0]) + sj * (j - lo[1]) + sk * (k - lo[2])];
  }
};

/// Tags of the owned patches of a level, 0 (not tagged) until a physics module sets them.
class LevelTags {
 public:
  /// Tags over boxes[p] for each p in `owned` (boxes: a level's patch boxes).
  LevelTags(const std::vector<Box>& boxes, const std::vector<int>& owned);

  /// The owned patches' interiors, item p: what a tagging launch runs over.
  const BoxSet& cells() const { return cells_; }
  /// Patch p's tags (p owned), in a kernel.
  KOKKOS_INLINE_FUNCTION PatchTags of(int p) const {
    const int n = slot_(p);
    const Box b = cells_.box(n);
    const long nx = b.hi[0] - b.lo[0] + 1, ny = b.hi[1] - b.lo[1] + 1;
    return {flag_.data() + cells_.first_cell(n), b.lo, nx, nx * ny};
  }

  /// The tagged cells as (i, j, k) triples, in the order of cells() (box by box, i
  /// fastest), on the host: one count, one compacting scan and one copy of the result.
  std::vector<int> tagged_cells() const;
  /// The blocks that the tagged cells reach (their union over the cells' reach.blocks(),
  /// unwrapped, each patch's without duplicates; patches may share some) as (i, j, k)
  /// triples, on the host: what make_fine_boxes_from_blocks takes. One entry per patch
  /// and block: with blocks of 4^3 cells and dense tags, up to 64 times fewer than
  /// tagged_cells().
  std::vector<int> reached_blocks(const TagReach& reach) const;

 private:
  BoxSet cells_;
  Kokkos::View<int*> flag_;  // cells_.cells() entries, box after box, i fastest
  Kokkos::View<int*> slot_;  // per patch index: its box in cells_ (-1 where not owned)
};

}  // namespace pw
