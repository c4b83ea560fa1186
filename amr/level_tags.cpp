#include "amr/level_tags.hpp"

#include "amr/device_array.hpp"

namespace pw {

LevelTags::LevelTags(const std::vector<Box>& boxes, const std::vector<int>& owned) {
  std::vector<Box> mine;
  std::vector<int> slot(boxes.size(), -1);
  for (int p : owned) {
    slot[size_t(p)] = int(mine.size());
    mine.push_back(boxes[size_t(p)]);
  }
  cells_ = BoxSet(mine, owned);
  flag_ = Kokkos::View<int*>("tags", size_t(cells_.cells()));
  slot_ = device_copy("tags::slot", slot);
}

std::vector<int> LevelTags::tagged_cells() const {
  using Policy = Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>;
  const BoxSet s = cells_;
  const Kokkos::View<int*> flag = flag_;
  long count = 0;
  if (!s.empty())
    Kokkos::parallel_reduce(
        "tags::count", Policy(0, s.cells()),
        KOKKOS_LAMBDA(long x, long& n) { n += flag(x) != 0; }, count);
  const Kokkos::View<int*> out = device_array<int>("tags::cells", size_t(3 * count));
  if (count > 0) {
    const int nb = s.size();
    Kokkos::parallel_scan(
        "tags::compact", Policy(0, s.cells()),
        KOKKOS_LAMBDA(long x, long& at, bool final) {
          if (flag(x) == 0) return;
          if (final) {
            int i, j, k;
            detail::cell_of(s, find_slot(s.first_cell, nb, x), x, i, j, k);
            out(3 * at) = i;
            out(3 * at + 1) = j;
            out(3 * at + 2) = k;
          }
          at += 1;
        });
  }
  std::vector<int> host(size_t(3 * count));
  Kokkos::deep_copy(
      Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          host.data(), host.size()),
      out);
  return host;
}

}  // namespace pw
