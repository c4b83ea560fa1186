// Self-gravity's kick, the hydro update's scratch size, and the update's dispatch to the
// kernels of the run's dimension (hydro_update.hpp).
#include "physics/hydro_update.hpp"

namespace pw {

namespace hydro_detail {

template <int DIM>
void gravity_kick(const LevelGeom& g, const BoxSet& cells,
                  const StructArray<FabRef>& u_refs, const StructArray<FabRef>& phi_refs,
                  double dt, int keep) {
  const double c[3] = {0.5 * dt / g.dx[0], 0.5 * dt / g.dx[1], 0.5 * dt / g.dx[2]};
  for_each_box_row(
      "hydro::gravity_kick", cells, KOKKOS_LAMBDA(int p, int j, int k, int i0, int i1) {
        const FabRef u = u_refs(p);
        const Field3 phi = phi_refs(p).comp(0);
        PW_INDEPENDENT_ITERATIONS
        for (int i = i0; i <= i1; ++i) {
          double q[nbase];
          for (int v = 0; v < nbase; ++v)
            q[v] = u(i, j, k, v);
          const double ke = kinetic(q);
          for (int d = 0; d < DIM; ++d) {
            const int di = d == 0, dj = d == 1, dk = d == 2;
            q[mom + d] -= c[d] * q[rho] *
                          (phi(i + di, j + dj, k + dk) - phi(i - di, j - dj, k - dk));
            u(i, j, k, mom + d) = q[mom + d];
          }
          u(i, j, k, energy) = q[energy] + kinetic(q) - ke;
          u(i, j, k, keep) = phi(i, j, k);
        }
      });
}

}  // namespace hydro_detail

using namespace hydro_detail;

void hydro_gravity_kick(int dim, const LevelGeom& g, const BoxSet& cells,
                        const StructArray<FabRef>& u, const StructArray<FabRef>& phi,
                        double dt, int keep) {
  if (dim == 2) {
    gravity_kick<2>(g, cells, u, phi, dt, keep);
  } else {
    gravity_kick<3>(g, cells, u, phi, dt, keep);
  }
}

long hydro_scratch_size(const HydroParams& hp, int dim, const Box& box) {
  return dim == 2 ? scratch_doubles<2>(box, hp.nvars())
                  : scratch_doubles<3>(box, hp.nvars());
}

void hydro_advance(const HydroParams& hp, int dim, const LevelGeom& g,
                   const UpdateRefs& refs, long doubles, double dt,
                   const Counters& counters) {
  if (dim == 2) {
    advance_dispatch<2>(hp, g, refs, doubles, dt, counters);
  } else {
    advance_dispatch<3>(hp, g, refs, doubles, dt, counters);
  }
}

}  // namespace pw
