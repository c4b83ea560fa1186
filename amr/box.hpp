// Box: a cell-centred index region [lo, hi] (inclusive), the unit of all index
// arithmetic.
#pragma once

#include <string>

#include "amr/int_vect.hpp"

namespace pw {

struct Box {
  IntVect lo{0, 0, 0};
  IntVect hi{-1, -1, -1};  // default box is empty

  constexpr Box() = default;  // host and device alike (nvcc ignores annotations)
  KOKKOS_INLINE_FUNCTION constexpr Box(IntVect l, IntVect h) : lo(l), hi(h) {}

  KOKKOS_INLINE_FUNCTION constexpr bool empty() const {
    return hi[0] < lo[0] || hi[1] < lo[1] || hi[2] < lo[2];
  }
  KOKKOS_INLINE_FUNCTION constexpr IntVect size() const {
    return empty() ? IntVect{0, 0, 0} : hi - lo + IntVect::uniform(1);
  }
  KOKKOS_INLINE_FUNCTION constexpr long num_cells() const { return size().product(); }
  KOKKOS_INLINE_FUNCTION constexpr bool contains(const IntVect& p) const {
    return p[0] >= lo[0] && p[0] <= hi[0] && p[1] >= lo[1] && p[1] <= hi[1] &&
           p[2] >= lo[2] && p[2] <= hi[2];
  }
  KOKKOS_INLINE_FUNCTION constexpr bool contains(const Box& b) const {
    return b.empty() || (contains(b.lo) && contains(b.hi));
  }
  KOKKOS_INLINE_FUNCTION constexpr bool operator==(const Box& o) const {
    return (empty() && o.empty()) || (lo == o.lo && hi == o.hi);
  }
  KOKKOS_INLINE_FUNCTION constexpr bool operator!=(const Box& o) const {
    return !(*this == o);
  }
  /// Order by lo (z most significant) then hi: a canonical order for deterministic box
  /// lists.
  bool operator<(const Box& o) const {
    if (lo != o.lo) return lo < o.lo;
    return hi < o.hi;
  }
  KOKKOS_INLINE_FUNCTION constexpr int longest_dir() const {
    IntVect s = size();
    int d = 0;
    if (s[1] > s[d]) d = 1;
    if (s[2] > s[d]) d = 2;
    return d;
  }
};

KOKKOS_INLINE_FUNCTION constexpr Box operator&(const Box& a, const Box& b) {
  return {max(a.lo, b.lo), min(a.hi, b.hi)};
}
KOKKOS_INLINE_FUNCTION constexpr bool intersects(const Box& a, const Box& b) {
  return !(a & b).empty();
}
KOKKOS_INLINE_FUNCTION constexpr Box grow(const Box& b, const IntVect& g) {
  return {b.lo - g, b.hi + g};
}
KOKKOS_INLINE_FUNCTION constexpr Box grow(const Box& b, int d, int n) {
  return grow(b, IntVect::unit(d) * n);
}
KOKKOS_INLINE_FUNCTION constexpr Box shift(const Box& b, const IntVect& s) {
  return {b.lo + s, b.hi + s};
}
KOKKOS_INLINE_FUNCTION constexpr Box refine(const Box& b, const IntVect& r) {
  return {b.lo * r, (b.hi + IntVect::uniform(1)) * r - IntVect::uniform(1)};
}
/// The coarse cells that hold any part of b.
KOKKOS_INLINE_FUNCTION constexpr Box coarsen(const Box& b, const IntVect& r) {
  return {coarsen(b.lo, r), coarsen(b.hi, r)};
}
/// Bounding box of two boxes.
KOKKOS_INLINE_FUNCTION constexpr Box hull(const Box& a, const Box& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {min(a.lo, b.lo), max(a.hi, b.hi)};
}
/// The faces normal to d of box b, as the index set of the cells on their hi side: face i
/// is between cells i-1 and i, so a box of n cells has n+1 faces.
KOKKOS_INLINE_FUNCTION constexpr Box faces(const Box& b, int d) {
  Box f = b;
  f.hi[d] += 1;
  return f;
}
/// faces(b, d) in rows as long as those of b grown by `pad` cells (pad > 0): in x, the
/// columns of b grown by pad each side (face-centred data with cell data's rows).
KOKKOS_INLINE_FUNCTION constexpr Box padded_faces(const Box& b, int d, int pad) {
  Box f = faces(b, d);
  if (pad > 0) {
    f.lo[0] = b.lo[0] - pad;
    f.hi[0] = b.hi[0] + pad;
  }
  return f;
}
/// The layer of `n` cells just outside b on side `side` (0 = lo, 1 = hi) of direction d.
KOKKOS_INLINE_FUNCTION constexpr Box adjacent_cells(const Box& b, int d, int side,
                                                    int n = 1) {
  Box a = b;
  if (side == 0) {
    a.hi[d] = b.lo[d] - 1;
    a.lo[d] = b.lo[d] - n;
  } else {
    a.lo[d] = b.hi[d] + 1;
    a.hi[d] = b.hi[d] + n;
  }
  return a;
}

std::ostream& operator<<(std::ostream& os, const Box& b);
/// As operator<< prints it.
std::string to_string(const Box& b);

}  // namespace pw
