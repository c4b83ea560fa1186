// From the tags of level l to the boxes of level l+1: buffer, block, nest, cluster, chop.
#pragma once

#include <vector>

#include "amr/box_list.hpp"
#include "amr/level_geom.hpp"
#include "amr/tag_reach.hpp"

namespace pw {

struct FineBoxParams {
  IntVect ratio;        // level l to level l+1, 1 in unused directions
  int blocking_factor;  // level-(l+1) cells; a multiple or a divisor of the ratio
  int max_grid_size;    // level-(l+1) cells; a multiple of blocking_factor
  int n_error_buf;      // level-l cells added around each tag
  int n_proper;         // level-l cells kept between level l+1 and uncovered level l
  double grid_eff;      // Berger-Rigoutsos threshold, counted in blocking-factor blocks
};

/// tags: level-l cells (global indices, any order, duplicates allowed) on the union of
/// coarse_boxes. coarse_boxes: the level-l patches (disjoint, inside geom.domain). geom:
/// level-l geometry. Pre: geom.domain is aligned to blocking_factor / ratio (so the
/// level-(l+1) domain is to blocking_factor); throws std::invalid_argument on
/// inconsistent params. Returns level-(l+1) boxes: disjoint, sorted canonically, aligned
/// to and a multiple of blocking_factor in directions < dim, no side longer than
/// max_grid_size, properly nested (every fine cell lies in a coarse cell at least
/// n_proper level-l cells away from any level-l cell not covered by coarse_boxes, with
/// periodic wrap; a non-periodic physical boundary does not count as uncovered). They
/// cover every tag grown by n_error_buf whose blocking-factor block lies wholly in that
/// nesting region; tags in blocks straddling its edge are dropped, as in AMReX. No tags,
/// or none nested, gives an empty list.
BoxList make_fine_boxes(const std::vector<IntVect>& tags, const BoxList& coarse_boxes,
                        const LevelGeom& geom, const FineBoxParams& p);

/// The blocks a tag reaches under p (its cell grown by n_error_buf, in clustering blocks:
/// level-l cells per level-(l+1) blocking-factor block); throws std::invalid_argument on
/// inconsistent params, as make_fine_boxes does.
TagReach tag_reach(const FineBoxParams& p, const LevelGeom& geom);

/// make_fine_boxes from what the tags reach rather than from the tags: `blocks` holds
/// the blocks tag_reach(p, geom).blocks(t) of every tag t (unwrapped, any order,
/// duplicates allowed), as LevelTags::reached_blocks gives them. The same boxes as
/// make_fine_boxes on those tags; the list is shorter than the tags wherever tags are
/// denser than one per block (blocks of 4^3 cells: up to 64 times).
BoxList make_fine_boxes_from_blocks(const std::vector<IntVect>& blocks,
                                    const BoxList& coarse_boxes, const LevelGeom& geom,
                                    const FineBoxParams& p);

}  // namespace pw
