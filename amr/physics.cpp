#include "amr/physics.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "amr/update_refs.hpp"

namespace pw {

// Launch helpers are free functions (CUDA's extended lambdas may not live in members).
namespace physics_detail {

/// dt times the fluxes of refs' patches into their level's flux register, a team per
/// patch.
void add_to_register(const UpdateRefs& refs, int dim, double dt) {
  for_each_team(
      "physics::add_fine", refs.n, 0, KOKKOS_LAMBDA(const TeamMember& m, int t, double*) {
        const int p = refs.patch(t);
        const FabRef flux[3] = {refs.flux[0](p), refs.flux[1](p),
                                dim == 3 ? refs.flux[2](p) : FabRef{}};
        refs.reg.add(m, p, flux, dt);
      });
}

}  // namespace physics_detail

void Physics::initial_data(const LevelGeom& g, const Box& box, const Array4& u,
                           double time) const {
  initial_data(g, BoxSet({box}, {0}),
               device_copy("initial data", std::vector{fab_ref(u)}), time);
}

double Physics::stable_dt_level(const LevelGeom& g, const LevelData& u, double time,
                                const Scratch& scratch) const {
  double dt = std::numeric_limits<double>::infinity();
  for (size_t p = 0; p < u.size(); ++p)
    if (u[p].data.size() > 0)
      dt = std::min(dt, stable_dt(g, u.layout().boxes[p], u[p].array(), time, scratch));
  return dt;
}

void Physics::advance_level(const LevelGeom& g, const LevelUpdate& s, double time,
                            double dt, const Counters& counters) const {
  if (!s.flux[0])
    throw std::logic_error(
        "Physics::advance_level: no fluxes to write; a module that keeps them in scratch "
        "(fluxes_in_scratch) updates a level with its own advance_level");
  const auto patches =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.owned().item);
  for (size_t n = 0; n < patches.extent(0); ++n) {
    const size_t p = size_t(patches(n));
    Array4 flux[3];
    for (int d = 0; d < 3; ++d)
      if (s.flux[d]) flux[d] = (*s.flux[d])[p].array();
    advance(g, s.u_old.layout().boxes[p], s.u_old[p].array(), s.u_new[p].array(), flux,
            time, dt, s.scratch, counters);
  }
  if (s.reg) physics_detail::add_to_register(update_refs(s), g.dim, dt);
}

}  // namespace pw
