// Spatial packing for chop and pack (balance.chop_pack.packing = "spatial"): what Morris
// (§5-6) calls for after chopping, a packing that keeps neighbouring boxes on the same
// rank. Recursive coordinate bisection (Berger and Bokhari's binary decomposition, Morris
// §2) of the box list: the ranks are split in two, the boxes ordered by centroid (level-0
// frame) and the list cut at the lo ranks' share of the weight; the box that straddles
// the cut is itself cut where it gives that share, as a staircase (slab, row, block) of
// legal pieces, so that every rank comes within about a block of its share. Patches are
// chopped only where a cut needs it, not into ideal loads first: fewer pieces, each cut
// lying on a plane between ranks. Since splitting adds faces between ranks, three
// choices are made by the faces cut (same-level face pairs across the two sides, as the
// balance lab's comm_cut counts them) rather than by geometry alone: the axis (each is
// tried; ties go to the longest of the region, binary decomposition's rule), the ranks
// on each side (half, or one more or fewer), and which box near the straddling one to
// cut, if any (see choose() in the source). Measured on the lab's workloads (10^4
// patches, 3D), longest-axis bisection with the straddling box cut had 1-10% more faces
// than Zoltan's RCB of whole patches at 1024 ranks; with these choices, 1-4% fewer on the
// default seed.
#pragma once

#include <utility>
#include <vector>

#include "balance/balancer.hpp"

namespace pw {

/// Cut `box` into a lo part of about `cells` cells and the hi part: a staircase along
/// `axes` in order, the slab of whole layers across axes[0] below the cut, then within
/// the next layer the same across axes[1], and so on; the last axis takes the legal
/// position nearest the target. Every cut is at a legal position (aligned to the
/// blocking factor, no piece side below min_size in any direction the box is cut), so
/// the count is exact to one block of the last axis that can be cut. Post: lo and hi
/// together tile box; each holds at most axes.size() boxes; lo is empty when cells <= 0
/// or no legal cut comes nearer, likewise hi. Pre: axes are distinct, < rules.dim.
std::pair<std::vector<Box>, std::vector<Box>> staircase_cut(const Box& box, long cells,
                                                            const std::vector<int>& axes,
                                                            const SplitRules& rules);

/// Per patch, the patches of its level it shares cell faces with (touching across an
/// axis, with sections that overlap), and how many faces; each pair is listed both ways,
/// in no particular order. Cost O(n log n) plus the pairs.
std::vector<std::vector<std::pair<int, long>>> touching_faces(
    const std::vector<PatchMeta>& patches);

/// The spatial plan: recursive coordinate bisection of the patches as above, each rank
/// weighted by its speed (a side's share of the weight is its share of the speed). A cut
/// may miss its share by up to max(tolerance, 0.0025) ideal loads (total cost / total
/// speed) when that cuts fewer faces, e.g. by leaving the straddling box whole.
/// Deterministic: ties in the centroid order break by the other axes, level, patch
/// index and corner. Post: the Balancer post-conditions; pieces obey `rules`; output
/// ordered by source. Cost O(n log n) to sort once along each axis, then O(n + e) per
/// level of the bisection (e: pairs of boxes that share faces; children inherit their
/// orders), plus the faces of the boxes near each cut.
Plan spatial_pack(const std::vector<PatchMeta>& patches, const RankInfo& ranks,
                  const SplitRules& rules, double tolerance);

}  // namespace pw
