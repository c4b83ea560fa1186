#include "amr/interpolate.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

#include "amr/interp_kernels.hpp"

namespace pw {
namespace {

void check_gas_run(int n0, int n1) {
  if (n1 - n0 != gas_state_ncomp)
    throw std::logic_error("Interp::gas_state is for runs of " +
                           std::to_string(gas_state_ncomp) + " components, got " +
                           std::to_string(n1 - n0));
}

}  // namespace

void interpolate_to_fine(const Fab& crse, Fab& fine, const Box& box, const IntVect& ratio,
                         int dim, Interp kind, int c0, int c1) {
  const Array4 c = crse.array();
  const Array4 f = fine.array();
  const int n0 = c0, n1 = c1 < 0 ? fine.ncomp() : c1;
  const IntVect r = ratio;
  const Box b = box;
  const Box cells = coarsen(box, ratio);
  if (kind == Interp::gas_state) {
    check_gas_run(n0, n1);
    for_each_cell(
        "amr::interpolate_gas_state", cells, KOKKOS_LAMBDA(int i, int j, int k) {
          if (dim == 3)
            interp_gas_cell<3>(c, f, i, j, k, n0, r, b);
          else
            interp_gas_cell<2>(c, f, i, j, k, n0, r, b);
        });
    return;
  }
  if (kind == Interp::quadratic) {
    for_each_cell(
        "amr::interpolate_quadratic", cells, KOKKOS_LAMBDA(int i, int j, int k) {
          for (int n = n0; n < n1; ++n)
            interp_quadratic_cell(c, f, i, j, k, n, r, dim, b);
        });
    return;
  }
  const bool limit = kind == Interp::conservative_linear;
  for_each_cell(
      "amr::interpolate_to_fine", cells, KOKKOS_LAMBDA(int i, int j, int k) {
        for (int n = n0; n < n1; ++n)
          interp_coarse_cell(c, f, i, j, k, n, r, dim, b, limit);
      });
}

void interpolate_to_fine(const Fab& crse, Fab& fine, const Box& box, const IntVect& ratio,
                         int dim, const std::vector<Interp>& interp) {
  const int nc = fine.ncomp();
  for (int c0 = 0; c0 < nc;) {
    int c1 = c0 + 1;
    while (c1 < nc && interp[size_t(c1)] == interp[size_t(c0)])
      ++c1;
    interpolate_to_fine(crse, fine, box, ratio, dim, interp[size_t(c0)], c0, c1);
    c0 = c1;
  }
}

void average_to_coarse(const Fab& fine, Fab& crse, const Box& cbox,
                       const IntVect& ratio) {
  const FabRef f = fab_ref(fine.array()), c = fab_ref(crse.array());
  const int nc = crse.ncomp();
  const IntVect r = ratio;
  for_each_cell(
      "amr::average_to_coarse", cbox, KOKKOS_LAMBDA(int i, int j, int k) {
        for (int n = 0; n < nc; ++n)
          average_row(f, c, j, k, i, i, n, r);
      });
}

// Device lambdas live in free functions of a named namespace (CUDA's rule).
namespace interp_detail {

template <class R>
void average_pieces(const StructArray<FabRef>& fine, const StructArray<FabRef>& crse,
                    const StructArray<AveragePiece>& pieces, const BoxSet& cells,
                    double* buf, const R& r, int nc) {
  for_each_box_row(
      "amr::average_to_coarse", cells,
      KOKKOS_LAMBDA(int n, int j, int k, int i0, int i1) {
        const AveragePiece pc = pieces(n);
        const FabRef f = fine(pc.fine);
        // A piece for another rank: its cells as a fab over its box in the buffer.
        const FabRef c = pc.crse >= 0 ? crse(pc.crse)
                                      : FabRef{field_over(buf + pc.buf_cell * nc, pc.box),
                                               pc.box.num_cells()};
        for (int q = 0; q < nc; ++q)
          average_row(f, c, j, k, i0, i1, q, r);
      });
}

/// The arguments of an interpolation over many regions.
struct Regions {
  StructArray<FabRef> crse, fine;
  StructArray<FineRegion> regions;
  BoxSet cells;
  int n0, n1;  // components [n0, n1)
  bool limit;  // linear kinds: MC-limited slopes
};

/// f(std::integral_constant<int, DIM>, r) with r the ratio as a FixedRatio for the usual
/// ratios, whose loops over a coarse cell's fine cells then unroll (the coarse-fine
/// interpolation was 9% of the 3D benchmark's time with the ratio read at run time),
/// else as the IntVect.
template <class F>
void with_ratio(int dim, const IntVect& ratio, const F& f) {
  using D2 = std::integral_constant<int, 2>;
  using D3 = std::integral_constant<int, 3>;
  if (dim == 3 && ratio == IntVect{2, 2, 2})
    f(D3{}, FixedRatio<2, 2, 2>{});
  else if (dim == 2 && ratio == IntVect{2, 2, 1})
    f(D2{}, FixedRatio<2, 2, 1>{});
  else if (dim == 3 && ratio == IntVect{4, 4, 4})
    f(D3{}, FixedRatio<4, 4, 4>{});
  else if (dim == 2 && ratio == IntVect{4, 4, 1})
    f(D2{}, FixedRatio<4, 4, 1>{});
  else if (dim == 3)
    f(D3{}, ratio);
  else
    f(D2{}, ratio);
}

/// Linear interpolation with ratio r, a FixedRatio (loops unrolled) or an IntVect: the
/// coarse cells whose fine cells all lie in their region take interp_whole_block, the
/// others (a region thinner than a coarse cell) interp_coarse_cell.
template <int DIM, class R>
void interpolate_linear(const Regions& a, const R& r) {
  const auto crse = a.crse, fine = a.fine;
  const auto regions = a.regions;
  const int n0 = a.n0, n1 = a.n1;
  const bool limit = a.limit;
  const IntVect rv{r[0], r[1], r[2]};
  for_each_box_cell(
      "amr::interpolate_to_fine", a.cells, KOKKOS_LAMBDA(int n, int i, int j, int k) {
        const FineRegion g = regions(n);
        const IntVect lo{i * r[0], j * r[1], k * r[2]};
        const IntVect hi{lo[0] + r[0] - 1, lo[1] + r[1] - 1, lo[2] + r[2] - 1};
        const bool whole = g.box.contains(lo) && g.box.contains(hi);
        for (int m = n0; m < n1; ++m) {
          if (whole)
            interp_whole_block<DIM>(crse(g.patch), fine(g.patch), i, j, k, m, r, limit);
          else
            interp_coarse_cell(crse(g.patch), fine(g.patch), i, j, k, m, rv, DIM, g.box,
                               limit);
        }
      });
}

/// As interpolate_linear, for gas states: whole blocks through interp_gas_block, the
/// others through interp_gas_cell.
template <int DIM, class R>
void interpolate_gas(const Regions& a, const R& r) {
  const auto crse = a.crse, fine = a.fine;
  const auto regions = a.regions;
  const int n0 = a.n0;
  const IntVect rv{r[0], r[1], r[2]};
  for_each_box_cell(
      "amr::interpolate_gas_state", a.cells, KOKKOS_LAMBDA(int n, int i, int j, int k) {
        const FineRegion g = regions(n);
        const IntVect lo{i * r[0], j * r[1], k * r[2]};
        const IntVect hi{lo[0] + r[0] - 1, lo[1] + r[1] - 1, lo[2] + r[2] - 1};
        if (g.box.contains(lo) && g.box.contains(hi))
          interp_gas_block<DIM>(crse(g.patch), fine(g.patch), i, j, k, n0, r);
        else
          interp_gas_cell<DIM>(crse(g.patch), fine(g.patch), i, j, k, n0, rv, g.box);
      });
}

}  // namespace interp_detail

void interpolate_regions(const StructArray<FabRef>& crse, const StructArray<FabRef>& fine,
                         const StructArray<FineRegion>& regions, const BoxSet& cells,
                         const IntVect& ratio, int dim, const std::vector<Interp>& interp,
                         int nc) {
  using namespace interp_detail;
  const IntVect r = ratio;
  for (int c0 = 0; c0 < nc;) {
    int c1 = c0 + 1;
    while (c1 < nc && interp[size_t(c1)] == interp[size_t(c0)])
      ++c1;
    const int n0 = c0, n1 = c1;
    const Interp kind = interp[size_t(c0)];
    c0 = c1;
    if (kind == Interp::quadratic) {
      for_each_box_cell(
          "amr::interpolate_quadratic", cells, KOKKOS_LAMBDA(int n, int i, int j, int k) {
            const FineRegion g = regions(n);
            for (int m = n0; m < n1; ++m)
              interp_quadratic_cell(crse(g.patch), fine(g.patch), i, j, k, m, r, dim,
                                    g.box);
          });
      continue;
    }
    if (kind == Interp::gas_state) {
      check_gas_run(n0, n1);
      const Regions gas{crse, fine, regions, cells, n0, n1, true};
      with_ratio(dim, ratio, [&](auto d, const auto& r) {
        interpolate_gas<decltype(d)::value>(gas, r);
      });
      continue;
    }
    const Regions lin{
        crse, fine, regions, cells, n0, n1, kind == Interp::conservative_linear};
    with_ratio(dim, ratio, [&](auto d, const auto& r) {
      interpolate_linear<decltype(d)::value>(lin, r);
    });
  }
}

void average_to_coarse(const StructArray<FabRef>& fine, const StructArray<FabRef>& crse,
                       const StructArray<AveragePiece>& pieces, const BoxSet& cells,
                       double* buf, const IntVect& ratio, int nc) {
  using interp_detail::average_pieces;
  // The usual ratios with their loops unrolled (3.6% of the 3D benchmark's time with the
  // ratio read at run time).
  if (ratio == IntVect{2, 2, 2})
    return average_pieces(fine, crse, pieces, cells, buf, FixedRatio<2, 2, 2>{}, nc);
  if (ratio == IntVect{2, 2, 1})
    return average_pieces(fine, crse, pieces, cells, buf, FixedRatio<2, 2, 1>{}, nc);
  if (ratio == IntVect{4, 4, 4})
    return average_pieces(fine, crse, pieces, cells, buf, FixedRatio<4, 4, 4>{}, nc);
  if (ratio == IntVect{4, 4, 1})
    return average_pieces(fine, crse, pieces, cells, buf, FixedRatio<4, 4, 1>{}, nc);
  average_pieces(fine, crse, pieces, cells, buf, ratio, nc);
}

}  // namespace pw
