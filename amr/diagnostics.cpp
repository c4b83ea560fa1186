#include "amr/diagnostics.hpp"

#include <fmt/format.h>

#include <cmath>

namespace pw {

namespace {

KOKKOS_INLINE_FUNCTION std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

KOKKOS_INLINE_FUNCTION std::uint64_t bits_of(double v) {
  union {
    double d;
    std::uint64_t u;
  } b;
  b.d = v;
  return b.u;
}

}  // namespace

std::vector<double> component_totals(const Hierarchy& h) {
  const Level& L = h.level(0);
  const double vol = L.geom.cell_volume();
  std::vector<double> totals(size_t(h.ncomp()), 0.0);
  for (size_t p = 0; p < L.layout.size(); ++p) {
    if (!L.owns(int(p), h.comm().rank())) continue;
    const Array4 u = L.u_new[p].array();
    for (int c = 0; c < h.ncomp(); ++c)
      totals[size_t(c)] +=
          vol * sum_over_cells(
                    "diagnostics::total", L.layout.boxes[p],
                    KOKKOS_LAMBDA(int i, int j, int k) { return u(i, j, k, c); });
  }
  return h.comm().sum(totals);
}

std::uint64_t fingerprint(const Hierarchy& h) {
  std::uint64_t local = 0;
  for (int l = 0; l <= h.finest_level(); ++l) {
    const Level& L = h.level(l);
    for (size_t p = 0; p < L.layout.size(); ++p) {
      if (!L.owns(int(p), h.comm().rank())) continue;
      const Box b = L.layout.boxes[p];
      const Array4 u = L.u_new[p].array();
      for (int c = 0; c < h.ncomp(); ++c) {
        const std::uint64_t key = splitmix64(std::uint64_t(l) * 1024 + std::uint64_t(c));
        std::uint64_t s = 0;
        Kokkos::parallel_reduce(
            "diagnostics::fingerprint", cell_policy(b),
            KOKKOS_LAMBDA(int k, int j, int i, std::uint64_t& acc) {
              std::uint64_t x = splitmix64(key ^ std::uint64_t(std::uint32_t(k)));
              x = splitmix64(x ^ std::uint64_t(std::uint32_t(j)));
              x = splitmix64(x ^ std::uint64_t(std::uint32_t(i)));
              acc += splitmix64(x ^ bits_of(u(i, j, k, c)));
            },
            s);
        local += s;
      }
    }
  }
  return h.comm().sum(local);
}

void check_finite(const Hierarchy& h, const std::vector<std::string>& names, int step) {
  // The first bad (level, patch, component) as one key that a min-reduction agrees on:
  // 7 + 26 + 20 bits, exact in a double.
  const double none = std::ldexp(1.0, 53);
  double first = none;
  for (int l = 0; l <= h.finest_level() && first == none; ++l) {
    const Level& L = h.level(l);
    for (size_t p = 0; p < L.layout.size() && first == none; ++p) {
      if (!L.owns(int(p), h.comm().rank())) continue;
      const Array4 u = L.u_new[p].array();
      const int nc = h.ncomp();
      int bad = nc;
      // x - x is 0 for every finite x, NaN for NaN and for an infinity.
      Kokkos::parallel_reduce(
          "diagnostics::check_finite", cell_policy(L.layout.boxes[p]),
          KOKKOS_LAMBDA(int k, int j, int i, int& acc) {
            for (int c = 0; c < nc && c < acc; ++c)
              if (!(u(i, j, k, c) - u(i, j, k, c) == 0.0)) acc = c;
          },
          Kokkos::Min<int>(bad));
      if (bad < nc)
        first = std::ldexp(double(l), 46) + std::ldexp(double(p), 20) + double(bad);
    }
  }
  first = h.comm().min(first);
  if (first == none) return;
  const auto key = static_cast<std::uint64_t>(first);
  const int l = int(key >> 46), p = int((key >> 20) & ((1u << 26) - 1)),
            c = int(key & ((1u << 20) - 1));
  throw RunFailure(fmt::format(
      "the state is not finite after step {}: level {}, patch {} {}, component {} holds "
      "a NaN or an infinity",
      step, l, p, to_string(h.level(l).layout.boxes[size_t(p)]),
      c < int(names.size()) ? names[size_t(c)] : std::to_string(c)));
}

}  // namespace pw
