#include "balance/patch_family.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace pw {

namespace {

/// The boxes of one level in sparse bins of the largest box's size, so that finding the
/// box holding a cell costs a hash look-up however far apart the boxes are.
class CellFinder {
 public:
  CellFinder(const std::vector<PatchMeta>& coarse, const std::vector<int>& members)
      : coarse_(coarse), members_(members) {
    for (int c : members)
      bin_ = max(bin_, coarse[size_t(c)].box.size());
    for (size_t m = 0; m < members.size(); ++m) {
      const Box& b = coarse[size_t(members[m])].box;
      const IntVect lo = coarsen(b.lo, bin_), hi = coarsen(b.hi, bin_);
      for (int k = lo[2]; k <= hi[2]; ++k)
        for (int j = lo[1]; j <= hi[1]; ++j)
          for (int i = lo[0]; i <= hi[0]; ++i)
            bins_[key({i, j, k})].push_back(int(m));
    }
  }
  /// The index in `coarse` of the first member holding cell c, or -1.
  int find(const IntVect& c) const {
    auto it = bins_.find(key(coarsen(c, bin_)));
    if (it == bins_.end()) return -1;
    for (int m : it->second)
      if (coarse_[size_t(members_[size_t(m)])].box.contains(c))
        return members_[size_t(m)];
    return -1;
  }

 private:
  static std::uint64_t key(const IntVect& b) {
    auto u = [](int x) { return std::uint64_t(std::uint32_t(x) & 0x1FFFFF); };
    return u(b[0]) | u(b[1]) << 21 | u(b[2]) << 42;
  }
  const std::vector<PatchMeta>& coarse_;
  const std::vector<int>& members_;
  IntVect bin_{1, 1, 1};
  std::unordered_map<std::uint64_t, std::vector<int>> bins_;
};

}  // namespace

std::vector<int> parents_in(const std::vector<PatchMeta>& fine,
                            const std::vector<PatchMeta>& coarse) {
  std::map<int, std::vector<int>> members;  // coarse patches per level
  for (int c = 0; c < int(coarse.size()); ++c)
    members[coarse[size_t(c)].level].push_back(c);
  std::map<int, CellFinder> finders;
  for (const auto& [level, list] : members)
    finders.try_emplace(level, coarse, list);
  std::vector<int> parent(fine.size(), -1);
  for (size_t f = 0; f < fine.size(); ++f) {
    const PatchMeta& p = fine[f];
    auto it = finders.find(p.level - 1);
    if (it == finders.end()) continue;
    const int c0 = members[p.level - 1].front();
    const int ratio = std::max(1, p.refinement / coarse[size_t(c0)].refinement);
    IntVect centre = p.box.lo + p.box.hi;
    for (int d = 0; d < 3; ++d)
      centre[d] = floor_div(centre[d], 2);
    parent[f] = it->second.find(coarsen(centre, IntVect::uniform(ratio)));
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
