// Device math for kernels: Kokkos moved these out of Experimental in 3.7 and removed the
// Experimental names in 4.0.
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
}  // namespace pw::kmath
