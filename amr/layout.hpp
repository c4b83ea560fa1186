// LevelLayout: the boxes of one level and the rank owning each, the metadata every rank
// holds (as AMReX's BoxArray + DistributionMapping).
#pragma once

#include <vector>

#include "amr/box_list.hpp"

namespace pw {

struct LevelLayout {
  BoxList boxes;
  std::vector<int> owner;

  size_t size() const { return boxes.size(); }
  bool operator==(const LevelLayout& o) const {
    return boxes == o.boxes && owner == o.owner;
  }
  bool operator!=(const LevelLayout& o) const { return !(*this == o); }
};

}  // namespace pw
