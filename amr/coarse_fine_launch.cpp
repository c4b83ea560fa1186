#include "amr/coarse_fine_launch.hpp"

#include "amr/interp_kernels.hpp"
#include "amr/patch_teams.hpp"

namespace pw {

// Device lambdas live in free functions of a named namespace (CUDA's rule).
namespace cf_detail {

/// f's components from c on.
KOKKOS_INLINE_FUNCTION FabRef components_from(FabRef f, int c) {
  if (f.c0.p != nullptr) f.c0.p += c * f.cstride;
  return f;
}

template <int DIM, class R>
void launch(const CoarseFineLaunch& a, const R& r) {
  const int teams = int(a.patches.extent(0));
  for_each_team(
      "amr::coarse_fine_fill", teams, 0,
      KOKKOS_LAMBDA(const TeamMember& m, int n, double*) {
        const int p = a.patches(n);
        const FabRef s = a.scratch(p);
        const int nc = a.nc, cc = a.crse_comp;
        // CopyPlan's on-rank copies and unpacking, through its device
        // function: the same values.
        for (int q = a.first(p); q < a.first(p + 1); ++q) {
          const CopyPlan::Piece pc = a.pieces(q);
          const bool on_rank = pc.from >= 0;
          const FabRef x = on_rank ? components_from(a.x(pc.from), cc) : FabRef{};
          const FabRef y =
              on_rank && a.blend ? components_from(a.y(pc.from), cc) : FabRef{};
          double* const buf = on_rank ? nullptr : a.received + pc.buf_cell * nc;
          team_copy_piece(m, pc, x, y, s, buf, a.w, nc, -1);
        }
        m.team_barrier();
        if (a.walls) team_fill_fab_walls(m, a.geom, a.faces, nc, s, a.scratch_boxes(p));
        const FabRef f = a.fine(p);
        // A run of components at a time, each kind its own code.
        for (int u = 0; u < a.nruns; ++u) {
          const InterpRun run = a.runs(u);
          with_kind(run.kind, [&](auto kind) {
            constexpr Interp K = decltype(kind)::value;
            team_set_rows(m, a.cells, a.cells_of_patch(p),
                          [&](int g, int j, int k, int i0, int i1) {
                            const Box region = a.regions(g).box;
                            for (int i = i0; i <= i1; ++i)
                              interp_region_cell<DIM, K>(s, f, region, i, j, k, run.n0,
                                                         run.n1, r);
                          });
          });
        }
      });
}

}  // namespace cf_detail

void coarse_fine_launch(const CoarseFineLaunch& a) {
  if (a.patches.extent(0) == 0) return;
  with_ratio(a.geom.dim, a.ratio,
             [&](auto d, const auto& r) { cf_detail::launch<decltype(d)::value>(a, r); });
}

}  // namespace pw
