#include "amr/box_set.hpp"

#include <stdexcept>

#include "amr/device_array.hpp"

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
  std::vector<long> first(size_t(n_) + 1, 0);
  for (int n = 0; n < n_; ++n) {
    const Box& b = kept[size_t(n)];
    rows_ += long(b.size()[1]) * b.size()[2];
    first[size_t(n) + 1] = first[size_t(n)] + b.num_cells();
  }
  cells_ = first[size_t(n_)];
  box = device_copy("BoxSet::box", kept);
  item = device_copy("BoxSet::item", kept_items);
  first_cell = device_copy("BoxSet::first_cell", first);
  if (detail::host_exec()) {
    std::vector<Row> rows;
    rows.reserve(size_t(rows_));
    for (int n = 0; n < n_; ++n) {
      const Box& b = kept[size_t(n)];
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          rows.push_back({n, j, k});
    }
    row = device_copy("BoxSet::row", rows);
  }
}

std::vector<BoxSet::Range> item_runs(const std::vector<Box>& boxes,
                                     const std::vector<int>& items, size_t n_items) {
  if (items.size() != boxes.size())
    throw std::logic_error("item_runs: an item for each box expected");
  std::vector<BoxSet::Range> runs(n_items);
  long rows = 0, cells = 0;  // before box n (empty boxes take none, as in the set)
  size_t n = 0;
  for (size_t it = 0; it < n_items; ++it) {
    runs[it].row0 = rows;
    runs[it].cell0 = cells;
    for (; n < boxes.size() && items[n] == int(it); ++n) {
      if (boxes[n].empty()) continue;
      rows += long(boxes[n].size()[1]) * boxes[n].size()[2];
      cells += boxes[n].num_cells();
    }
    runs[it].row1 = rows;
    runs[it].cell1 = cells;
  }
  if (n != boxes.size())
    throw std::logic_error("item_runs: items out of order or beyond the last");
  return runs;
}

}  // namespace pw
