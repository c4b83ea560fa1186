// Sums whose bits do not depend on the order of the terms (so not on how a level is cut
// into patches, which rank owns them, or how many threads reduce them): each term is cut
// into three integer pieces on a grid fixed by a power of two no smaller than any |term|,
// and integers add exactly. The result is the sum rounded once (the terms' bits below
// 2^-93 of that power of two are dropped, the same for every order). A term that is not
// finite (or above the power of two) is counted apart and makes the sum NaN: converting
// it to an integer would be undefined.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "amr/comm.hpp"

namespace pw {

struct ExactSum {
  static constexpr int kBad = 3;    // p[kBad]: the count of bad terms
  static constexpr int kParts = 4;  // three pieces, and that count
  std::int64_t p[kParts] = {0, 0, 0, 0};

  KOKKOS_INLINE_FUNCTION ExactSum& operator+=(const ExactSum& o) {
    for (int n = 0; n < kParts; ++n)
      p[n] += o.p[n];
    return *this;
  }
  /// Add x, scaled by inv_scale = 2^-E with 2^E >= |x|. At most 2^31 terms.
  KOKKOS_INLINE_FUNCTION void add(double x, double inv_scale) {
    double y = x * inv_scale;        // |y| <= 1, exact (a power of two)
    if (!(y >= -1.0 && y <= 1.0)) {  // NaN, an infinity, or beyond the scale
      p[kBad] += 1;
      return;
    }
    const double step[3] = {2147483648.0, 4611686018427387904.0, 9.9035203142830422e27};
    for (int n = 0; n < 3; ++n) {
      const std::int64_t q = std::int64_t(y * step[n]);  // toward zero, |q| <= 2^31
      p[n] += q;
      y -= double(q) / step[n];  // exact: the bits of y below this piece's grid
    }
  }
  /// The sum, times the scale 2^E (NaN if a term was bad).
  double value(double scale) const {
    if (bad()) return std::numeric_limits<double>::quiet_NaN();
    return good_value(scale);
  }
  /// Whether a term was bad; value() without that test, for kernels (which pass their
  /// own NaN: device code has no std::numeric_limits).
  KOKKOS_INLINE_FUNCTION bool bad() const { return p[kBad] != 0; }
  KOKKOS_INLINE_FUNCTION double good_value(double scale) const {
    return (double(p[0]) / 2147483648.0 + double(p[1]) / 4611686018427387904.0 +
            double(p[2]) / 9.9035203142830422e27) *
           scale;
  }
};

/// The least power of two above |x|, 2^e with x = m 2^e, 0.5 <= m < 1 (1 for 0 or a
/// non-finite x; infinity above the largest power of two). By doubling and halving,
/// not frexp, so that kernels take it too: steps of 2^32, then of 2.
KOKKOS_INLINE_FUNCTION double power_of_two_above(double x) {
  if (x < 0) x = -x;
  if (!(x > 0) || !(x <= 1.7976931348623157e308)) return 1.0;
  const double big = 4294967296.0, small = 1.0 / big;
  double s = 1.0;
  if (x >= 1.0) {
    while (s * big <= x)
      s *= big;  // an overflow to infinity ends it
    while (s <= x)
      s *= 2.0;
  } else {
    while (s * small > x)
      s *= small;  // exact down to 2^-1074, then 0 ends it
    while (s * 0.5 > x)
      s *= 0.5;
  }
  return s;
}

/// The pieces and the bad terms' count summed over every rank (exact, so the same on
/// every rank).
inline ExactSum all_ranks(const ExactSum& mine, const Comm& comm) {
  ExactSum out;
  MPI_Allreduce(mine.p, out.p, ExactSum::kParts, MPI_INT64_T, MPI_SUM, comm.raw());
  return out;
}

}  // namespace pw

namespace Kokkos {
template <>
struct reduction_identity<pw::ExactSum> {
  KOKKOS_FORCEINLINE_FUNCTION static pw::ExactSum sum() { return pw::ExactSum(); }
};
}  // namespace Kokkos
