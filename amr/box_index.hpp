// BoxIndex: finds the boxes of a list that intersect a query box, through uniform bins,
// so that building communication plans stays near-linear in the number of patches.
#pragma once

#include <vector>

#include "amr/box_list.hpp"

namespace pw {

class BoxIndex {
 public:
  explicit BoxIndex(const BoxList& boxes);
  /// Indices (ascending) of the boxes that intersect q.
  std::vector<int> query(const Box& q) const;
  /// The same into out (cleared first), whose capacity loops of queries reuse.
  void query(const Box& q, std::vector<int>& out) const;
  /// The bounding box of the boxes: a query outside it finds none.
  const Box& extent() const { return extent_; }

 private:
  bool bin_range(const Box& q, IntVect& lo, IntVect& hi) const;
  BoxList boxes_;
  Box extent_;
  IntVect bin_;  // bin size in cells
  IntVect nbins_;
  std::vector<std::vector<int>> bins_;
};

/// Which of `boxes` meet one of `probes` or one of their images by `shifts` (the periodic
/// ones, periodic_shifts): 1 or 0 per box, by one query per probe and image. How a rank
/// finds the patches of a level it takes part in from its own, without looking beside
/// every patch of the level.
std::vector<char> meeting(const BoxList& boxes, const BoxList& probes,
                          const std::vector<IntVect>& shifts);

}  // namespace pw
