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

std::vector<InterpRun> interp_runs(const std::vector<Interp>& interp, int nc) {
  if (interp.size() < size_t(nc))
    throw std::logic_error("an interpolation for each component expected");
  std::vector<InterpRun> runs;
  for (int c0 = 0; c0 < nc;) {
    int c1 = c0 + 1;
    while (c1 < nc && interp[size_t(c1)] == interp[size_t(c0)])
      ++c1;
    if (interp[size_t(c0)] == Interp::gas_state) check_gas_run(c0, c1);
    runs.push_back({interp[size_t(c0)], c0, c1});
    c0 = c1;
  }
  return runs;
}

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

/// One run of components [n0, n1) of one kind over the regions, one launch (R: the
/// ratio, FixedRatio for the usual ones).
template <int DIM, class R>
void interpolate_run(const char* label, const StructArray<FabRef>& crse,
                     const StructArray<FabRef>& fine,
                     const StructArray<FineRegion>& regions, const BoxSet& cells,
                     Interp kind, int n0, int n1, const R& r) {
  // The kind chosen in the kernel (a branch the whole launch takes alike): with_kind
  // runs on the device, and a host callback through it is refused there.
  for_each_box_cell(
      label, cells, KOKKOS_LAMBDA(int n, int i, int j, int k) {
        const FineRegion g = regions(n);
        with_kind(kind, [&](auto kd) {
          interp_region_cell<DIM, decltype(kd)::value>(crse(g.patch), fine(g.patch),
                                                       g.box, i, j, k, n0, n1, r);
        });
      });
}

}  // namespace interp_detail

void interpolate_regions(const StructArray<FabRef>& crse, const StructArray<FabRef>& fine,
                         const StructArray<FineRegion>& regions, const BoxSet& cells,
                         const IntVect& ratio, int dim, const std::vector<Interp>& interp,
                         int nc) {
  for (const InterpRun& run : interp_runs(interp, nc)) {
    const char* label = run.kind == Interp::quadratic   ? "amr::interpolate_quadratic"
                        : run.kind == Interp::gas_state ? "amr::interpolate_gas_state"
                                                        : "amr::interpolate_to_fine";
    with_ratio(dim, ratio, [&](auto d, const auto& r) {
      interp_detail::interpolate_run<decltype(d)::value>(
          label, crse, fine, regions, cells, run.kind, run.n0, run.n1, r);
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
