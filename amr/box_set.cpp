#include "amr/box_set.hpp"

namespace pw {

BoxSet::BoxSet(const std::vector<Box>& boxes, const std::vector<int>& items) {
  std::vector<Box> kept;
  std::vector<int> kept_items;
  for (size_t n = 0; n < boxes.size(); ++n) {
    if (boxes[n].empty()) continue;
    kept.push_back(boxes[n]);
    kept_items.push_back(items.empty() ? int(n) : items[n]);
  }
  n_ = int(kept.size());
  if (n_ == 0) return;
  box = Kokkos::View<Box*>("BoxSet::box", size_t(n_));
  item = Kokkos::View<int*>("BoxSet::item", size_t(n_));
  first_cell = Kokkos::View<long*>("BoxSet::first_cell", size_t(n_) + 1);
  auto hb = Kokkos::create_mirror_view(box);
  auto hi = Kokkos::create_mirror_view(item);
  auto hc = Kokkos::create_mirror_view(first_cell);
  hc(0) = 0;
  for (int n = 0; n < n_; ++n) {
    const Box& b = kept[size_t(n)];
    hb(n) = b;
    hi(n) = kept_items[size_t(n)];
    rows_ += long(b.size()[1]) * b.size()[2];
    hc(n + 1) = hc(n) + b.num_cells();
  }
  cells_ = hc(n_);
  Kokkos::deep_copy(box, hb);
  Kokkos::deep_copy(item, hi);
  Kokkos::deep_copy(first_cell, hc);
  if (detail::host_exec()) {
    row = Kokkos::View<Row*>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "BoxSet::row"), size_t(rows_));
    auto hw = Kokkos::create_mirror_view(row);
    long r = 0;
    for (int n = 0; n < n_; ++n) {
      const Box& b = kept[size_t(n)];
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          hw(r++) = {n, j, k};
    }
    Kokkos::deep_copy(row, hw);
  }
}

}  // namespace pw
