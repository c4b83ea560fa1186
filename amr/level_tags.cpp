#include "amr/level_tags.hpp"

#include <stdexcept>

#include "amr/device_array.hpp"

namespace pw {

// Device lambdas live in free functions of a named namespace (CUDA's rule).
namespace level_tags_detail {

/// The (i, j, k) of every cell of s whose flag is set, in the order of s (box by box, i
/// fastest), on the host: one count, one compacting scan and one copy of the result.
std::vector<int> flagged_cells(const BoxSet& s, const Kokkos::View<int*>& flag) {
  using Policy = Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>;
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

/// Marks in `mark` (over the boxes of `blocks`, box n holding the blocks that the cells
/// of box n of `cells` can reach) every block that a flagged cell reaches. A block's mark
/// may be set from several rows at once, hence the atomic OR.
void mark_reached(const BoxSet& cells, const Kokkos::View<int*>& flag,
                  const Kokkos::View<int*>& slot, const BoxSet& blocks,
                  const Kokkos::View<int*>& mark, const TagReach& reach) {
  for_each_box_row(
      "tags::reach", cells, KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        const int n = slot(p);
        const Box b = cells.box(n), cb = blocks.box(n);
        const long nx = b.hi[0] - b.lo[0] + 1, ny = b.hi[1] - b.lo[1] + 1;
        const long row = cells.first_cell(n) + nx * ((j - b.lo[1]) + ny * (k - b.lo[2]));
        const long bx = cb.hi[0] - cb.lo[0] + 1, by = cb.hi[1] - cb.lo[1] + 1;
        int* m = mark.data() + blocks.first_cell(n);
        // The cells of a row reach the same rows of blocks (their y and z ranges depend
        // on j and k only), and ranges along x that move up with i: each block is marked
        // once per row, from just past the last one marked.
        const Box rows = reach.blocks(IntVect{i0, j, k});
        int marked = cb.lo[0] - 1;  // the highest x marked so far
        for (int i = i0; i <= i1; ++i) {
          if (flag(row + (i - b.lo[0])) == 0) continue;
          const Box r = reach.blocks(IntVect{i, j, k});
          for (int x = r.lo[0] > marked ? r.lo[0] : marked + 1; x <= r.hi[0]; ++x)
            for (int z = rows.lo[2]; z <= rows.hi[2]; ++z)
              for (int y = rows.lo[1]; y <= rows.hi[1]; ++y)
                Kokkos::atomic_fetch_or(
                    &m[(x - cb.lo[0]) + bx * ((y - cb.lo[1]) + by * (z - cb.lo[2]))], 1);
          if (r.hi[0] > marked) marked = r.hi[0];
        }
      });
}

}  // namespace level_tags_detail

using namespace level_tags_detail;

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
  return flagged_cells(cells_, flag_);
}

std::vector<int> LevelTags::reached_blocks(const TagReach& reach) const {
  if (cells_.empty()) return {};
  // Box n of the blocks' set: the blocks that the cells of box n of cells_ can reach.
  // (LevelTags keeps no host copy of its boxes: kernels capture it.)
  const auto box =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cells_.box.view());
  const auto item = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cells_.item);
  std::vector<Box> ranges(size_t(cells_.size()));
  std::vector<int> items(ranges.size());
  for (size_t n = 0; n < ranges.size(); ++n) {
    ranges[n] = reach.blocks(box(n));
    items[n] = item(n);
  }
  const BoxSet blocks(ranges, items);
  // Box n of both sets must be patch n's: no range is empty, since no box is.
  if (blocks.size() != cells_.size())
    throw std::logic_error("LevelTags::reached_blocks: an empty range of blocks");
  const Kokkos::View<int*> mark("tags::blocks", size_t(blocks.cells()));
  mark_reached(cells_, flag_, slot_, blocks, mark, reach);
  return flagged_cells(blocks, mark);
}

}  // namespace pw
