// Device math for kernels: Kokkos moved these out of Experimental in 3.7 and removed the
// Experimental names in 4.0; and abs, min, max as selects.
#pragma once

#include <Kokkos_Core.hpp>

namespace pw::kmath {
#if KOKKOS_VERSION >= 30700
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::floor;
using Kokkos::pow;
using Kokkos::sin;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::floor;
using Kokkos::Experimental::pow;
using Kokkos::Experimental::sin;
using Kokkos::Experimental::sqrt;
#endif
constexpr double pi = 3.14159265358979323846;

/// |a|, min and max as selects: no branch for a GPU warp to diverge on, nothing a
/// vectorizer must if-convert, no library call. abs keeps the sign of -0 and of NaN, as
/// a < 0 ? -a : a does, written as a comparison with -a: one max instruction on x86.
KOKKOS_FORCEINLINE_FUNCTION double abs(double a) {
  return a < -a ? -a : a;
}
KOKKOS_FORCEINLINE_FUNCTION double min(double a, double b) {
  return a < b ? a : b;
}
KOKKOS_FORCEINLINE_FUNCTION double max(double a, double b) {
  return a > b ? a : b;
}
}  // namespace pw::kmath
