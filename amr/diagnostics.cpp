#include "amr/diagnostics.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

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

namespace {

/// Whether a value of level L's interiors (on this rank) is not finite: an OR over each
/// row with no early return, which vectorizes (the search in check_finite, which stops
/// at a row's first bad value, does not: scanning every level each step it took 2.85%
/// of the 3D benchmark's samples).
int any_not_finite(const Level& L, long nc) {
  const StructArray<FabRef> u = L.u_new.refs();
  return reduce_over_box_rows<int, Kokkos::BOr<int>>(
      "diagnostics::any_not_finite", L.u_new.interiors(),
      KOKKOS_LAMBDA(int& acc, int p, int j, int k, int i0, int i1) {
        int flag = 0;
        for (long c = 0; c < nc; ++c) {
          const double* row = &u(p)(i0, j, k, int(c));
          for (int i = 0; i <= i1 - i0; ++i)
            flag |= int(!(row[i] - row[i] == 0.0));
        }
        acc |= flag;
      });
}

}  // namespace

void check_finite(const Hierarchy& h, const std::vector<std::string>& names, int step,
                  bool synced) {
  const long nc = h.ncomp();
  // Synced, level 0 holds the average of every finer cell, through the levels between,
  // and a NaN or an infinity anywhere makes its average one: level 0 alone decides
  // whether to search (the search below reports level 0 first all the same).
  if (synced && h.comm().max(double(any_not_finite(h.level(0), nc))) == 0) return;
  // The first bad (level, patch, component) as one key that a min-reduction agrees on:
  // 7 + 26 + 20 bits, exact in a double.
  const double none = std::ldexp(1.0, 53);
  double first = none;
  for (int l = 0; l <= h.finest_level() && first == none; ++l) {
    const Level& L = h.level(l);
    const StructArray<FabRef> u = L.u_new.refs();
    const int any = any_not_finite(L, nc);
    if (any == 0) continue;
    const long clean = std::numeric_limits<long>::max();
    // One reduction over the level: the least patch * nc + component that holds a
    // non-finite value (x - x is 0 for every finite x, NaN for NaN and an infinity).
    const long bad = reduce_over_box_cells<long, Kokkos::Min<long>>(
        "diagnostics::check_finite", L.u_new.interiors(),
        KOKKOS_LAMBDA(long& acc, long v) { acc = v < acc ? v : acc; },
        KOKKOS_LAMBDA(int p, int i, int j, int k) {
          for (long c = 0; c < nc; ++c)
            if (!(u(p)(i, j, k, int(c)) - u(p)(i, j, k, int(c)) == 0.0))
              return p * nc + c;
          return clean;
        });
    if (bad != clean)
      first =
          std::ldexp(double(l), 46) + std::ldexp(double(bad / nc), 20) + double(bad % nc);
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
