// IntVect: a 3-component integer index. 2D runs use z = 0 (extent 1), so one code path
// serves both.
#pragma once

// Only the macros (KOKKOS_INLINE_FUNCTION), not Kokkos_Core.hpp: host-only code includes
// this through Box, and compiles much faster without Kokkos's headers under nvcc.
#include <Kokkos_Macros.hpp>

#include <ostream>

namespace pw {

struct IntVect {
  int v[3] = {0, 0, 0};

  constexpr IntVect() = default;  // host and device alike (nvcc ignores annotations)
  KOKKOS_INLINE_FUNCTION constexpr IntVect(int x, int y, int z) : v{x, y, z} {}
  KOKKOS_INLINE_FUNCTION static constexpr IntVect uniform(int a) { return {a, a, a}; }
  /// Unit vector along direction d.
  KOKKOS_INLINE_FUNCTION static constexpr IntVect unit(int d) {
    return {d == 0 ? 1 : 0, d == 1 ? 1 : 0, d == 2 ? 1 : 0};
  }
  /// a in the first `dim` directions and `rest` beyond (e.g. ghost widths (g, g, 0) in
  /// 2D).
  KOKKOS_INLINE_FUNCTION static constexpr IntVect in_dims(int dim, int a, int rest) {
    return {a, dim > 1 ? a : rest, dim > 2 ? a : rest};
  }

  KOKKOS_INLINE_FUNCTION constexpr int& operator[](int d) { return v[d]; }
  KOKKOS_INLINE_FUNCTION constexpr int operator[](int d) const { return v[d]; }

  KOKKOS_INLINE_FUNCTION constexpr IntVect operator+(const IntVect& o) const {
    return {v[0] + o[0], v[1] + o[1], v[2] + o[2]};
  }
  KOKKOS_INLINE_FUNCTION constexpr IntVect operator-(const IntVect& o) const {
    return {v[0] - o[0], v[1] - o[1], v[2] - o[2]};
  }
  KOKKOS_INLINE_FUNCTION constexpr IntVect operator*(const IntVect& o) const {
    return {v[0] * o[0], v[1] * o[1], v[2] * o[2]};
  }
  KOKKOS_INLINE_FUNCTION constexpr IntVect operator*(int a) const {
    return {v[0] * a, v[1] * a, v[2] * a};
  }
  KOKKOS_INLINE_FUNCTION constexpr bool operator==(const IntVect& o) const {
    return v[0] == o[0] && v[1] == o[1] && v[2] == o[2];
  }
  KOKKOS_INLINE_FUNCTION constexpr bool operator!=(const IntVect& o) const {
    return !(*this == o);
  }
  /// Lexicographic order with z most significant, matching the (k, j, i) storage order.
  constexpr bool operator<(const IntVect& o) const {
    for (int d = 2; d >= 0; --d)
      if (v[d] != o[d]) return v[d] < o[d];
    return false;
  }
  KOKKOS_INLINE_FUNCTION constexpr long product() const {
    return long(v[0]) * long(v[1]) * long(v[2]);
  }
};

/// Floor division, correct for negative numerators (coarsening of indices left of the
/// origin).
KOKKOS_INLINE_FUNCTION constexpr int floor_div(int a, int b) {
  return (a >= 0) ? a / b : -((-a + b - 1) / b);
}

KOKKOS_INLINE_FUNCTION constexpr IntVect coarsen(const IntVect& p, const IntVect& r) {
  return {floor_div(p[0], r[0]), floor_div(p[1], r[1]), floor_div(p[2], r[2])};
}

KOKKOS_INLINE_FUNCTION constexpr IntVect min(const IntVect& a, const IntVect& b) {
  return {a[0] < b[0] ? a[0] : b[0], a[1] < b[1] ? a[1] : b[1],
          a[2] < b[2] ? a[2] : b[2]};
}
KOKKOS_INLINE_FUNCTION constexpr IntVect max(const IntVect& a, const IntVect& b) {
  return {a[0] > b[0] ? a[0] : b[0], a[1] > b[1] ? a[1] : b[1],
          a[2] > b[2] ? a[2] : b[2]};
}

inline std::ostream& operator<<(std::ostream& os, const IntVect& p) {
  return os << '(' << p[0] << ',' << p[1] << ',' << p[2] << ')';
}

}  // namespace pw
