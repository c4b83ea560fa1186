// What one refinement tag asks for: its cell grown by the error buffer, in clustering
// blocks. The host (make_fine_boxes from cells) and the device
// (LevelTags::reached_blocks, which reduces a level's tags to blocks before they are
// gathered) share it, so both give the same blocks.
#pragma once

#include "amr/box.hpp"

namespace pw {

struct TagReach {
  IntVect buf;         // n_error_buf level-l cells in the used directions, 0 beyond
  IntVect block_size;  // level-l cells per clustering block
  // The domain in the directions where the grown cell is clipped (not periodic, or the
  // buffer as wide as the domain), unbounded in the others.
  Box clip;

  /// The blocks (unwrapped: periodic images may lie outside the domain) that tag t
  /// reaches.
  KOKKOS_INLINE_FUNCTION Box blocks(const IntVect& t) const {
    return coarsen(grow(Box{t, t}, buf) & clip, block_size);
  }
  /// The blocks that some cell of b reaches: their bounding box.
  KOKKOS_INLINE_FUNCTION Box blocks(const Box& b) const {
    return coarsen(grow(b, buf) & clip, block_size);
  }
};

}  // namespace pw
