// Patch data: a Kokkos View (component, k, j, i) over a box, reached by global (i, j, k).
#pragma once

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "amr/box.hpp"

namespace pw {

using View4 = Kokkos::View<double****, Kokkos::LayoutRight>;

/// A light, copyable accessor for kernels: global cell indices, component last.
struct Array4 {
  View4 v;
  IntVect lo;  // global index of v(., 0, 0, 0)

  KOKKOS_INLINE_FUNCTION double& operator()(int i, int j, int k, int c = 0) const {
    return v(c, k - lo[2], j - lo[1], i - lo[0]);
  }
};

/// Data over `box` (which includes any ghost cells) with `ncomp` components.
struct Fab {
  Box box;
  View4 data;

  Fab() = default;
  Fab(const std::string& label, const Box& b, int ncomp)
      : box(b), data(label, ncomp, b.size()[2], b.size()[1], b.size()[0]) {}
  int ncomp() const { return int(data.extent(0)); }
  Array4 array() const { return {data, box.lo}; }
};

/// Values the fabs over `boxes` take in one pool (pooled_fabs).
inline size_t pooled_size(const std::vector<Box>& boxes, int ncomp) {
  size_t total = 0;
  for (const Box& b : boxes)
    if (!b.empty()) total += size_t(b.num_cells()) * size_t(ncomp);
  return total;
}

/// The room a field's storage gets, and the storage it takes, for `need` values
/// (pooled_fabs). A field that replaces another (a regrid's) takes its storage while it
/// holds what is needed and at most half more; otherwise that storage is freed and the
/// new one has a quarter more room than needed. A level whose size swings by a few
/// tenths from regrid to regrid (a finest level following a moving feature) then keeps
/// its memory instead of freeing it and faulting fresh pages in at the next regrid, and
/// one that shrinks below two thirds of its room, or leaves the rank, gives it back.
inline size_t storage_room(size_t need) {
  return need + need / 4;
}
inline bool storage_fits(size_t offered, size_t need) {
  return need <= offered && offered <= need + need / 2;
}

/// Uninitialized fabs over `boxes` (empty fabs where a box is empty: a patch another rank
/// owns), all in the one allocation returned, which must outlive them (they do not own
/// their memory): a level's hundreds of small fabs cost one allocation at a regrid, not
/// hundreds (each an allocation record, and beyond glibc's mmap threshold a system call).
/// `reuse`, storage nothing else uses any more, is taken instead of a new allocation
/// where storage_fits; otherwise it is freed first and the new allocation gets
/// storage_room (a field that replaces none gets what it needs).
inline Kokkos::View<double*> pooled_fabs(const std::string& label,
                                         const std::vector<Box>& boxes, int ncomp,
                                         std::vector<Fab>& fabs,
                                         Kokkos::View<double*> reuse = {}) {
  const size_t total = pooled_size(boxes, ncomp);
  const size_t offered = reuse.extent(0);
  Kokkos::View<double*> pool = reuse;
  if (!storage_fits(offered, total)) {
    const size_t room = offered > 0 ? storage_room(total) : total;
    pool = reuse = Kokkos::View<double*>();  // free before allocating anew
    pool = Kokkos::View<double*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                 room);
  }
  fabs.assign(boxes.size(), Fab());
  size_t offset = 0;
  for (size_t n = 0; n < boxes.size(); ++n) {
    const Box& b = boxes[n];
    if (b.empty()) continue;
    fabs[n].box = b;
    fabs[n].data =
        View4(pool.data() + offset, ncomp, b.size()[2], b.size()[1], b.size()[0]);
    offset += size_t(b.num_cells()) * size_t(ncomp);
  }
  return pool;
}

/// Components first .. first + n - 1 of each of `fabs` (an empty fab stays empty), as
/// fabs aliasing its memory, which must outlive them: a copy that takes one field of a
/// state of many components then reads it where it is, with no copy of its own.
inline std::vector<Fab> component_window(const std::vector<Fab>& fabs, int first, int n) {
  std::vector<Fab> window(fabs.size());
  for (size_t p = 0; p < fabs.size(); ++p) {
    const Fab& f = fabs[p];
    if (f.data.size() == 0) continue;
    if (first < 0 || n < 1 || first + n > f.ncomp())
      throw std::logic_error("component_window: components beyond the fab's");
    const size_t cells = f.data.size() / size_t(f.ncomp());
    window[p].box = f.box;
    window[p].data = View4(f.data.data() + size_t(first) * cells, n, f.data.extent(1),
                           f.data.extent(2), f.data.extent(3));
  }
  return window;
}

/// pool(0 .. n - 1) = value, in one launch labelled `label`. A kernel, not deep_copy: on
/// host backends Kokkos 4 fills with one thread's memset, which would also place every
/// page on that thread's NUMA domain (first touch).
inline void fill_pool(const char* label, const Kokkos::View<double*>& pool, long n,
                      double value) {
  if (n == 0) return;  // no launch on ranks that own none
  double* p = pool.data();
  Kokkos::parallel_for(
      label,
      Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::IndexType<long>>(0, n),
      KOKKOS_LAMBDA(long i) { p[i] = value; });
}

/// pooled_fabs with every value 0.
inline Kokkos::View<double*> zeroed_fabs(const std::string& label,
                                         const std::vector<Box>& boxes, int ncomp,
                                         std::vector<Fab>& fabs,
                                         Kokkos::View<double*> reuse = {}) {
  Kokkos::View<double*> pool = pooled_fabs(label, boxes, ncomp, fabs, std::move(reuse));
  fill_pool("zeroed_fabs", pool, long(pooled_size(boxes, ncomp)), 0.0);
  return pool;
}

/// The iteration policy over cells (k, j, i): signed indices, since ghost cells left of
/// the origin are negative (the default index type of some backends is unsigned).
using CellPolicy = Kokkos::MDRangePolicy<Kokkos::Rank<3, Kokkos::Iterate::Right>,
                                         Kokkos::IndexType<int>>;

inline CellPolicy cell_policy(const Box& b) {
  return CellPolicy({b.lo[2], b.lo[1], b.lo[0]}, {b.hi[2] + 1, b.hi[1] + 1, b.hi[0] + 1});
}

/// Launch f(i, j, k) over every cell of `b` (i fastest).
template <class F>
void for_each_cell(const std::string& label, const Box& b, const F& f) {
  if (b.empty()) return;
  Kokkos::parallel_for(
      label, cell_policy(b), KOKKOS_LAMBDA(int k, int j, int i) { f(i, j, k); });
}

/// Sum of g(i, j, k) over every cell of `b`.
template <class G>
double sum_over_cells(const std::string& label, const Box& b, const G& g) {
  double s = 0.0;
  if (b.empty()) return s;
  Kokkos::parallel_reduce(
      label, cell_policy(b),
      KOKKOS_LAMBDA(int k, int j, int i, double& acc) { acc += g(i, j, k); }, s);
  return s;
}

/// Minimum of g(i, j, k) over every cell of `b`.
template <class G>
double min_over_cells(const std::string& label, const Box& b, const G& g) {
  double m = 1e300;
  if (b.empty()) return m;
  Kokkos::parallel_reduce(
      label, cell_policy(b),
      KOKKOS_LAMBDA(int k, int j, int i, double& acc) {
        const double x = g(i, j, k);
        if (x < acc) acc = x;
      },
      Kokkos::Min<double>(m));
  return m;
}

}  // namespace pw
