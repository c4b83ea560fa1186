#include "amr/box_index.hpp"

#include <algorithm>

namespace pw {

BoxIndex::BoxIndex(const BoxList& boxes) : boxes_(boxes), extent_(bounding_box(boxes)) {
  IntVect largest{1, 1, 1};
  for (const Box& b : boxes)
    largest = max(largest, b.size());
  bin_ = largest;
  nbins_ = IntVect{1, 1, 1};
  if (extent_.empty()) return;
  for (int d = 0; d < 3; ++d)
    nbins_[d] = (extent_.size()[d] + bin_[d] - 1) / bin_[d];
  bins_.resize(size_t(nbins_.product()));
  for (int n = 0; n < int(boxes.size()); ++n) {
    IntVect lo, hi;
    if (!bin_range(boxes[n], lo, hi)) continue;
    for (int k = lo[2]; k <= hi[2]; ++k)
      for (int j = lo[1]; j <= hi[1]; ++j)
        for (int i = lo[0]; i <= hi[0]; ++i)
          bins_[size_t((k * nbins_[1] + j) * nbins_[0] + i)].push_back(n);
  }
}

bool BoxIndex::bin_range(const Box& q, IntVect& lo, IntVect& hi) const {
  const Box c = q & extent_;
  if (c.empty()) return false;
  lo = coarsen(c.lo - extent_.lo, bin_);
  hi = coarsen(c.hi - extent_.lo, bin_);
  return true;
}

std::vector<int> BoxIndex::query(const Box& q) const {
  std::vector<int> out;
  query(q, out);
  return out;
}

void BoxIndex::query(const Box& q, std::vector<int>& out) const {
  out.clear();
  IntVect lo, hi;
  if (extent_.empty() || !bin_range(q, lo, hi)) return;
  for (int k = lo[2]; k <= hi[2]; ++k)
    for (int j = lo[1]; j <= hi[1]; ++j)
      for (int i = lo[0]; i <= hi[0]; ++i)
        for (int n : bins_[size_t((k * nbins_[1] + j) * nbins_[0] + i)])
          if (intersects(boxes_[n], q)) out.push_back(n);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

std::vector<char> meeting(const BoxList& boxes, const BoxList& probes,
                          const std::vector<IntVect>& shifts) {
  std::vector<char> met(boxes.size(), 0);
  const BoxIndex index(boxes);
  std::vector<int> hits;
  auto mark = [&](const Box& b) {
    index.query(b, hits);
    for (int n : hits)
      met[size_t(n)] = 1;
  };
  for (const Box& b : probes) {
    mark(b);
    for (const IntVect& s : shifts)
      mark(shift(b, s));
  }
  return met;
}

}  // namespace pw
