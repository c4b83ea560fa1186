#include "amr/diagnostics.hpp"

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

}  // namespace pw
