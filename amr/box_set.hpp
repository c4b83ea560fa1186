// BoxSet and its launches: one kernel over the cells of many boxes (the owned patches of
// a level, their ghost regions, their coarsened boxes), not one kernel per box. A level
// of a hundred small patches then costs one fork/join on threads and one launch on a GPU.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#include "amr/box.hpp"
#include "amr/field3.hpp"
#include "amr/reproducible_sum.hpp"

namespace pw {

/// Boxes for one launch, each tied to an item (a patch index: which FabRef the kernel
/// reads for it). Rows (j, k) of all boxes are numbered one after another. On host
/// backends a launch runs over those rows (the i loop of a row vectorized) and finds a
/// row's box in a table; on devices it runs over cells, one per thread, and finds a
/// cell's box by bisection.
class BoxSet {
 public:
  BoxSet() = default;
  /// Box n belongs to item items[n] (or n when items is empty); empty boxes are dropped.
  explicit BoxSet(const std::vector<Box>& boxes, const std::vector<int>& items = {});

  // Also in kernels (a team running over a set: amr/patch_teams.hpp's team_set_rows).
  KOKKOS_INLINE_FUNCTION int size() const { return n_; }
  KOKKOS_INLINE_FUNCTION long rows() const { return rows_; }
  KOKKOS_INLINE_FUNCTION long cells() const { return cells_; }
  KOKKOS_INLINE_FUNCTION bool empty() const { return cells_ == 0; }
  /// A run of whole boxes: rows [row0, row1) and cells [cell0, cell1) of the set.
  struct Range {
    long row0 = 0, row1 = 0, cell0 = 0, cell1 = 0;
  };
  KOKKOS_INLINE_FUNCTION Range all() const { return {0, rows_, 0, cells_}; }

  // Device data, read by the launches below.
  StructArray<Box> box;            // box n
  Kokkos::View<int*> item;         // its item
  Kokkos::View<long*> first_cell;  // n + 1 entries: prefix sums of the cells per box
  /// Host backends only: row r's box n and (j, k), found by one load (rows are short on
  /// coarse multigrid grids: a bisection per row cost as much as the row's cells).
  struct Row {
    int n, j, k;
  };
  StructArray<Row> row;

 private:
  int n_ = 0;
  long rows_ = 0, cells_ = 0;
};

/// Each item's run of boxes in a set made of `boxes` and `items` (one each, ascending,
/// in [0, n_items); else std::logic_error): runs[i] covers item i's boxes (empty if
/// none), for team_set_rows.
std::vector<BoxSet::Range> item_runs(const std::vector<Box>& boxes,
                                     const std::vector<int>& items, size_t n_items);

/// The n with first[n] <= x < first[n + 1] (first ascending, first[0] = 0, first[size] >
/// x).
KOKKOS_INLINE_FUNCTION int find_slot(const Kokkos::View<long*>& first, int size, long x) {
  int lo = 0, hi = size - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (first(mid) <= x)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

namespace detail {
KOKKOS_INLINE_FUNCTION constexpr bool host_exec() {
  return Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace,
                                    Kokkos::HostSpace>::accessible;
}
/// Cell x of set s: its item and global indices.
KOKKOS_INLINE_FUNCTION void cell_of(const BoxSet& s, int n, long x, int& i, int& j,
                                    int& k) {
  const Box b = s.box(n);
  const long nx = b.hi[0] - b.lo[0] + 1, ny = b.hi[1] - b.lo[1] + 1;
  const long c = x - s.first_cell(n);
  i = b.lo[0] + int(c % nx);
  j = b.lo[1] + int((c / nx) % ny);
  k = b.lo[2] + int(c / (nx * ny));
}
/// Host backends: row r of s as (item, j, k, i0, i1).
KOKKOS_INLINE_FUNCTION void row_of(const BoxSet& s, long r, int& it, int& j, int& k,
                                   int& i0, int& i1) {
  const BoxSet::Row w = s.row(r);
  it = s.item(w.n);
  j = w.j;
  k = w.k;
  i0 = s.box(w.n).lo[0];
  i1 = s.box(w.n).hi[0];
}
}  // namespace detail

/// Launch f(item, j, k, i0, i1) over every row of every box of s, in one kernel: f
/// does cells i0..i1 of row (j, k), a whole row on host backends (where f's loop over i
/// can hoist what a row shares and vectorize), one cell on devices. f must not write
/// what another cell reads.
template <class F>
void for_each_box_row(const std::string& label, const BoxSet& s, const F& f) {
  using Exec = Kokkos::DefaultExecutionSpace;
  if (s.empty()) return;
  if constexpr (!detail::host_exec()) {
    const int nb = s.size();
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<Exec>(0, s.cells()), KOKKOS_LAMBDA(long x) {
          const int n = find_slot(s.first_cell, nb, x);
          int i, j, k;
          detail::cell_of(s, n, x, i, j, k);
          f(s.item(n), j, k, i, i);
        });
  } else {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec>(0, s.rows()),
                         [=](long r) PW_FLATTEN {
                           int it, j, k, i0, i1;
                           detail::row_of(s, r, it, j, k, i0, i1);
                           f(it, j, k, i0, i1);
                         });
  }
}

/// Launch f(item, i, j, k) over every cell of every box of s, in one kernel. f must not
/// write what another cell reads.
template <class F>
void for_each_box_cell(const std::string& label, const BoxSet& s, const F& f) {
  for_each_box_row(
      label, s, KOKKOS_LAMBDA(int it, int j, int k, int i0, int i1) {
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i)
          f(it, i, j, k);
      });
}

/// A reduction with reducer R (value type T) over every row of s: g(acc, item, j, k, i0,
/// i1) folds cells i0..i1 of row (j, k) into acc. Whole rows on host backends (g's loop
/// over i can vectorize), one cell per call on devices, as for_each_box_row.
template <class T, class Reducer, class G>
T reduce_over_box_rows(const std::string& label, const BoxSet& s, const G& g) {
  using Exec = Kokkos::DefaultExecutionSpace;
  T out;
  Reducer red(out);
  red.init(out);
  if (s.empty()) return out;
  if constexpr (!detail::host_exec()) {
    const int nb = s.size();
    Kokkos::parallel_reduce(
        label, Kokkos::RangePolicy<Exec>(0, s.cells()),
        KOKKOS_LAMBDA(long x, T& acc) {
          const int n = find_slot(s.first_cell, nb, x);
          int i, j, k;
          detail::cell_of(s, n, x, i, j, k);
          g(acc, s.item(n), j, k, i, i);
        },
        red);
  } else {
    Kokkos::parallel_reduce(
        label, Kokkos::RangePolicy<Exec>(0, s.rows()),
        [=](long r, T& acc) PW_FLATTEN {
          int it, j, k, i0, i1;
          detail::row_of(s, r, it, j, k, i0, i1);
          g(acc, it, j, k, i0, i1);
        },
        red);
  }
  return out;
}

/// Reduce g(item, i, j, k) over every cell of s with reducer R (its value type T, an
/// accumulator `join(acc, g)`), one reduction.
template <class T, class Reducer, class Join, class G>
T reduce_over_box_cells(const std::string& label, const BoxSet& s, const Join& join,
                        const G& g) {
  return reduce_over_box_rows<T, Reducer>(
      label, s, KOKKOS_LAMBDA(T & acc, int it, int j, int k, int i0, int i1) {
        for (int i = i0; i <= i1; ++i)
          join(acc, g(it, i, j, k));
      });
}

/// max over every cell of s of g(item, i, j, k) >= 0 (0 for an empty set), one
/// reduction.
template <class G>
double max_over_box_cells(const std::string& label, const BoxSet& s, const G& g) {
  if (s.empty()) return 0.0;
  return reduce_over_box_cells<double, Kokkos::Max<double>>(
      label, s, KOKKOS_LAMBDA(double& acc, double v) { acc = v > acc ? v : acc; }, g);
}

/// The exact sum over every cell of s of g(item, i, j, k), each term scaled by
/// inv_scale (see ExactSum::add), one reduction: the same bits in any order.
template <class G>
ExactSum exact_sum_over_box_cells(const std::string& label, const BoxSet& s,
                                  double inv_scale, const G& g) {
  return reduce_over_box_cells<ExactSum, Kokkos::Sum<ExactSum>>(
      label, s, KOKKOS_LAMBDA(ExactSum & acc, double v) { acc.add(v, inv_scale); }, g);
}

}  // namespace pw
