#include "balance/patch_family.hpp"

#include <algorithm>
#include <map>

#include "amr/box_index.hpp"

namespace pw {

std::vector<int> parents_in(const std::vector<PatchMeta>& fine,
                            const std::vector<PatchMeta>& coarse) {
  // One index per coarse level, over that level's boxes.
  std::map<int, std::vector<int>> members;
  for (int c = 0; c < int(coarse.size()); ++c)
    members[coarse[size_t(c)].level].push_back(c);
  std::map<int, BoxIndex> index;
  for (const auto& [level, list] : members) {
    BoxList boxes;
    for (int c : list)
      boxes.push_back(coarse[size_t(c)].box);
    index.emplace(level, BoxIndex(boxes));
  }
  std::vector<int> parent(fine.size(), -1);
  for (size_t f = 0; f < fine.size(); ++f) {
    const PatchMeta& p = fine[f];
    auto it = index.find(p.level - 1);
    if (it == index.end()) continue;
    const int c0 = members[p.level - 1].front();
    const int ratio = std::max(1, p.refinement / coarse[size_t(c0)].refinement);
    IntVect centre = p.box.lo + p.box.hi;
    for (int d = 0; d < 3; ++d)
      centre[d] = floor_div(centre[d], 2);
    centre = coarsen(centre, IntVect::uniform(ratio));
    const std::vector<int> hits = it->second.query(Box(centre, centre));
    if (!hits.empty()) parent[f] = members[p.level - 1][size_t(hits.front())];
  }
  return parent;
}

std::vector<int> family_roots(const std::vector<PatchMeta>& patches) {
  std::vector<int> root(patches.size());
  std::map<int, std::vector<int>> by_level;
  for (int i = 0; i < int(patches.size()); ++i) {
    root[size_t(i)] = i;
    by_level[patches[size_t(i)].level].push_back(i);
  }
  // Coarsest first, so a parent's root is known before its children ask.
  for (auto it = by_level.begin(); it != by_level.end(); ++it) {
    auto prev = std::prev(it);
    if (it == by_level.begin() || prev->first != it->first - 1) continue;
    std::vector<PatchMeta> fine, coarse;
    for (int i : it->second)
      fine.push_back(patches[size_t(i)]);
    for (int i : prev->second)
      coarse.push_back(patches[size_t(i)]);
    const std::vector<int> parent = parents_in(fine, coarse);
    for (size_t n = 0; n < fine.size(); ++n)
      if (parent[n] >= 0)
        root[size_t(it->second[n])] = root[size_t(prev->second[size_t(parent[n])])];
  }
  return root;
}

}  // namespace pw
